/**
 * A revision's preview: what saving a text would create — counts, cost
 * delta, changed claims and instances, sections and who may accept them —
 * resolved as a draft, and nothing saved.
 */
import type { UserRoles } from '../engine/acl';
import type { Cluster } from '../engine/model/kinds';
import { planRevision, type PlanAction, type RevisionPlan } from '../engine/plan';
import type { DesiredState, PolicyObjectInput } from '../engine/resolve';
import type { Repos, RevisionRow, SectionRow } from '../repo/types';
import { isResolverFailure } from '../resolver';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import type { PolicyAdmission } from './admission';
import { toPolicyInput, type ResolutionService } from './resolution';
import { acceptedBy, changedOutcomes, parametersYaml, sectionOrder } from './revision-views';
import type { Preview, PreviewInput } from './revisions.types';
import { PREVIEW_SHOWN } from './revisions.types';

/** What a preview reads and decides with: the revision service's. */
export interface PreviewDeps {
  repos: Repos;
  resolution: ResolutionService;
  access: AccessService;
  admission: PolicyAdmission;
  /** What the accepted revision really deployed (its failed steps left out). */
  reallyDeployed: (rev: RevisionRow) => Promise<DesiredState>;
  rolesOf: (actor: Actor, generation: number) => Promise<UserRoles>;
  /** Whether the roles may accept a section (the rule stored revisions are decided by). */
  mayDecide: (roles: UserRoles, s: Pick<SectionRow, 'namespace' | 'overMarks'> & { needsDomainAdmin: readonly string[]; unresolvedReferences?: readonly string[] }) => { ok: true } | { ok: false; reason: string };
}

/** What saving `text` would create: counts, cost delta, changed claims, sections — nothing is saved. */
export async function previewRevision(d: PreviewDeps, actor: MaybeActor, input: PreviewInput): Promise<Preview> {
  // Preview is held to the rights of saving, checked before the text is read: it resolves the
  // draft with the claims' users' labels and secrets, so it may only show what this user could save.
  const parsed = await d.admission.admit(actor, input.text, { verb: 'preview changes', claimVerb: 'preview' });
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return { ok: false as const, message: `Fix ${errors.length} problem${errors.length === 1 ? '' : 's'} to see the preview.` };
  const generation = await d.repos.policy.head();
  const current = await d.repos.policy.listObjects({ generation });
  const changed = new Map(parsed.objects.map((o) => [`${o.kind}/${o.namespace}/${o.name}`, o]));
  const objects: PolicyObjectInput[] = current
    .filter((o) => !changed.has(`${o.kind}/${o.namespace}/${o.name}`))
    .map(toPolicyInput)
    .concat(parsed.objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec }) as PolicyObjectInput));
  let after: DesiredState;
  try {
    after = await d.resolution.resolveDraft(objects);
  } catch (e) {
    if (isResolverFailure(e)) return { ok: false as const, message: `No preview: resolving the policy with this change ${e.reason}. Saving it would leave every claim unresolved.` };
    throw e;
  }
  const head = await d.repos.revisions.head();
  const base = head.acceptedRevisionId ? await d.repos.revisions.get(head.acceptedRevisionId) : undefined;
  const before = base ? await d.reallyDeployed(base) : null;
  const clusters = objects.filter((o) => o.kind === 'cluster').map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as Cluster }));
  const plan = planRevision({ before, after, clusters });
  const affected = new Set(plan.changedClaims);
  // Who accepts each section: the rule a stored revision's sections are decided by (`mayDecide`), under the newest policy's roles.
  const roles = await d.rolesOf(parsed.who, generation);
  const instances = await changedInstances(d, parsed.who, plan, before, after);
  const outcomes = changedOutcomes(before, after);
  return {
    ok: true as const,
    generation,
    baseRevisionId: base?.id ?? null,
    noop: plan.noop,
    counts: plan.counts,
    sections: plan.sections.map((s) => {
      const may = d.mayDecide(roles, s);
      return {
        namespace: s.namespace,
        counts: s.counts,
        overMarks: s.overMarks,
        needsDomainAdmin: s.needsDomainAdmin,
        unresolvedReferences: s.unresolvedReferences,
        acceptedBy: acceptedBy(s),
        youMayAccept: may.ok,
        ...(may.ok ? {} : { reason: may.reason }),
      };
    }),
    cost: plan.cost.total,
    currency: plan.cost.currency,
    quota: plan.quota.filter((q) => !q.ok),
    changedClaims: plan.changedClaims,
    claims: after.claims.filter((c) => affected.has(`${c.namespace}/${c.name}`)).map((c) => ({ namespace: c.namespace, name: c.name, status: c.status, errors: c.errors })),
    instances: instances.shown,
    instancesTotal: instances.total,
    outcomes: outcomes.slice(0, PREVIEW_SHOWN),
    outcomesTotal: outcomes.length,
  };
}

/**
 * The instances a preview's plan creates, changes or removes — updates
 * first, as what a user edits is usually a change — the first
 * PREVIEW_SHOWN with their parameters before and after, redacted for
 * `actor` as `instanceDiff` redacts them on the revision page.
 */
async function changedInstances(d: PreviewDeps, actor: Actor, plan: RevisionPlan, before: DesiredState | null, after: DesiredState) {
  // Root "bumps" are bookkeeping (no step, no code): what changes is an instance with a step.
  const stepped = new Set(plan.steps.map((s) => s.key));
  const rank = { update: 0, delete: 1, create: 2 } as const;
  const changed = sectionOrder(plan.actions)
    .filter((a): a is PlanAction & { kind: keyof typeof rank } => a.kind in rank && stepped.has(a.key))
    .map((a, i) => ({ a, i }))
    .sort((x, y) => rank[x.a.kind] - rank[y.a.kind] || x.i - y.i)
    .map((x) => x.a);
  const shown = changed.slice(0, PREVIEW_SHOWN);
  const keys = new Set(shown.map((a) => a.key));
  const pick = async (s: DesiredState | null) => {
    const found = (s?.instances ?? []).filter((i) => keys.has(i.key));
    return new Map((await d.access.redactSensitive(actor, found)).map((i) => [i.key, i]));
  };
  const [was, will] = await Promise.all([pick(before), pick(after)]);
  return {
    total: changed.length,
    shown: shown.map((a) => ({
      key: a.key,
      action: a.kind,
      namespace: a.namespace,
      notes: a.notes ?? [],
      before: a.kind === 'create' ? '' : parametersYaml(was.get(a.key)),
      after: a.kind === 'delete' ? '' : parametersYaml(will.get(a.key)),
    })),
  };
}
