/**
 * The revision store in memory, for service tests and tools without a
 * database: the contract of `revisions.types.ts` in one process. Each
 * operation runs to completion without yielding (its body never awaits),
 * which is what the database's transactions and row locks give the drizzle
 * store: of two racing decisions or claims exactly one wins. Records are
 * copied in and out, as a database would, so callers cannot change what is
 * stored by changing what they got.
 */
import type { ReconcileMemory } from '../engine/landscaper/auto-reconcile';
import { edgesOf, mustTransition, transition, type ApplyEvent, type RevisionEvent, type RevisionStatus, type Transition } from '../engine/plan/revision-state';
import type {
  DecideResult,
  DeploymentHead,
  EventRow,
  InsertResult,
  InstanceStateRow,
  JobRow,
  NewRevision,
  RevisionListRow,
  RevisionRepository,
  RevisionRow,
  SectionRow,
  StepRow,
  StepStatus,
} from './revisions.types';

const copy = <T>(v: T): T => structuredClone(v);
const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;

export class MemoryRevisionRepository implements RevisionRepository {
  private readonly deployment: DeploymentHead = { acceptedRevisionId: null, appliedRevisionId: null };
  private readonly revisions: RevisionRow[] = [];
  private readonly sectionRows: SectionRow[] = [];
  private readonly eventRows: EventRow[] = [];
  private readonly jobRows: JobRow[] = [];
  private readonly stepRows = new Map<string, StepRow>();
  private readonly states = new Map<string, InstanceStateRow>();
  private ids = { revision: 0, event: 0, job: 0 };

  /**
   * `now`: the store's clock (the database's `now()` for the drizzle store).
   * `generationsTouching`: the policy store's history of an object, which
   * the drizzle store reads from policy_changes (memoryRepos passes it).
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly generationsTouching?: (key: { kind: string; name: string }, limit: number) => Promise<number[]>,
  ) {}

  private date(): Date {
    return new Date(this.now());
  }

  async head(): Promise<DeploymentHead> {
    return { ...this.deployment };
  }

  async get(id: number): Promise<RevisionRow | undefined> {
    return copy(this.revisions.find((r) => r.id === id));
  }

  async byGeneration(generation: number): Promise<RevisionRow | undefined> {
    return copy(this.revisions.find((r) => r.generation === generation));
  }

  async statusByGeneration(generation: number) {
    const r = this.revisions.find((x) => x.generation === generation);
    return r && { id: r.id, status: r.status };
  }

  async statusesByGenerations(generations: readonly number[]) {
    const wanted = new Set(generations);
    return new Map(this.revisions.filter((r) => wanted.has(r.generation)).map((r) => [r.generation, { id: r.id, status: r.status }]));
  }

  async statusesTouching(key: { kind: string; name: string }, limit: number) {
    if (!this.generationsTouching) throw new Error('MemoryRevisionRepository: statusesTouching needs the policy store (memoryRepos passes it)');
    return this.statusesByGenerations(await this.generationsTouching(key, limit));
  }

  async list(opts: { limit?: number; before?: number } = {}): Promise<RevisionListRow[]> {
    return this.revisions
      .filter((r) => opts.before === undefined || r.id < opts.before)
      .sort((a, b) => b.id - a.id)
      .slice(0, opts.limit ?? 100)
      .map(({ plan: _p, quota: _q, cost, ...r }) => copy({ ...r, cost: (cost as { total?: unknown } | null)?.total ?? null }));
  }

  async sections(revisionIds: number[]): Promise<SectionRow[]> {
    const ids = new Set(revisionIds);
    return copy(this.sectionRows.filter((s) => ids.has(s.revisionId)).sort((a, b) => cmp(a.namespace, b.namespace)));
  }

  async events(revisionId: number, afterId = 0): Promise<EventRow[]> {
    return copy(this.eventRows.filter((e) => e.revisionId === revisionId && e.id > afterId).slice(0, 2000));
  }

  async eventsForInstance(key: string, limit = 50): Promise<EventRow[]> {
    const touched = new Set([...this.stepRows.values()].filter((s) => s.key === key).map((s) => stepKey(s.revisionId, s.stepIndex)));
    return copy(
      this.eventRows
        .filter((e) => e.step !== null && touched.has(stepKey(e.revisionId, e.step)))
        .sort((a, b) => b.id - a.id)
        .slice(0, limit),
    );
  }

  async steps(revisionId: number): Promise<StepRow[]> {
    return copy([...this.stepRows.values()].filter((s) => s.revisionId === revisionId).sort((a, b) => a.stepIndex - b.stepIndex));
  }

  async event(revisionId: number, kind: string, message: string, extra: { actor?: string; section?: string; step?: number } = {}): Promise<void> {
    this.addEvent({ revisionId, kind, message, actor: extra.actor ?? null, section: extra.section ?? null, step: extra.step ?? null });
  }

  private addEvent(e: Omit<EventRow, 'id' | 'at'>): void {
    this.eventRows.push({ ...e, id: ++this.ids.event, at: this.date() });
  }

  async insert(rev: NewRevision): Promise<InsertResult> {
    const existing = this.revisions.find((r) => r.generation === rev.generation);
    if (existing) return { status: 'exists', revision: copy(existing) };
    const accepted = this.deployment.acceptedRevisionId;
    if (accepted !== rev.baseRevisionId) return { status: 'stale', acceptedRevisionId: accepted };
    // Computed late (a newer generation's revision is already there): born superseded.
    const supersede = edgesOf('supersede');
    const newer = this.revisions.some((r) => r.generation > rev.generation);
    const revision: RevisionRow = {
      id: ++this.ids.revision,
      generation: rev.generation,
      baseRevisionId: rev.baseRevisionId,
      status: newer && supersede.from.includes(rev.status) ? supersede.to : rev.status,
      author: rev.author,
      createdAt: this.date(),
      decidedAt: null,
      appliedAt: null,
      rollbackOf: rev.rollbackOf,
      counts: copy(rev.counts),
      cost: copy(rev.cost),
      quota: copy(rev.quota),
      plan: copy(rev.plan),
    };
    this.revisions.push(revision);
    for (const s of rev.sections) {
      this.sectionRows.push({ revisionId: revision.id, namespace: s.namespace, status: 'pending', overMarks: s.overMarks, counts: copy(s.counts), decidedBy: null, decidedAt: null, comment: null });
    }
    this.addEvent({
      revisionId: revision.id,
      kind: 'created',
      actor: rev.author,
      section: null,
      step: null,
      message: rev.status === 'no-op' ? `Generation ${rev.generation} changes nothing deployed (no-op)` : `Computed from generation ${rev.generation}`,
    });
    // A newer policy change supersedes every pending revision (they can no longer be accepted).
    const older = this.revisions.filter((r) => supersede.from.includes(r.status) && r.generation < rev.generation).sort(byId);
    for (const o of older) {
      o.status = supersede.to;
      o.decidedAt = this.date();
      this.addEvent({ revisionId: o.id, kind: 'superseded', actor: null, section: null, step: null, message: `Superseded by revision ${revision.id} (generation ${rev.generation})` });
    }
    return { status: 'created', revision: copy(revision), superseded: older.map((o) => o.id) };
  }

  async decide(input: { revisionId: number; namespaces: string[]; decision: 'accept' | 'reject'; actor: string; comment?: string }): Promise<DecideResult> {
    const rev = this.revisions.find((r) => r.id === input.revisionId);
    if (!rev) return { status: 'not-found' };
    const status = rev.status;
    const probe = transition(status, input.decision === 'reject' ? 'reject' : 'accept-some');
    if (!probe.ok) return { status: 'conflict', reason: probe.reason };
    const accepted = this.deployment.acceptedRevisionId;
    if (rev.baseRevisionId !== accepted) {
      return {
        status: 'conflict',
        reason: `Cannot ${input.decision} this revision: it was computed against ${rev.baseRevisionId ? `revision ${rev.baseRevisionId}` : 'an empty deployment'}, but revision ${accepted} has been accepted since. It is stale; a newer revision will show the current difference.`,
      };
    }
    const sections = this.sectionRows.filter((s) => s.revisionId === rev.id);
    // All or nothing: check every section before changing any.
    for (const ns of input.namespaces) {
      const sec = sections.find((s) => s.namespace === ns);
      if (!sec) return { status: 'conflict', reason: `Revision ${rev.id} has no section for namespace "${ns}".` };
      if (sec.status !== 'pending') return { status: 'conflict', reason: `Section ${ns} of revision ${rev.id} was already ${sec.status} by ${sec.decidedBy ?? 'someone'}.` };
    }
    const decidedStatus = input.decision === 'accept' ? 'accepted' : 'rejected';
    const after = new Map(sections.map((s) => [s.namespace, input.namespaces.includes(s.namespace) ? decidedStatus : s.status]));
    let event: RevisionEvent = 'accept-some';
    if (input.decision === 'reject') event = 'reject';
    else if ([...after.values()].every((s) => s === 'accepted')) event = 'accept-all';
    // Allowed: `accept-some` or `reject` was, from this status (the probe above).
    const to = mustTransition(status, event);
    const decided: string[] = [];
    for (const ns of input.namespaces) {
      const sec = sections.find((s) => s.namespace === ns)!;
      Object.assign(sec, { status: decidedStatus, decidedBy: input.actor, decidedAt: this.date(), comment: input.comment ?? null });
      decided.push(ns);
      this.addEvent({
        revisionId: rev.id,
        kind: input.decision === 'accept' ? 'section-accepted' : 'section-rejected',
        actor: input.actor,
        section: ns,
        step: null,
        message: `${input.actor} ${input.decision === 'accept' ? 'accepted' : 'rejected'} section ${ns}${input.comment ? `: ${input.comment}` : ''}`,
      });
    }
    let jobId: number | undefined;
    if (to !== status) {
      rev.status = to;
      rev.decidedAt = this.date();
      this.addEvent({
        revisionId: rev.id,
        kind: to,
        actor: input.actor,
        section: null,
        step: null,
        message: to === 'accepted' ? 'All sections accepted: queued for apply' : `Rejected by ${input.actor}`,
      });
      if (to === 'accepted') {
        // The apply job is part of the acceptance: an accepted revision always has one.
        this.deployment.acceptedRevisionId = rev.id;
        jobId = this.addJob('apply', rev.id);
      }
    }
    return { status: 'ok', revision: copy(rev), decided, jobId };
  }

  async transition(id: number, event: ApplyEvent): Promise<Transition> {
    const rev = this.revisions.find((r) => r.id === id);
    if (!rev) return { ok: false, reason: `Revision ${id} does not exist.` };
    const next = transition(rev.status as RevisionStatus, event);
    if (!next.ok) return next;
    rev.status = next.to;
    if (next.to === 'applied') {
      rev.appliedAt = this.date();
      this.deployment.appliedRevisionId = id;
    }
    return next;
  }

  // ---- jobs ----

  private addJob(kind: string, revisionId: number, subject: string | null = null): number {
    const now = this.date();
    const job: JobRow = { id: ++this.ids.job, kind, revisionId, subject, status: 'queued', runAt: now, lockedBy: null, lockedAt: null, attempts: 0, lastError: null, createdAt: now, finishedAt: null };
    this.jobRows.push(job);
    return job.id;
  }

  async enqueue(kind: string, revisionId: number, subject?: string): Promise<number> {
    return this.addJob(kind, revisionId, subject ?? null);
  }

  async openJob(kind: string, subject: string): Promise<boolean> {
    return this.jobRows.some((j) => j.kind === kind && j.subject === subject && (j.status === 'queued' || j.status === 'running'));
  }

  private readonly memories = new Map<string, ReconcileMemory>();
  async reconcileMemory(installation: string): Promise<ReconcileMemory | undefined> {
    const m = this.memories.get(installation);
    return m && { ...m };
  }

  async saveReconcileMemory(installation: string, next: ReconcileMemory, expected: ReconcileMemory | undefined): Promise<boolean> {
    const now = this.memories.get(installation);
    if (JSON.stringify(now) !== JSON.stringify(expected)) return false;
    this.memories.set(installation, { ...next });
    return true;
  }

  async claim(workerId: string, leaseMs: number): Promise<JobRow | undefined> {
    const now = this.now();
    const next = this.jobRows.filter((j) => j.status === 'queued' || j.status === 'running').sort(byId)[0];
    if (!next) return undefined;
    const notDue = next.runAt.getTime() > now;
    const leased = next.lockedAt !== null && next.lockedAt.getTime() > now - Math.round(leaseMs);
    if (notDue || leased) return undefined;
    Object.assign(next, { status: 'running', lockedBy: workerId, lockedAt: new Date(now), attempts: next.attempts + 1 });
    return copy(next);
  }

  async renewLease(jobId: number, workerId: string): Promise<boolean> {
    const job = this.jobRows.find((j) => j.id === jobId && j.lockedBy === workerId && j.status === 'running');
    if (job) job.lockedAt = this.date();
    return job !== undefined;
  }

  async finishJob(jobId: number, status: 'done' | 'failed', error?: string): Promise<void> {
    const job = this.jobRows.find((j) => j.id === jobId);
    if (job) Object.assign(job, { status, lastError: error ?? null, finishedAt: this.date(), lockedAt: null, lockedBy: null });
  }

  async retryJobLater(jobId: number, delayMs: number, error: string): Promise<void> {
    const job = this.jobRows.find((j) => j.id === jobId);
    if (job) Object.assign(job, { status: 'queued', lastError: error, lockedAt: null, lockedBy: null, runAt: new Date(this.now() + Math.round(delayMs)) });
  }

  async jobsFor(revisionId: number): Promise<JobRow[]> {
    return copy(this.jobRows.filter((j) => j.revisionId === revisionId).sort(byId));
  }

  // ---- steps and actual state ----

  async initSteps(revisionId: number, steps: { index: number; key: string; action: string }[]): Promise<void> {
    for (const s of steps) {
      const k = stepKey(revisionId, s.index);
      if (!this.stepRows.has(k)) this.stepRows.set(k, { revisionId, stepIndex: s.index, key: s.key, action: s.action, status: 'pending', attempts: 0, error: null, updatedAt: this.date() });
    }
  }

  async markStep(revisionId: number, index: number, status: StepStatus, error?: string): Promise<void> {
    const step = this.stepRows.get(stepKey(revisionId, index));
    if (!step) return;
    Object.assign(step, { status, error: error ?? null, attempts: status === 'skipped' ? step.attempts : step.attempts + 1, updatedAt: this.date() });
  }

  async setInstanceState(s: { key: string; revisionId: number; status: string; error?: string | null; deployName: string }): Promise<void> {
    this.states.set(s.key, { key: s.key, revisionId: s.revisionId, status: s.status, error: s.error ?? null, deployName: s.deployName, updatedAt: this.date() });
  }

  async instanceStates(keys?: string[]): Promise<InstanceStateRow[]> {
    if (!keys) return copy([...this.states.values()]);
    return copy([...new Set(keys)].map((k) => this.states.get(k)).filter((s): s is InstanceStateRow => s !== undefined));
  }
}

function stepKey(revisionId: number, index: number): string {
  return `${revisionId}#${index}`;
}

/** Code-point order (for the lower-case names namespaces are, the database's order too). */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
