/**
 * New revisions of an existing service: update (replace or patch), scale,
 * restart, roll back, remove. Each starts from the service's current
 * revision, is admitted by marks like any change, and is written as the
 * claim object it builds.
 */
import type { Claim } from '../../engine/model/kinds';
import { loadObjects } from '../../engine/model/validate';
import { restartLabelFor } from '../../engine/state/restart';
import { refuseErrors } from '../admission';
import type { MaybeActor } from '../actor';
import { AppError, notFound } from '../../errors';
import { claimOf, signedIn, tenantOf, type Axebow } from './context';
import { base, currentOf, history } from './history';
import { admitChange } from './marks';
import { admitResources } from './resource-rules';
import { builtObject, claimDocument, targetLabel } from './objects';
import { PLACEMENT_LABELS, type CreateServiceInput, type ServiceWrite } from './types';
import { write } from './write';

/**
 * Restart a role's instances, or one of them (Axebow §5.9.7, §5.9.9): a
 * new revision stamping the claim with a restart label (engine
 * state/restart.ts), so the plan updates exactly those instances and the
 * apply rolls their workloads. It is accepted at once when the caller may
 * accept it — asking for a restart is the decision — and otherwise waits
 * like any revision.
 */
export async function restart(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string; role: string; instance?: string; at?: Date }): Promise<ServiceWrite> {
  const who = signedIn(actor, 'restart services');
  const t = await tenantOf(cx, who, input.tenant, 'restart services');
  const live = await claimOf(cx, t, input.name);
  const view = await cx.claims.get(who, { namespace: live.namespace, name: live.name, kind: 'claim' }, { trace: false });
  const mine = view.instances.filter((i) => i.component === input.role && i.code !== null && (input.instance === undefined || i.deployName === input.instance));
  if (mine.length === 0) {
    throw notFound(input.instance ? `Instance ${input.instance} of role ${input.role} of service ${input.name}` : `Role ${input.role} (with code to run) of service ${input.name}`);
  }
  const current = currentOf(await history(cx, who, { tenant: input.tenant, name: input.name }));
  if (!current) throw new AppError('CONFLICT', `Service ${input.name} has no revision yet: there is nothing running to restart.`);
  const { claim } = await base(cx, who, t, input.tenant, input.name, current.id!);
  const old = claim.spec as Claim;
  const labels = { ...(old.labels ?? {}), [restartLabelFor(input.role, input.instance)]: (input.at ?? new Date()).toISOString() };
  const restarted = builtObject({ kind: 'claim', metadata: { namespace: claim.namespace, name: claim.name }, user: old.user, service: old.service, labels });
  const what = input.instance ? `instance ${input.instance} of role ${input.role}` : `role ${input.role}`;
  return write(cx, who, [restarted], `restart ${what} of service ${input.name} of tenant ${t.name} (API)`, true);
}

/**
 * A new revision of a service from its current one: `replace` gives the
 * whole new spec (service, labels, environment), `patch` changes only
 * what it names (labels merge; a null label removes it), `simple` is
 * Axebow's artifact-reference form: the offering and all its labels
 * replaced, as `replace`, but the service stays in the environment it
 * runs in unless the body names another (the simple form describes the
 * deployment, not where it goes). The claim keeps the user it acts for;
 * changing someone else's needs the rights the policy service checks for
 * any save.
 */
export async function update(
  cx: Axebow,
  actor: MaybeActor,
  input: { tenant: string; name: string; previous: number; accept: boolean; removeLinks?: boolean; dryrun?: boolean } & (
    | { mode: 'replace' | 'simple'; spec: CreateServiceInput }
    | { mode: 'patch'; spec: { service?: string; environment?: string; labels?: Record<string, string | null> } }
  ),
): Promise<ServiceWrite> {
  const who = signedIn(actor, 'update services');
  const t = await tenantOf(cx, who, input.tenant, 'update services');
  const { claim } = await base(cx, who, t, input.tenant, input.name, input.previous);
  const old = claim.spec as Claim;
  const labels: Record<string, string> = input.mode === 'patch' ? { ...(old.labels ?? {}) } : { ...input.spec.labels };
  if (input.mode === 'patch') for (const [k, v] of Object.entries(input.spec.labels ?? {})) v === null ? delete labels[k] : (labels[k] = v);
  if (input.mode === 'simple') for (const l of PLACEMENT_LABELS) if (old.labels?.[l] !== undefined) labels[l] = old.labels[l];
  if (input.spec.environment) {
    labels.target = await targetLabel(cx, t, input.spec.environment);
    labels.environment = input.spec.environment;
  }
  const dropped = await cx.links.droppedChannels(t.id, input.name, old.labels, labels, input.removeLinks ?? false);
  const changed = builtObject(claimDocument({ namespace: claim.namespace, name: claim.name, user: old.user, service: input.spec.service ?? old.service, labels }));
  await admitResources(cx, who, t, input.name, changed, await admitChange(cx, t, input.name, changed, 'Changed so'));
  const w = await write(cx, who, [changed], `update service ${input.name} of tenant ${t.name} from revision ${input.previous} (API)`, input.accept, input.dryrun);
  if (!w.dryrun) await cx.links.dropChannels(t.id, input.name, dropped);
  return w;
}

/** Scale: a new revision setting `replicas` (or `replicas-<role>` per role) labels, which the bundle's templates read. */
export async function scale(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string; previous: number; accept: boolean; dryrun?: boolean; scale: number | Record<string, number> }): Promise<ServiceWrite> {
  const labels: Record<string, string> =
    typeof input.scale === 'number' ? { replicas: String(input.scale) } : Object.fromEntries(Object.entries(input.scale).map(([role, n]) => [`replicas-${role}`, String(n)]));
  return update(cx, actor, { tenant: input.tenant, name: input.name, previous: input.previous, accept: input.accept, dryrun: input.dryrun, mode: 'patch', spec: { labels } });
}

/**
 * Roll back to an earlier revision of the service: a new revision whose
 * claim is the one that revision had (history is never rewritten). The
 * target must have been accepted at some point.
 */
export async function rollback(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string; previous: number; target: number; accept: boolean; removeLinks?: boolean; dryrun?: boolean }): Promise<ServiceWrite> {
  const who = signedIn(actor, 'roll back services');
  const t = await tenantOf(cx, who, input.tenant, 'roll back services');
  const { claim, history: revisions } = await base(cx, who, t, input.tenant, input.name, input.previous);
  const target = revisions.find((h) => h.id === input.target);
  if (!target) throw notFound(`Revision ${input.target} of service ${input.name}`);
  if (!['accepted', 'applying', 'applied', 'failed', 'superseded'].includes(target.status)) {
    throw new AppError('CONFLICT', `Revision ${input.target} was never accepted (it is ${target.status}); roll back only to one that was.`);
  }
  const then = await cx.repos.policy.getObject({ kind: 'claim', namespace: claim.namespace, name: claim.name }, target.generation);
  if (!then) throw new AppError('CONFLICT', `At revision ${input.target} service ${input.name} did not exist; remove it instead.`);
  const dropped = await cx.links.droppedChannels(t.id, input.name, (claim.spec as Claim).labels, (then.spec as Claim).labels, input.removeLinks ?? false);
  // The old claim costs what it costs now: a rollback is admitted like any change.
  await admitResources(cx, who, t, input.name, then, await admitChange(cx, t, input.name, then, 'Rolled back so'));
  // The claim as that revision stored it, held to today's schema as any saved text is.
  const restored = loadObjects(then.text);
  refuseErrors(restored.diagnostics);
  const w = await write(cx, who, restored.objects, `roll back service ${input.name} of tenant ${t.name} to revision ${input.target} (API)`, input.accept, input.dryrun);
  if (!w.dryrun) await cx.links.dropChannels(t.id, input.name, dropped);
  return w;
}

/** Remove a service: delete its claim (a new generation and revision). */
export async function remove(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string; accept: boolean }): Promise<ServiceWrite> {
  const who = signedIn(actor, 'remove services');
  const t = await tenantOf(cx, who, input.tenant, 'remove services');
  const o = await claimOf(cx, t, input.name);
  const w = await cx.policy.delete(who, {
    ids: [{ kind: 'claim', namespace: o.namespace, name: o.name }],
    baseGeneration: await cx.repos.policy.head(),
    message: `remove service ${input.name} of tenant ${t.name} (API)`,
    accept: input.accept,
  });
  await cx.links.dropService(t.id, input.name);
  return { dryrun: false, generation: w.generation, revision: await cx.revisions.byGeneration(who, w.generation, { wait: true }) };
}
