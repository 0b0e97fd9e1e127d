/**
 * The revision store's contract: revisions, their sections and events, the
 * deployment head, apply jobs with their leases, step progress and the
 * actual state of instances. `revisions.ts` keeps it on drizzle (PGlite or
 * PostgreSQL, with row locks), `memory-revisions.ts` in one process; both
 * run the same contract tests (`revisions.test.ts`).
 *
 * A revision's status changes only through the state machine
 * (`engine/plan/revision-state.ts`): `insert` creates a revision in an initial
 * status, `decide` moves it by the people's decisions and `transition` by
 * the apply worker's events; nothing else writes it.
 */
import type { ApplyEvent, InitialStatus, RevisionStatus, Transition } from '../engine/plan/revision-state';

export interface RevisionRow {
  id: number;
  generation: number;
  /** The accepted revision this one was computed against (null: empty state). */
  baseRevisionId: number | null;
  status: RevisionStatus;
  author: string;
  createdAt: Date;
  decidedAt: Date | null;
  appliedAt: Date | null;
  /** Set when this revision restores an earlier one. */
  rollbackOf: number | null;
  counts: unknown;
  cost: unknown;
  quota: unknown;
  /** Stored once; exactly what gets applied. */
  plan: unknown;
}

/** A revision in a list: without the (large) plan and quota; `cost` is the cost report's `total`. */
export type RevisionListRow = Omit<RevisionRow, 'plan' | 'quota'>;

export interface SectionRow {
  revisionId: number;
  namespace: string;
  status: string;
  overMarks: boolean;
  counts: unknown;
  decidedBy: string | null;
  decidedAt: Date | null;
  comment: string | null;
}

export interface EventRow {
  id: number;
  revisionId: number;
  at: Date;
  kind: string;
  actor: string | null;
  section: string | null;
  step: number | null;
  message: string;
}

import type { ReconcileMemory } from '../engine/landscaper/auto-reconcile';

export interface JobRow {
  id: number;
  kind: string;
  revisionId: number | null;
  /** What the job is about beyond its revision (a reconcile: the installation `ns/name`). */
  subject: string | null;
  status: string;
  runAt: Date;
  lockedBy: string | null;
  lockedAt: Date | null;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface StepRow {
  revisionId: number;
  stepIndex: number;
  key: string;
  action: string;
  status: string;
  attempts: number;
  error: string | null;
  updatedAt: Date;
}

export interface InstanceStateRow {
  key: string;
  revisionId: number;
  status: string;
  error: string | null;
  deployName: string;
  updatedAt: Date;
}

export interface DeploymentHead {
  /** The newest accepted revision: what new revisions diff against. */
  acceptedRevisionId: number | null;
  /** The last revision applied in full. */
  appliedRevisionId: number | null;
}

export interface NewRevision {
  generation: number;
  baseRevisionId: number | null;
  status: InitialStatus;
  author: string;
  rollbackOf: number | null;
  counts: unknown;
  cost: unknown;
  quota: unknown;
  plan: unknown;
  sections: { namespace: string; overMarks: boolean; counts: unknown }[];
}

export type InsertResult =
  | { status: 'created'; revision: RevisionRow; superseded: number[] }
  | { status: 'exists'; revision: RevisionRow }
  /** The accepted head moved while the revision was computed: compute again. */
  | { status: 'stale'; acceptedRevisionId: number | null };

export type DecideResult =
  | { status: 'ok'; revision: RevisionRow; decided: string[]; jobId?: number }
  | { status: 'conflict'; reason: string }
  | { status: 'not-found' };

export type StepStatus = 'done' | 'failed' | 'skipped' | 'pending';

export interface RevisionRepository {
  head(): Promise<DeploymentHead>;
  get(id: number): Promise<RevisionRow | undefined>;
  byGeneration(generation: number): Promise<RevisionRow | undefined>;
  /** A generation's revision, id and status only (a service's history reads many: the plan is not wanted). */
  statusByGeneration(generation: number): Promise<{ id: number; status: RevisionRow['status'] } | undefined>;
  /** `statusByGeneration` for several generations in one read (a service's history), by generation; those without a revision are absent. */
  statusesByGenerations(generations: readonly number[]): Promise<Map<number, { id: number; status: RevisionRow['status'] }>>;
  /**
   * `statusesByGenerations` of the newest `limit` generations that changed an
   * object of this kind and name — the generations `PolicyRepo.listGenerations
   * ({ touching })` lists — found by the store, so a service's history reads
   * them beside that list instead of after it.
   */
  statusesTouching(key: { kind: string; name: string }, limit: number): Promise<Map<number, { id: number; status: RevisionRow['status'] }>>;
  /** Newest first; without the (large) plan. */
  list(opts?: { limit?: number; before?: number }): Promise<RevisionListRow[]>;
  /** Sections of these revisions, by namespace. */
  sections(revisionIds: number[]): Promise<SectionRow[]>;
  /** Events after `afterId`, oldest first (at most 2,000). */
  events(revisionId: number, afterId?: number): Promise<EventRow[]>;
  /** Apply events of the steps that touched instance `key`, across revisions, newest first. */
  eventsForInstance(key: string, limit?: number): Promise<EventRow[]>;
  steps(revisionId: number): Promise<StepRow[]>;
  event(revisionId: number, kind: string, message: string, extra?: { actor?: string; section?: string; step?: number }): Promise<void>;

  /**
   * Insert a revision computed against `baseRevisionId`, atomically: `exists`
   * when the generation already has one, `stale` when the accepted head is no
   * longer its base. A revision computed late (a newer generation's is there)
   * is born superseded; a new one supersedes every older pending revision.
   */
  insert(rev: NewRevision): Promise<InsertResult>;
  /**
   * Accept or reject sections of a pending revision, all or nothing. Concurrent
   * decisions queue: exactly one wins each section. The decision that accepts
   * the last section accepts the revision, moves the accepted head and queues
   * its apply job in the same step.
   */
  decide(input: { revisionId: number; namespaces: string[]; decision: 'accept' | 'reject'; actor: string; comment?: string }): Promise<DecideResult>;
  /**
   * Move a revision by an apply event (start, retry, succeed, fail), as the
   * state machine allows from its current status, or refuse with the reason
   * (nothing changes). `succeed` also records the applied time and makes the
   * revision the deployment's applied one, in the same step.
   */
  transition(id: number, event: ApplyEvent): Promise<Transition>;

  // ---- jobs ----
  enqueue(kind: string, revisionId: number, subject?: string): Promise<number>;
  /** Whether a job of this kind and subject is queued or running. */
  openJob(kind: string, subject: string): Promise<boolean>;
  /** What automatic reconciles remember of an installation (`ns/name`). */
  reconcileMemory(installation: string): Promise<ReconcileMemory | undefined>;
  /**
   * Remember `next` if what is remembered is still `expected` (none: nothing yet);
   * false when another worker moved it first (it queued that reconcile, not this one).
   */
  saveReconcileMemory(installation: string, next: ReconcileMemory, expected: ReconcileMemory | undefined): Promise<boolean>;
  /**
   * Claim the oldest unfinished job — only that one, so revisions apply in
   * the order they were accepted. Nothing when it is not due yet or another
   * worker holds a live lease on it; a lease older than `leaseMs` (by the
   * store's clock) was abandoned, and is taken over.
   */
  claim(workerId: string, leaseMs: number): Promise<JobRow | undefined>;
  /** Renew this worker's lease on a running job; false once another worker holds it (or it is no longer running). */
  renewLease(jobId: number, workerId: string): Promise<boolean>;
  finishJob(jobId: number, status: 'done' | 'failed', error?: string): Promise<void>;
  /** Release a job to run again after `delayMs` (backoff after a failure). */
  retryJobLater(jobId: number, delayMs: number, error: string): Promise<void>;
  jobsFor(revisionId: number): Promise<JobRow[]>;

  // ---- steps and actual state ----
  /** Create step rows once (a resumed apply keeps the progress it had). */
  initSteps(revisionId: number, steps: { index: number; key: string; action: string }[]): Promise<void>;
  /** Record a step's outcome; every status but `skipped` counts an attempt. */
  markStep(revisionId: number, index: number, status: StepStatus, error?: string): Promise<void>;
  setInstanceState(s: { key: string; revisionId: number; status: string; error?: string | null; deployName: string }): Promise<void>;
  /** Actual state of these instances (all without `keys`). */
  instanceStates(keys?: string[]): Promise<InstanceStateRow[]>;
}
