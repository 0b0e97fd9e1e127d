/**
 * Revisions: every policy generation becomes one — the diff from the
 * accepted deployment to the new desired state, its ordered plan, cost and
 * quota checks — split into one section per namespace it changes. People
 * with the right accept or reject sections; when all are accepted, the
 * stored plan is queued for apply (in the same transaction).
 */
import { isDomainAdmin, roleIn, type UserRoles } from '../engine/acl';
import type { AccessService } from './access';
import type { Cluster } from '../engine/model/kinds';
import { InlineResolver } from '../resolver';
import { PolicyAdmission } from './admission';
import { appliedState, holdBackTimedOut, planRevision, type RevisionPlan, type SectionDeploys } from '../engine/plan';
import type { DesiredState } from '../engine/resolve';
import type { Instance } from '../engine/state';
import type { EventRow, Repos, RevisionRow, SectionRow } from '../repo/types';
import type { Actor, MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from '../errors';
import type { ResolutionService } from './resolution';
import { transition } from '../engine/plan/revision-state';
import type {
  ByGenerationResult,
  Carries,
  DecideInput,
  DecideResult,
  InstanceDiff,
  InstanceDiffInput,
  ListRevisionsInput,
  PlanPage,
  PlanPageInput,
  Preview,
  PreviewInput,
  RestoreResult,
  RevisionPlanView,
  RevisionSummary,
  RevisionView,
  SectionView,
  StoredPlan,
} from './revisions.types';
import { PLAN_FIRST_PAGE, PLAN_PAGE_MAX, SECTION_KEYS_SHOWN } from './revisions.types';
import { previewRevision } from './revision-preview';
import { capClaims, parametersYaml, sectionOrder, statusByKey } from './revision-views';
import { loggable } from '../db/log-safe';

export type { RevisionSummary, SectionView } from './revisions.types';


/** How long `byGeneration` with `wait` waits for a revision being computed. */
const BY_GENERATION_WAIT_MS = 30_000;

/** Generations a revision's "carries" lists at most; older ones are counted. */
const CARRIES_SHOWN = 20;

export class RevisionService {
  /** Revisions are computed one at a time: each diffs against the accepted head. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repos: Repos,
    private readonly resolution: ResolutionService,
    private readonly access: AccessService,
    /** Writes a generation restoring an earlier one (PolicyService.restore). */
    private readonly restore: (actor: Actor, generation: number, message?: string) => Promise<{ generation: number; changed: boolean }>,
    /** How a preview's text is read: rights first (./admission.ts). */
    private readonly admission: PolicyAdmission = new PolicyAdmission(access, new InlineResolver()),
  ) {}

  private get revisions() {
    return this.repos.revisions;
  }

  /** Computations this process has started, by generation (so a read can wait for one instead of starting it). */
  private readonly inFlight = new Map<number, Promise<RevisionRow>>();

  /** After a write: compute the generation's revision in the background. */
  schedule(generation: number, opts: { autoAcceptBy?: Actor } = {}): void {
    void this.ensureForGeneration(generation, opts).catch((e) => console.error(`revision for generation ${generation} failed: ${loggable(e)}`));
  }

  /**
   * Compute (once) and store the revision of a generation that exists. Only
   * the service calls this — after a write, at boot, on rollback — never a
   * read: a stored revision supersedes older pending ones, so computing one
   * is a change to the deployment's state.
   */
  ensureForGeneration(generation: number, opts: { autoAcceptBy?: Actor } = {}): Promise<RevisionRow> {
    const running = this.inFlight.get(generation);
    if (running) return running;
    const run = this.queue.then(() => this.compute(generation, opts));
    this.queue = run.catch(() => undefined);
    this.inFlight.set(generation, run);
    void run.catch(() => undefined).finally(() => this.inFlight.delete(generation));
    return run;
  }

  /** The computation of a generation's revision this process is running, if any (settles when it is stored or failed). */
  computing(generation: number): Promise<unknown> | undefined {
    return this.inFlight.get(generation);
  }

  /**
   * The revisions of the newest `limit` generations that changed an object
   * (a service's history), read beside the policy's list of them rather than
   * after it: `of(g)` answers for each generation that list holds.
   */
  async touching(actor: MaybeActor, key: { kind: string; name: string }, limit: number): Promise<{ of(generation: number): ByGenerationResult }> {
    if (!actor) throw unauthorized('see revisions');
    const rows = await this.revisions.statusesTouching(key, limit);
    return { of: (g) => this.statusOf(rows, g) };
  }

  private statusOf(rows: Map<number, { id: number; status: RevisionRow['status'] }>, generation: number): ByGenerationResult {
    return rows.get(generation) ?? { id: null, status: this.inFlight.has(generation) ? 'computing' : 'not computed' };
  }

  /**
   * The revision of a generation, read only. A generation past the head (or
   * below 1) is not found; one whose revision is still being computed
   * answers `computing` — with `wait`, after waiting a while for it.
   */
  async byGeneration(actor: MaybeActor, generation: number, opts: { wait?: boolean } = {}): Promise<ByGenerationResult> {
    if (!actor) throw unauthorized('see revisions');
    const head = await this.repos.policy.head();
    if (!Number.isInteger(generation) || generation < 1 || generation > head) {
      throw notFound(`Generation ${generation} (the newest is ${head})`);
    }
    const deadline = Date.now() + (opts.wait ? BY_GENERATION_WAIT_MS : 0);
    for (;;) {
      const row = await this.revisions.statusByGeneration(generation);
      if (row) return { id: row.id, status: row.status };
      const running = this.inFlight.get(generation);
      const left = deadline - Date.now();
      if (left <= 0) return { id: null, status: running ? 'computing' : 'not computed' };
      // Another process may be computing it: poll the database until the deadline.
      await Promise.race([running?.catch(() => undefined), new Promise((r) => setTimeout(r, Math.min(left, 250)))]);
    }
  }

  private async compute(generation: number, opts: { autoAcceptBy?: Actor }): Promise<RevisionRow> {
    const existing = await this.revisions.byGeneration(generation);
    if (existing) return existing;
    if (generation < 1 || generation > (await this.repos.policy.head())) throw notFound(`Generation ${generation}`);
    for (let attempt = 0; attempt < 5; attempt++) {
      const head = await this.revisions.head();
      const base = head.acceptedRevisionId ? await this.revisions.get(head.acceptedRevisionId) : undefined;
      const before = base ? await this.reallyDeployed(base) : null;
      // What ran out of its time is held back as it ran, and carried over below as running.
      const after = holdBackTimedOut(before, (await this.resolution.ensure(generation)).state);
      // The state has just crossed from the resolver thread (a long turn at hundreds of services): let the
      // requests that arrived meanwhile be read before planning takes another. Under load, the two in one
      // turn were most of the request thread's longest stalls, which every reader behind them waited out.
      await nextTurn();
      const plan = await this.plan(generation, before, after);
      // Instances this revision holds back (conflicts) keep running as they were:
      // remember those versions, as the next revision's starting point.
      const erroredNow = new Set(after.instances.filter((i) => i.error).map((i) => i.key));
      const carryOver = erroredNow.size ? appliedState(before, after).instances.filter((i) => erroredNow.has(i.key)) : [];
      const info = await this.repos.policy.getGeneration(generation);
      const rollbackOf = info?.restoredFrom != null ? ((await this.revisions.byGeneration(info.restoredFrom))?.id ?? null) : null;
      const res = await this.revisions.insert({
        generation,
        baseRevisionId: base?.id ?? null,
        status: plan.noop ? 'no-op' : 'pending',
        author: info?.author ?? 'keelson',
        rollbackOf,
        counts: plan.counts,
        cost: plan.cost,
        quota: plan.quota,
        plan: { ...plan, carryOver },
        sections: plan.sections.map((s) => ({ namespace: s.namespace, overMarks: s.overMarks, counts: s.counts })),
      });
      if (res.status === 'stale') continue; // someone accepted meanwhile: diff against the new head
      if (res.status === 'created' && res.revision.status === 'pending' && opts.autoAcceptBy) {
        await this.autoAccept(res.revision, opts.autoAcceptBy);
        return (await this.revisions.get(res.revision.id))!;
      }
      return res.revision;
    }
    throw new AppError('CONFLICT', `Could not compute the revision of generation ${generation}: deployments kept changing. Try again.`);
  }

  /**
   * What the newest accepted revision deploys (applied, or queued for it):
   * what the tenants' environments are using, in Axebow's terms. Null
   * before anything was accepted.
   */
  async acceptedState(): Promise<DesiredState | null> {
    const head = await this.revisions.head();
    if (head.acceptedRevisionId == null) return null;
    const rev = await this.revisions.get(head.acceptedRevisionId);
    return rev ? this.reallyDeployed(rev) : null;
  }

  /** What runs once `rev` is applied: its desired state, held-back instances as they were before. */
  /**
   * What runs once `rev` was applied, as far as its apply got: instances
   * whose create or update step failed (or was skipped behind a failure)
   * are not treated as deployed, so the next revision creates or updates
   * them again instead of taking them for done.
   */
  private async reallyDeployed(rev: RevisionRow, depth = 0): Promise<DesiredState> {
    const state = await this.deployedState(rev);
    if (rev.status !== 'failed' && rev.status !== 'applying') return state;
    const unfinished = (await this.revisions.steps(rev.id)).filter((s) => s.status === 'failed' || s.status === 'skipped');
    const notDone = new Set(unfinished.filter((s) => s.action !== 'delete').map((s) => s.key));
    // A delete that did not happen leaves the instance running as the base had it.
    const notDeleted = new Set(unfinished.filter((s) => s.action === 'delete').map((s) => s.key));
    if (notDone.size === 0 && notDeleted.size === 0) return state;
    let instances = state.instances.filter((i) => !notDone.has(i.key));
    if (notDeleted.size > 0 && rev.baseRevisionId != null && depth < 50) {
      const base = await this.revisions.get(rev.baseRevisionId);
      const before = base ? await this.reallyDeployed(base, depth + 1) : null;
      const still = (before?.instances ?? []).filter((i) => notDeleted.has(i.key) && !instances.some((x) => x.key === i.key));
      instances = instances.concat(still).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    }
    return { ...state, instances };
  }

  private async deployedState(rev: RevisionRow): Promise<DesiredState> {
    const state = (await this.resolution.ensure(rev.generation)).state;
    const carry = ((rev.plan as { carryOver?: Instance[] }).carryOver ?? []) as Instance[];
    if (carry.length === 0 && !state.instances.some((i) => i.error)) return state;
    const instances = state.instances.filter((i) => !i.error).concat(carry).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { ...state, instances };
  }

  private async plan(generation: number, before: DesiredState | null, after: DesiredState): Promise<RevisionPlan> {
    const clusters = (await this.repos.policy.listObjects({ generation, kind: 'cluster' })).map((o) => ({
      namespace: o.namespace,
      name: o.name,
      spec: o.spec as Cluster,
    }));
    return planRevision({ before, after, clusters });
  }

  /**
   * `accept=true` on a write: sections within their marks that the author may
   * accept are accepted at once. The others stay pending, and the revision's
   * events say why (`notAcceptedOnSave` answers the writer the same).
   */
  private async autoAccept(rev: RevisionRow, actor: Actor) {
    const roles = await this.rolesOf(actor, rev.generation);
    const sections = this.withReach(rev, await this.revisions.sections([rev.id]));
    const left = sections.map((s) => ({ namespace: s.namespace, reason: this.whyNotOnSave(roles, s) }));
    const mine = left.filter((s) => s.reason === null).map((s) => s.namespace);
    for (const s of left) if (s.reason !== null) await this.revisions.event(rev.id, 'acceptance', `accept=true left section ${s.namespace} pending: ${s.reason}`, { actor: actor.name });
    if (mine.length === 0) return;
    await this.revisions.decide({ revisionId: rev.id, namespaces: mine, decision: 'accept', actor: actor.name, comment: 'accepted on save (accept=true)' });
  }

  /**
   * Why `accept=true` leaves a section for a later decision (null: it accepts it).
   * Like going over marks, reaching past the namespace is for a deliberate
   * decision, never a save's side effect — a domain admin's save included.
   */
  private whyNotOnSave(roles: UserRoles, s: Pick<SectionRow, 'namespace' | 'overMarks'> & { needsDomainAdmin: readonly string[] }): string | null {
    if (s.overMarks) return `it goes over a cluster's marks, so a domain admin accepts it explicitly (never on save).`;
    if (s.needsDomainAdmin.length > 0) return `it reaches past policy namespace ${s.namespace} (${s.needsDomainAdmin.join('; ')}), so a domain admin accepts it explicitly (never on save).`;
    const may = this.mayDecide(roles, s);
    return may.ok ? null : may.reason;
  }

  /**
   * The sections of a revision that a write with `accept=true` left pending,
   * and why: its answer says so rather than letting the caller take the
   * revision for accepted. Waits for the revision's computation here (the
   * acceptance on save is part of it).
   */
  async notAcceptedOnSave(actor: Actor, revisionId: number): Promise<{ namespace: string; reason: string }[]> {
    const rev = await this.revisions.get(revisionId);
    if (!rev) return [];
    await this.computing(rev.generation)?.catch(() => undefined);
    const roles = await this.rolesOf(actor, rev.generation);
    const sections = this.withReach(rev, await this.revisions.sections([rev.id]));
    return sections.flatMap((s) => {
      if (s.status !== 'pending') return [];
      const reason = this.whyNotOnSave(roles, s);
      return reason === null ? [] : [{ namespace: s.namespace, reason }];
    });
  }

  /** Roles under the revision's own policy (its ACL rules), plus tenant membership. */
  private rolesOf(actor: Actor, generation: number): Promise<UserRoles> {
    return this.access.roles(actor, generation);
  }

  /**
   * The sections with what each deploys beyond its namespace, from the stored
   * plan (the sections table has no column for it; plans stored before it
   * existed have none).
   */
  private withReach<S extends Pick<SectionRow, 'namespace'>>(
    rev: RevisionRow,
    sections: S[],
  ): (S & { needsDomainAdmin: string[]; deploys: SectionDeploys | null; unresolvedReferences: string[] })[] {
    const planned = (rev.plan as { sections?: Partial<RevisionPlan['sections'][number]>[] } | null)?.sections ?? [];
    const byNs = new Map(planned.map((p) => [p.namespace, p]));
    return sections.map((s) => {
      const p = byNs.get(s.namespace);
      return { ...s, needsDomainAdmin: p?.needsDomainAdmin ?? [], deploys: p?.deploys ?? null, unresolvedReferences: p?.unresolvedReferences ?? [] };
    });
  }

  private mayDecide(
    roles: UserRoles,
    s: Pick<SectionRow, 'namespace' | 'overMarks'> & { needsDomainAdmin: readonly string[]; unresolvedReferences?: readonly string[] },
    decision: 'accept' | 'reject' = 'accept',
  ): { ok: true } | { ok: false; reason: string } {
    const role = roleIn(roles, s.namespace);
    // No role lifts this: what is accepted is written to the repository, and a reference there would be shipped as text.
    if (decision === 'accept' && s.unresolvedReferences?.length) {
      return {
        ok: false,
        reason: `Section ${s.namespace} cannot be accepted: ${s.unresolvedReferences.join('; ')}. Keelson does not read values from the cluster: write the value into the configuration or remove the reference, then save again.`,
      };
    }
    if (s.overMarks && !isDomainAdmin(roles)) {
      return { ok: false, reason: `Section ${s.namespace} goes over a cluster's marks: only a domain admin may accept it.` };
    }
    if (s.needsDomainAdmin.length > 0 && !isDomainAdmin(roles)) {
      return {
        ok: false,
        reason: `Section ${s.namespace} reaches past policy namespace ${s.namespace}: ${s.needsDomainAdmin.join('; ')}. Only a domain admin may accept it.`,
      };
    }
    if (role === 'domain-admin' || role === 'namespace-admin') return { ok: true };
    return {
      ok: false,
      reason: `Deciding section ${s.namespace} needs the namespace-admin role in ${s.namespace} or domain-admin; you are ${role ?? 'not given a role'} there.`,
    };
  }

  async list(actor: MaybeActor, opts: ListRevisionsInput = {}): Promise<RevisionSummary[]> {
    if (!actor) throw unauthorized('see revisions');
    const rows = await this.revisions.list(opts);
    const sections = await this.revisions.sections(rows.map((r) => r.id));
    const carries = await this.carriesOf(rows);
    return rows.map((r) => {
      const secs = sections.filter((s) => s.revisionId === r.id);
      const total = r.cost as { currency?: string; delta?: { monthly?: number } } | null;
      return {
        id: r.id,
        generation: r.generation,
        status: r.status,
        author: r.author,
        createdAt: r.createdAt,
        appliedAt: r.appliedAt,
        rollbackOf: r.rollbackOf,
        counts: r.counts as RevisionPlan['counts'],
        costDelta: total?.delta?.monthly ?? 0,
        currency: total?.currency ?? '',
        acceptedBy: [...new Set(secs.filter((s) => s.status === 'accepted' && s.decidedBy).map((s) => s.decidedBy!))],
        sections: secs.map((s) => ({ namespace: s.namespace, status: s.status })),
        carries: carries.get(r.id)!,
      };
    });
  }

  /**
   * Whose changes each revision carries: the generations after its base
   * revision's generation, up to its own (a revision diffs against the
   * accepted one, so changes whose revisions were never accepted ride along).
   * One read of the generations the page spans, at most CARRIES_SHOWN each.
   */
  private async carriesOf(rows: readonly { id: number; generation: number; baseRevisionId: number | null }[]): Promise<Map<number, Carries>> {
    const out = new Map<number, Carries>();
    if (rows.length === 0) return out;
    const generationOf = new Map(rows.map((r) => [r.id, r.generation]));
    for (const id of new Set(rows.map((r) => r.baseRevisionId).filter((b): b is number => b !== null && !generationOf.has(b)))) {
      // A base before this page: its list row (no plan) names its generation.
      const [base] = await this.revisions.list({ before: id + 1, limit: 1 });
      if (base?.id === id) generationOf.set(id, base.generation);
    }
    const spans = rows.map((r) => {
      const from = r.baseRevisionId === null ? 0 : (generationOf.get(r.baseRevisionId) ?? r.generation - 1);
      // A base at or past this generation (a rollback's base may be newer): the revision carries its own generation only.
      return { id: r.id, to: r.generation, from: Math.min(from, r.generation - 1) };
    });
    const top = Math.max(...spans.map((x) => x.to));
    const low = Math.max(Math.min(...spans.map((x) => Math.max(x.from, x.to - CARRIES_SHOWN))), 0);
    const authors = new Map((await this.repos.policy.listGenerations({ before: top + 1, limit: top - low })).map((g) => [g.generation, g.author]));
    for (const x of spans) {
      const changes: Carries['changes'] = [];
      for (let g = x.to; g > x.from && changes.length < CARRIES_SHOWN; g--) changes.push({ generation: g, author: authors.get(g) ?? 'keelson' });
      out.set(x.id, { changes, more: x.to - x.from - changes.length });
    }
    return out;
  }

  /**
   * One revision as `actor` may see it. `limit` bounds every long list of
   * the plan to its first `limit` rows (at most PLAN_PAGE_MAX; `planTotals`
   * says how long they are, `planPage` gives the rest): what goes to a
   * browser, since a revision may change 20,000 instances. Without it the
   * whole plan comes back, for callers in this process that need every
   * action (a service's sections, `DeploymentService.decide`).
   */
  async get(actor: MaybeActor, id: number, opts: { limit?: number } = {}): Promise<RevisionView> {
    if (!actor) throw unauthorized('see revisions');
    const rev = await this.revisions.get(id);
    if (!rev) throw notFound(`Revision ${id}`);
    const bounded = opts.limit !== undefined;
    const limit = bounded ? Math.max(0, Math.min(Math.floor(opts.limit!), PLAN_PAGE_MAX)) : Infinity;
    const head = await this.revisions.head();
    const roles = await this.rolesOf(actor, rev.generation);
    const sections: SectionView[] = this.withReach(rev, await this.revisions.sections([id])).map(({ revisionId: _r, ...s }) => {
      const may = this.mayDecide(roles, s);
      const open = rev.status === 'pending' && s.status === 'pending';
      return { ...s, counts: s.counts as RevisionPlan['counts'], canDecide: open && may.ok, reason: !open ? undefined : may.ok ? undefined : may.reason };
    });
    const rows = await this.revisions.steps(id);
    const jobs = await this.revisions.jobsFor(id);
    const stored = rev.plan as StoredPlan;
    const actions = sectionOrder(stored.actions).slice(0, limit);
    const steps = stored.steps.slice(0, limit);
    // Held-back instances (carried over as they ran) are redacted like the steps.
    const carryOver = stored.carryOver;
    const plan: RevisionPlanView = {
      ...stored,
      actions,
      steps: bounded ? (await this.access.redactSensitive(actor, steps)).map(capClaims) : await this.access.redactSensitive(actor, steps),
      sections: bounded ? stored.sections.map((s) => ({ ...s, keys: s.keys.slice(0, SECTION_KEYS_SHOWN), keysTotal: s.keys.length })) : stored.sections,
      changedClaims: stored.changedClaims.slice(0, limit),
      notes: stored.notes.slice(0, limit),
      ...(carryOver ? { carryOver: (await this.access.redactSensitive(actor, carryOver.slice(0, limit))).map((i) => (bounded ? capClaims(i) : i)) } : {}),
    };
    const planTotals = { actions: stored.actions.length, steps: stored.steps.length, changedClaims: stored.changedClaims.length, notes: stored.notes.length, carryOver: carryOver?.length ?? 0 };
    // Status rows of what the first page shows: its steps, and the steps of its actions' instances.
    const shown = new Set(actions.map((a) => `${a.key}|${a.kind}`));
    const statusRows = bounded ? rows.filter((r) => r.stepIndex < limit || shown.has(`${r.key}|${r.action}`)) : rows;
    const stepStatus: Record<string, number> = {};
    for (const r of rows) stepStatus[r.status] = (stepStatus[r.status] ?? 0) + 1;
    const stale = rev.status === 'pending' && rev.baseRevisionId !== head.acceptedRevisionId;
    const revertTo = await this.revertTarget(rev);
    const carries = (await this.carriesOf([rev])).get(rev.id)!;
    const { plan: _stored, ...revision } = rev;
    return { revision: { ...revision, counts: rev.counts as RevisionPlan['counts'] }, carries, plan, planTotals, sections, steps: statusRows, stepStatus, jobs, head, stale, revertTo };
  }

  /**
   * One page of a revision's plan, for the same readers as `get` and
   * redacted as it redacts: its actions in section order (what the console's
   * plan table lists) or its steps in plan order, with each one's apply
   * status, optionally filtered by section, action kind or text in the key
   * (or claim). Pages are cut from the stored plan, so they stay the same
   * while the revision lives: paging by offset sees every row exactly once.
   */
  async planPage(actor: MaybeActor, input: PlanPageInput): Promise<PlanPage> {
    if (!actor) throw unauthorized('see revisions');
    const rev = await this.revisions.get(input.id);
    if (!rev) throw notFound(`Revision ${input.id}`);
    const limit = Math.max(1, Math.min(Math.floor(input.limit ?? PLAN_FIRST_PAGE), PLAN_PAGE_MAX));
    const offset = Math.max(0, Math.floor(input.offset ?? 0));
    const stored = rev.plan as StoredPlan;
    const text = input.text?.trim().toLowerCase() || undefined;
    const rows = await this.revisions.steps(rev.id);
    const page = <T>(matching: T[], all: number) => {
      const items = matching.slice(offset, offset + limit);
      const next = offset + items.length;
      return { items, fields: { id: rev.id, offset, limit, total: matching.length, all, nextOffset: next < matching.length ? next : null } };
    };
    if (input.of === 'actions') {
      const matching = sectionOrder(stored.actions).filter(
        (a) => (!input.namespace || a.namespace === input.namespace) && (!input.action || a.kind === input.action) && (!text || a.key.toLowerCase().includes(text) || !!a.claim?.toLowerCase().includes(text)),
      );
      const { items, fields } = page(matching, stored.actions.length);
      const status = statusByKey(rows);
      return { of: 'actions', ...fields, actions: items.map((a) => ({ ...a, status: status.get(`${a.key}|${a.kind}`) ?? null })) };
    }
    const matching = stored.steps.filter(
      (s) => (!input.namespace || s.namespace === input.namespace) && (!input.action || s.action === input.action) && (!text || s.key.toLowerCase().includes(text)),
    );
    const { items, fields } = page(matching, stored.steps.length);
    const byIndex = new Map(rows.map((r) => [r.stepIndex, r.status]));
    const steps = (await this.access.redactSensitive(actor, items)).map((s) => ({ ...capClaims(s), status: byIndex.get(s.index) ?? null }));
    return { of: 'steps', ...fields, steps };
  }

  async events(actor: MaybeActor, id: number, afterId = 0): Promise<EventRow[]> {
    if (!actor) throw unauthorized('see revisions');
    return this.revisions.events(id, afterId);
  }

  /** Accept or reject one section, or every pending section the user may decide. */
  async decide(actor: MaybeActor, input: DecideInput): Promise<DecideResult> {
    if (!actor) throw unauthorized(`${input.decision} revisions`);
    const rev = await this.revisions.get(input.revisionId);
    if (!rev) throw notFound(`Revision ${input.revisionId}`);
    // A revision that can no longer be decided says so, whoever asks.
    const open = transition(rev.status, input.decision === 'reject' ? 'reject' : 'accept-some');
    if (!open.ok) throw new AppError('CONFLICT', open.reason);
    const roles = await this.rolesOf(actor, rev.generation);
    const sections = this.withReach(rev, await this.revisions.sections([rev.id]));
    let targets: string[];
    if (input.namespace) {
      const s = sections.find((x) => x.namespace === input.namespace);
      if (!s) throw notFound(`Section ${input.namespace} of revision ${rev.id}`);
      const may = this.mayDecide(roles, s, input.decision);
      if (!may.ok) throw new AppError('FORBIDDEN', may.reason);
      targets = [s.namespace];
    } else {
      const pending = sections.filter((s) => s.status === 'pending');
      targets = pending.filter((s) => this.mayDecide(roles, s, input.decision).ok).map((s) => s.namespace);
      if (targets.length === 0 && pending.length > 0) {
        throw new AppError('FORBIDDEN', pending.map((s) => (this.mayDecide(roles, s, input.decision) as { reason: string }).reason).join(' '));
      }
      if (targets.length === 0) {
        const r = await this.revisions.decide({ revisionId: rev.id, namespaces: [], decision: input.decision, actor: actor.name, comment: input.comment });
        if (r.status === 'conflict') throw new AppError('CONFLICT', r.reason);
        throw new AppError('CONFLICT', `Revision ${rev.id} has no pending section left.`);
      }
    }
    const res = await this.revisions.decide({ revisionId: rev.id, namespaces: targets, decision: input.decision, actor: actor.name, comment: input.comment });
    if (res.status === 'not-found') throw notFound(`Revision ${input.revisionId}`);
    if (res.status === 'conflict') throw new AppError('CONFLICT', res.reason);
    return { revisionId: rev.id, status: res.revision.status, decided: res.decided, queued: res.jobId !== undefined };
  }

  /** Roll back to an applied revision: a new generation restoring its policy, and so a new revision. */
  async rollback(actor: MaybeActor, input: { revisionId: number }): Promise<RestoreResult> {
    if (!actor) throw unauthorized('roll back');
    const rev = await this.revisions.get(input.revisionId);
    if (!rev) throw notFound(`Revision ${input.revisionId}`);
    if (rev.status !== 'applied') throw new AppError('CONFLICT', `Only an applied revision can be rolled back to; revision ${rev.id} is ${rev.status}.`);
    const w = await this.restore(actor, rev.generation);
    if (!w.changed) throw new AppError('CONFLICT', `The policy already is what revision ${rev.id} applied; there is nothing to roll back.`);
    const created = await this.ensureForGeneration(w.generation);
    return { generation: w.generation, revisionId: created.id, status: created.status };
  }

  /**
   * What reverting a rejected revision restores: a rejected change stays the
   * current policy (the next change builds on it) until someone reverts it.
   * Offered while the rejected generation is still the newest; it restores
   * the generation before the change (a new generation, as rollback makes).
   */
  private async revertTarget(rev: RevisionRow): Promise<number | null> {
    if (rev.status !== 'rejected' || rev.generation < 2) return null;
    return (await this.repos.policy.head()) === rev.generation ? rev.generation - 1 : null;
  }

  async revert(actor: MaybeActor, input: { revisionId: number }): Promise<RestoreResult> {
    if (!actor) throw unauthorized('revert a change');
    const rev = await this.revisions.get(input.revisionId);
    if (!rev) throw notFound(`Revision ${input.revisionId}`);
    if (rev.status !== 'rejected') throw new AppError('CONFLICT', `Only a rejected revision can be reverted; revision ${rev.id} is ${rev.status}.`);
    const target = await this.revertTarget(rev);
    if (target === null) throw new AppError('CONFLICT', `Revision ${rev.id}'s change is no longer the current policy (newer generations exist); change or roll back the newest one instead.`);
    const w = await this.restore(actor, target, `Revert rejected revision #${rev.id} (back to generation ${target})`);
    if (!w.changed) throw new AppError('CONFLICT', `The policy already is generation ${target}; there is nothing to revert.`);
    const created = await this.ensureForGeneration(w.generation);
    return { generation: w.generation, revisionId: created.id, status: created.status };
  }

  /** One instance's rendered parameters and discovery before and after a revision (for a side-by-side diff). */
  async instanceDiff(actor: MaybeActor, input: InstanceDiffInput): Promise<InstanceDiff> {
    if (!actor) throw unauthorized('see revisions');
    const rev = await this.revisions.get(input.revisionId);
    if (!rev) throw notFound(`Revision ${input.revisionId}`);
    const base = rev.baseRevisionId ? await this.revisions.get(rev.baseRevisionId) : undefined;
    const found = (s: DesiredState) => s.instances.filter((i) => i.key === input.key);
    const [before] = base ? await this.access.redactSensitive(actor, found((await this.resolution.ensure(base.generation)).state)) : [];
    const [after] = await this.access.redactSensitive(actor, found((await this.resolution.ensure(rev.generation)).state));
    return { key: input.key, before: parametersYaml(before), after: parametersYaml(after) };
  }

  /** What saving `text` would create: counts, cost delta, changed claims, sections — nothing is saved. */
  async preview(actor: MaybeActor, input: PreviewInput): Promise<Preview> {
    return previewRevision(
      {
        repos: this.repos,
        resolution: this.resolution,
        access: this.access,
        admission: this.admission,
        reallyDeployed: (rev) => this.reallyDeployed(rev),
        rolesOf: (who, generation) => this.rolesOf(who, generation),
        mayDecide: (roles, s) => this.mayDecide(roles, s),
      },
      actor,
      input,
    );
  }
}

/** Resolve on the event loop's next turn, after the I/O that is waiting (setImmediate runs after the poll phase). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
