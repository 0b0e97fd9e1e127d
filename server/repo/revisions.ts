/**
 * The revision store on drizzle (PGlite or PostgreSQL): revisions, their
 * sections and events, the deployment head, apply jobs, step progress and
 * actual instance state. The operations that race (creating a revision,
 * deciding a section, moving a status, claiming a job) are single
 * transactions that lock the deployment head first (then the revision) or
 * the oldest job row, so exactly one wins. Contract: `revisions.types.ts`.
 */
import { and, asc, desc, eq, getTableColumns, gt, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { fromGzJson, toGzJsonAsync } from '../db/gz-json';
import { deepFreeze } from '../engine/values';
import { generationsTouching } from './policy-changes';
import { sendNow } from './send-now';
import { applySteps, deploymentHead, instanceStates, jobs, reconcileMemory, revisionEvents, revisions, revisionSections } from '../db/schema';
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
import type { Same } from './same-type';

// The stored rows are the contract's records (the status column holds only the state machine's statuses).
const rowsMatch: [
  Same<Omit<typeof revisions.$inferSelect, 'status'>, Omit<RevisionRow, 'status'>>,
  Same<typeof revisionSections.$inferSelect, SectionRow>,
  Same<typeof revisionEvents.$inferSelect, EventRow>,
  Same<typeof jobs.$inferSelect, JobRow>,
  Same<typeof applySteps.$inferSelect, StepRow>,
  Same<typeof instanceStates.$inferSelect, InstanceStateRow>,
] = [true, true, true, true, true, true];
void rowsMatch;

/**
 * Every column of a revision, its plan as stored (gzipped). Most reads need
 * the status and links, not the plan, which grows with the change: a save
 * read the accepted revision's plan, and an acceptance read its revision's
 * twice, each unzipped and parsed on the request thread. Now a row's plan
 * is unzipped when first read, and recent plans are kept (`PlanCache`).
 */
const { plan: planColumn, ...columnsButPlan } = getTableColumns(revisions);
const revisionColumns = { ...columnsButPlan, planGz: sql<string>`${planColumn}` };
/** A revisions page's row: no plan, and only the cost's total. */
const revisionListColumns = {
  id: revisions.id,
  generation: revisions.generation,
  baseRevisionId: revisions.baseRevisionId,
  status: revisions.status,
  author: revisions.author,
  createdAt: revisions.createdAt,
  decidedAt: revisions.decidedAt,
  appliedAt: revisions.appliedAt,
  rollbackOf: revisions.rollbackOf,
  counts: revisions.counts,
  cost: sql<unknown>`${revisions.cost} -> 'total'`,
};
type StoredRevision = Omit<typeof revisions.$inferSelect, 'plan'> & { planGz: string };

/** Decoded plans kept per repository (plans of recently read or written revisions). */
const PLANS_KEPT = 32;

/**
 * Recent revisions' plans, decoded and deep-frozen. A plan is written once
 * with its revision and never changed (schema.ts), so any process may keep
 * it, whoever else writes to the database; frozen, so no caller can change
 * what the next one reads.
 */
class PlanCache {
  private readonly plans = new Map<number, unknown>();

  get(id: number, planGz: string): unknown {
    let plan = this.plans.get(id);
    if (plan === undefined) {
      plan = deepFreeze(fromGzJson(planGz));
    } else {
      this.plans.delete(id);
    }
    this.keep(id, plan);
    return plan;
  }

  keep(id: number, plan: unknown): void {
    this.plans.set(id, deepFreeze(plan));
    if (this.plans.size > PLANS_KEPT) this.plans.delete(this.plans.keys().next().value!);
  }
}

function asRevision(r: StoredRevision, plans: PlanCache): RevisionRow {
  const { planGz, ...row } = r;
  let plan: unknown;
  return Object.defineProperty(row, 'plan', {
    enumerable: true,
    get: () => (plan ??= plans.get(row.id, planGz)),
  }) as RevisionRow;
}

export class DrizzleRevisionRepository implements RevisionRepository {
  private readonly plans = new PlanCache();

  constructor(private readonly db: Db) {}

  /**
   * The reads a console makes on most requests (revision pages, acceptances,
   * graphs, plans), built once: drizzle otherwise builds a statement's SQL
   * anew on every run (see DrizzlePolicyRepo.prepared).
   */
  private get prepared() {
    return (this.preparedReads ??= this.prepareReads());
  }

  private preparedReads: ReturnType<DrizzleRevisionRepository['prepareReads']> | undefined;

  private prepareReads() {
    return {
      head: this.db.select().from(deploymentHead).where(eq(deploymentHead.id, 1)).prepare('keelson_deployment_head'),
      byId: this.db.select(revisionColumns).from(revisions).where(eq(revisions.id, sql.placeholder('id'))).prepare('keelson_revision_by_id'),
      newest: this.db.select(revisionListColumns).from(revisions).orderBy(desc(revisions.id)).limit(sql.placeholder('limit')).prepare('keelson_revisions_newest'),
    };
  }

  async head(): Promise<DeploymentHead> {
    const [h] = await this.prepared.head.execute();
    return { acceptedRevisionId: h?.acceptedRevisionId ?? null, appliedRevisionId: h?.appliedRevisionId ?? null };
  }

  async get(id: number): Promise<RevisionRow | undefined> {
    const [r] = await this.prepared.byId.execute({ id });
    return r && asRevision(r, this.plans);
  }

  async byGeneration(generation: number): Promise<RevisionRow | undefined> {
    const [r] = await this.db.select(revisionColumns).from(revisions).where(eq(revisions.generation, generation));
    return r && asRevision(r, this.plans);
  }

  private statusQuery: ReturnType<DrizzleRevisionRepository['statusSelect']> | undefined;

  private statusSelect() {
    return this.db.select({ id: revisions.id, status: revisions.status }).from(revisions).where(eq(revisions.generation, sql.placeholder('generation'))).prepare('keelson_revision_status');
  }

  async statusByGeneration(generation: number) {
    // Built once: a service's history asks it for each generation that changed the service (see DrizzlePolicyRepo.prepared).
    const [r] = await (this.statusQuery ??= this.statusSelect()).execute({ generation });
    return r && { id: r.id, status: r.status as RevisionRow['status'] };
  }

  async statusesByGenerations(generations: readonly number[]) {
    const out = new Map<number, { id: number; status: RevisionRow['status'] }>();
    if (generations.length === 0) return out;
    const rows = await this.db
      .select({ generation: revisions.generation, id: revisions.id, status: revisions.status })
      .from(revisions)
      .where(inArray(revisions.generation, [...generations]));
    for (const r of rows) out.set(r.generation, { id: r.id, status: r.status as RevisionRow['status'] });
    return out;
  }

  private touchingQuery: ReturnType<DrizzleRevisionRepository['touchingSelect']> | undefined;

  private touchingSelect() {
    return this.db
      .select({ generation: revisions.generation, id: revisions.id, status: revisions.status })
      .from(revisions)
      .where(inArray(revisions.generation, generationsTouching(this.db, sql.placeholder('kind'), sql.placeholder('name'), sql.placeholder('limit'))))
      .prepare('keelson_revision_statuses_touching');
  }

  async statusesTouching(key: { kind: string; name: string }, limit: number) {
    const out = new Map<number, { id: number; status: RevisionRow['status'] }>();
    for (const r of await (this.touchingQuery ??= this.touchingSelect()).execute({ kind: key.kind, name: key.name, limit })) {
      out.set(r.generation, { id: r.id, status: r.status as RevisionRow['status'] });
    }
    return out;
  }

  async list(opts: { limit?: number; before?: number } = {}): Promise<RevisionListRow[]> {
    const limit = opts.limit ?? 100;
    // The first page (the one every revisions page opens on) is prepared; later pages are built.
    const rows =
      opts.before === undefined
        ? await this.prepared.newest.execute({ limit })
        : await this.db.select(revisionListColumns).from(revisions).where(lt(revisions.id, opts.before)).orderBy(desc(revisions.id)).limit(limit);
    return rows as RevisionListRow[];
  }

  async sections(revisionIds: number[]): Promise<SectionRow[]> {
    if (revisionIds.length === 0) return [];
    return this.db.select().from(revisionSections).where(inArray(revisionSections.revisionId, revisionIds)).orderBy(asc(revisionSections.namespace));
  }

  async events(revisionId: number, afterId = 0): Promise<EventRow[]> {
    return this.db
      .select()
      .from(revisionEvents)
      .where(and(eq(revisionEvents.revisionId, revisionId), gt(revisionEvents.id, afterId)))
      .orderBy(asc(revisionEvents.id))
      .limit(2000);
  }

  async eventsForInstance(key: string, limit = 50): Promise<EventRow[]> {
    const rows = await this.db
      .select({ event: revisionEvents })
      .from(revisionEvents)
      .innerJoin(applySteps, and(eq(applySteps.revisionId, revisionEvents.revisionId), eq(applySteps.stepIndex, revisionEvents.step)))
      .where(eq(applySteps.key, key))
      .orderBy(desc(revisionEvents.id))
      .limit(limit);
    return rows.map((r) => r.event);
  }

  async steps(revisionId: number): Promise<StepRow[]> {
    return this.db.select().from(applySteps).where(eq(applySteps.revisionId, revisionId)).orderBy(asc(applySteps.stepIndex));
  }

  async event(revisionId: number, kind: string, message: string, extra: { actor?: string; section?: string; step?: number } = {}) {
    await this.db.insert(revisionEvents).values({ revisionId, kind, message, actor: extra.actor, section: extra.section, step: extra.step });
  }

  /**
   * Four statements in one transaction, sent two by two: the head locked
   * with the check for this generation's revision or a newer one, then the
   * revision with its sections, the supersession of older pending revisions
   * and every event. On the embedded database a transaction holds the one
   * connection between its answers, each waiting for a turn of the request
   * thread: the eight statements this took once held every other read for
   * about 50 ms per save under load.
   */
  async insert(rev: NewRevision): Promise<InsertResult> {
    // Zipped on libuv's threads before the transaction, not by the column mapping on this one.
    const planGz = await toGzJsonAsync(rev.plan);
    const outcome = await this.db.transaction(async (tx) => {
      // The head's row locked: concurrent inserts and decisions queue here.
      const locked = sendNow(tx.select({ accepted: deploymentHead.acceptedRevisionId }).from(deploymentHead).where(eq(deploymentHead.id, 1)).for('update'));
      // The first revision at or past this generation: this one (it exists) or a newer one. A statement of its own, after
      // the lock: on PostgreSQL a statement reads what was committed when it began, so asked in the locking statement it
      // missed what the holder of the lock committed while this one waited (tested). Sent with it, it still begins
      // only once the lock is granted (one connection runs a transaction's statements in the order sent).
      const atOrPast = sendNow(tx.select({ generation: revisions.generation }).from(revisions).where(gte(revisions.generation, rev.generation)).orderBy(asc(revisions.generation)).limit(1));
      const [[h], [n]] = await Promise.all([locked, atOrPast]);
      const accepted = h?.accepted ?? null;
      const next = n?.generation ?? null;
      if (next === rev.generation) return { status: 'exists' } as const;
      if (accepted !== rev.baseRevisionId) return { status: 'stale', acceptedRevisionId: accepted } as const;
      // Computed late (a newer generation's revision is already there): born superseded.
      const supersede = edgesOf('supersede');
      const inserted = sendNow(
        tx
        .insert(revisions)
        .values({
          generation: rev.generation,
          baseRevisionId: rev.baseRevisionId,
          status: next !== null && supersede.from.includes(rev.status) ? supersede.to : rev.status,
          author: rev.author,
          rollbackOf: rev.rollbackOf,
          counts: rev.counts,
          cost: rev.cost,
          quota: rev.quota,
          plan: sql`${planGz}`,
        })
        .returning(revisionColumns),
      );
      const created = rev.status === 'no-op' ? `Generation ${rev.generation} changes nothing deployed (no-op)` : `Computed from generation ${rev.generation}`;
      const sections = JSON.stringify(rev.sections.map((x) => ({ namespace: x.namespace, over_marks: x.overMarks, counts: x.counts })));
      // Sent with the insert, so the new id is the sequence's current value in this session (the head's lock keeps
      // every other insert out until this one commits). A newer policy change supersedes every pending revision (they
      // can no longer be accepted); the created event comes first.
      const rest = sendNow(
        tx.execute(sql`
        with rev as (
          select currval(pg_get_serial_sequence('revisions', 'id'))::int as id
        ), sections as (
          insert into ${revisionSections} (revision_id, namespace, status, over_marks, counts)
          select rev.id, x.namespace, 'pending', x.over_marks, x.counts from rev, jsonb_to_recordset(${sections}::jsonb) as x(namespace text, over_marks boolean, counts jsonb)
        ), older as (
          update ${revisions} set status = ${supersede.to}::text, decided_at = now()
          where ${revisions.status} in (${sql.join(supersede.from.map((f) => sql`${f}::text`), sql`, `)}) and ${revisions.generation} < ${rev.generation}::int
          returning id
        ), events as (
          insert into ${revisionEvents} (revision_id, kind, actor, message)
          select rev.id, 'created'::text, ${rev.author}::text, ${created}::text from rev
          union all
          select o.id, 'superseded'::text, null::text, 'Superseded by revision ' || rev.id || ${` (generation ${rev.generation})`}::text from rev, (select id from older order by id) o
        )
        select id from older order by id`),
      );
      const [[row], supersession] = await Promise.all([inserted, rest]);
      const id = row!.id;
      const older = ((Array.isArray(supersession) ? supersession : (supersession as { rows: unknown[] }).rows) as { id: number | string }[]).map((o) => Number(o.id));
      this.plans.keep(id, rev.plan);
      return { status: 'created', revision: asRevision(row!, this.plans), superseded: older } as const;
    });
    if (outcome.status !== 'exists') return outcome;
    // Read after the transaction: the row exists (revisions are never deleted), and that is what the caller learns.
    const existing = await this.byGeneration(rev.generation);
    return { status: 'exists', revision: existing! };
  }

  /** The deployment head and the revision are locked, so concurrent decisions queue and exactly one wins each section. */
  async decide(input: { revisionId: number; namespaces: string[]; decision: 'accept' | 'reject'; actor: string; comment?: string }): Promise<DecideResult> {
    return this.db.transaction(async (tx) => {
      // Sent together, run in this order: each begins once the lock before it is granted. Sections change only under
      // both locks, so the third reads them as the decision leaves them for anyone after.
      const [[h], [rev], sections] = await Promise.all([
        sendNow(tx.select().from(deploymentHead).where(eq(deploymentHead.id, 1)).for('update')),
        sendNow(tx.select(revisionColumns).from(revisions).where(eq(revisions.id, input.revisionId)).for('update')),
        sendNow(tx.select().from(revisionSections).where(eq(revisionSections.revisionId, input.revisionId))),
      ]);
      if (!rev) return { status: 'not-found' } as const;
      const status = rev.status as RevisionStatus;
      const probe = transition(status, input.decision === 'reject' ? 'reject' : 'accept-some');
      if (!probe.ok) return { status: 'conflict', reason: probe.reason } as const;
      const accepted = h?.acceptedRevisionId ?? null;
      if (rev.baseRevisionId !== accepted) {
        return {
          status: 'conflict',
          reason: `Cannot ${input.decision} this revision: it was computed against ${rev.baseRevisionId ? `revision ${rev.baseRevisionId}` : 'an empty deployment'}, but revision ${accepted} has been accepted since. It is stale; a newer revision will show the current difference.`,
        } as const;
      }
      // All or nothing: every section is checked before any is written.
      for (const ns of input.namespaces) {
        const sec = sections.find((s) => s.namespace === ns);
        if (!sec) return { status: 'conflict', reason: `Revision ${rev.id} has no section for namespace "${ns}".` } as const;
        if (sec.status !== 'pending') {
          return { status: 'conflict', reason: `Section ${ns} of revision ${rev.id} was already ${sec.status} by ${sec.decidedBy ?? 'someone'}.` } as const;
        }
      }
      const sectionStatus = input.decision === 'accept' ? 'accepted' : 'rejected';
      for (const sec of sections) if (input.namespaces.includes(sec.namespace)) sec.status = sectionStatus;
      let event: RevisionEvent = 'accept-some';
      if (input.decision === 'reject') event = 'reject';
      else if (sections.every((s) => s.status === 'accepted')) event = 'accept-all';
      // Allowed: `accept-some` or `reject` was, from this status (the probe above).
      const to = mustTransition(status, event);
      // Every write of the decision is sent at once, in the order it reads: each section with its event, then the
      // revision's move, its event, the head and the apply job.
      const sectionWrites = input.namespaces.map((ns) => {
        const done = sendNow(
          tx
            .update(revisionSections)
            .set({ status: sectionStatus, decidedBy: input.actor, decidedAt: sql`now()`, comment: input.comment ?? null })
            .where(and(eq(revisionSections.revisionId, rev.id), eq(revisionSections.namespace, ns), eq(revisionSections.status, 'pending')))
            .returning({ ns: revisionSections.namespace }),
        );
        const noted = sendNow(
          tx.insert(revisionEvents).values({
            revisionId: rev.id,
            kind: input.decision === 'accept' ? 'section-accepted' : 'section-rejected',
            actor: input.actor,
            section: ns,
            message: `${input.actor} ${input.decision === 'accept' ? 'accepted' : 'rejected'} section ${ns}${input.comment ? `: ${input.comment}` : ''}`,
          }),
        );
        return { ns, done, noted };
      });
      const moved =
        to === status
          ? undefined
          : {
              row: sendNow(tx.update(revisions).set({ status: to, decidedAt: sql`now()` }).where(eq(revisions.id, rev.id)).returning(revisionColumns)),
              noted: sendNow(
                tx.insert(revisionEvents).values({
                  revisionId: rev.id,
                  kind: to,
                  actor: input.actor,
                  message: to === 'accepted' ? 'All sections accepted: queued for apply' : `Rejected by ${input.actor}`,
                }),
              ),
              // The apply job is part of the acceptance: an accepted revision always has one.
              head: to === 'accepted' ? sendNow(tx.update(deploymentHead).set({ acceptedRevisionId: rev.id }).where(eq(deploymentHead.id, 1))) : undefined,
              job: to === 'accepted' ? sendNow(tx.insert(jobs).values({ kind: 'apply', revisionId: rev.id }).returning({ id: jobs.id })) : undefined,
            };
      const [sectionsDone, [row], , , job] = await Promise.all([
        // Both promises of each section handled at once: after a failed statement, the rest of the transaction fails too.
        Promise.all(sectionWrites.map((w) => Promise.all([w.done, w.noted]).then(([done]) => ({ ns: w.ns, done })))),
        moved?.row ?? [undefined],
        moved?.noted,
        moved?.head,
        moved?.job,
      ]);
      // Sections change only here, under the locks held: a miss means the store broke that rule (roll back).
      for (const { ns, done } of sectionsDone) if (done.length !== 1) throw new Error(`Section ${ns} of revision ${rev.id} was decided by someone else meanwhile.`);
      const updated = asRevision(row ?? rev, this.plans);
      return { status: 'ok', revision: updated, decided: [...input.namespaces], jobId: job?.[0]?.id } as const;
    });
  }

  /** Locks the deployment head, then the revision (the order `insert` and `decide` lock in). */
  async transition(id: number, event: ApplyEvent): Promise<Transition> {
    return this.db.transaction(async (tx) => {
      // Sent together, run in the order sent: the revision's lock is asked once the head's is granted (see `decide`).
      const [, [rev]] = await Promise.all([
        sendNow(tx.select().from(deploymentHead).where(eq(deploymentHead.id, 1)).for('update')),
        sendNow(tx.select({ status: revisions.status }).from(revisions).where(eq(revisions.id, id)).for('update')),
      ]);
      if (!rev) return { ok: false, reason: `Revision ${id} does not exist.` } as const;
      const next = transition(rev.status as RevisionStatus, event);
      if (!next.ok) return next;
      const applied = next.to === 'applied';
      await Promise.all([
        sendNow(
          tx
            .update(revisions)
            .set({ status: next.to, ...(applied ? { appliedAt: sql`now()` } : {}) })
            .where(eq(revisions.id, id)),
        ),
        applied ? sendNow(tx.update(deploymentHead).set({ appliedRevisionId: id }).where(eq(deploymentHead.id, 1))) : undefined,
      ]);
      return next;
    });
  }

  // ---- jobs ----

  async enqueue(kind: string, revisionId: number, subject?: string): Promise<number> {
    const [j] = await this.db.insert(jobs).values({ kind, revisionId, subject: subject ?? null }).returning({ id: jobs.id });
    return j!.id;
  }

  async openJob(kind: string, subject: string): Promise<boolean> {
    const rows = await this.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.kind, kind), eq(jobs.subject, subject), inArray(jobs.status, ['queued', 'running'])))
      .limit(1);
    return rows.length > 0;
  }

  async reconcileMemory(installation: string): Promise<ReconcileMemory | undefined> {
    const [r] = await this.db.select().from(reconcileMemory).where(eq(reconcileMemory.installation, installation));
    return r && { generation: r.generation, count: r.count, lastAt: r.lastAt.toISOString(), onFailed: r.onFailed };
  }

  async saveReconcileMemory(installation: string, next: ReconcileMemory, expected: ReconcileMemory | undefined): Promise<boolean> {
    const row = { generation: next.generation, count: next.count, lastAt: new Date(next.lastAt), onFailed: next.onFailed };
    if (!expected) return (await this.db.insert(reconcileMemory).values({ installation, ...row }).onConflictDoNothing().returning()).length === 1;
    const was = reconcileMemory;
    const moved = await this.db
      .update(reconcileMemory)
      .set(row)
      .where(
        and(
          eq(was.installation, installation),
          eq(was.generation, expected.generation),
          eq(was.count, expected.count),
          eq(was.lastAt, new Date(expected.lastAt)),
          eq(was.onFailed, expected.onFailed),
        ),
      )
      .returning();
    return moved.length === 1;
  }

  async claim(workerId: string, leaseMs: number): Promise<JobRow | undefined> {
    return this.db.transaction(async (tx) => {
      // Not SKIP LOCKED: while another worker is claiming the oldest job, that
      // would hand this one the next job and apply revisions out of order.
      // Times are the database's (now()), so a worker whose clock is off can
      // neither steal a live lease nor keep an expired one.
      const rows = await tx.execute(sql`
        select id,
               run_at > now() as not_due,
               (locked_at is not null and locked_at > now() - ${`${Math.round(leaseMs)} milliseconds`}::interval) as leased
        from jobs
        where status in ('queued', 'running')
        order by id
        limit 1
        for update`);
      const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { id: number; not_due: boolean; leased: boolean }[];
      const next = list[0];
      if (!next || next.not_due || next.leased) return undefined;
      const [job] = await tx
        .update(jobs)
        .set({ status: 'running', lockedBy: workerId, lockedAt: sql`now()`, attempts: sql`${jobs.attempts} + 1` })
        .where(eq(jobs.id, Number(next.id)))
        .returning();
      return job;
    });
  }

  async renewLease(jobId: number, workerId: string): Promise<boolean> {
    const rows = await this.db
      .update(jobs)
      .set({ lockedAt: sql`now()` })
      .where(and(eq(jobs.id, jobId), eq(jobs.lockedBy, workerId), eq(jobs.status, 'running')))
      .returning({ id: jobs.id });
    return rows.length === 1;
  }

  async finishJob(jobId: number, status: 'done' | 'failed', error?: string): Promise<void> {
    await this.db.update(jobs).set({ status, lastError: error ?? null, finishedAt: sql`now()`, lockedAt: null, lockedBy: null }).where(eq(jobs.id, jobId));
  }

  async retryJobLater(jobId: number, delayMs: number, error: string): Promise<void> {
    await this.db
      .update(jobs)
      .set({ status: 'queued', lastError: error, lockedAt: null, lockedBy: null, runAt: sql`now() + ${`${Math.round(delayMs)} milliseconds`}::interval` })
      .where(eq(jobs.id, jobId));
  }

  async jobsFor(revisionId: number): Promise<JobRow[]> {
    return this.db.select().from(jobs).where(eq(jobs.revisionId, revisionId)).orderBy(asc(jobs.id));
  }

  // ---- steps and actual state ----

  async initSteps(revisionId: number, steps: { index: number; key: string; action: string }[]): Promise<void> {
    for (let i = 0; i < steps.length; i += 500) {
      await this.db
        .insert(applySteps)
        .values(steps.slice(i, i + 500).map((s) => ({ revisionId, stepIndex: s.index, key: s.key, action: s.action, status: 'pending' })))
        .onConflictDoNothing();
    }
  }

  async markStep(revisionId: number, index: number, status: StepStatus, error?: string): Promise<void> {
    await this.db
      .update(applySteps)
      .set({ status, error: error ?? null, attempts: status === 'skipped' ? sql`${applySteps.attempts}` : sql`${applySteps.attempts} + 1`, updatedAt: sql`now()` })
      .where(and(eq(applySteps.revisionId, revisionId), eq(applySteps.stepIndex, index)));
  }

  async setInstanceState(s: { key: string; revisionId: number; status: string; error?: string | null; deployName: string }): Promise<void> {
    await this.db
      .insert(instanceStates)
      .values({ key: s.key, revisionId: s.revisionId, status: s.status, error: s.error ?? null, deployName: s.deployName })
      .onConflictDoUpdate({ target: instanceStates.key, set: { revisionId: s.revisionId, status: s.status, error: s.error ?? null, deployName: s.deployName, updatedAt: sql`now()` } });
  }

  async instanceStates(keys?: string[]): Promise<InstanceStateRow[]> {
    if (keys && keys.length === 0) return [];
    return this.db.select().from(instanceStates).where(keys ? inArray(instanceStates.key, keys) : undefined);
  }
}
