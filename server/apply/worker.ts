/**
 * The apply worker: claims the oldest unfinished apply job, applies the
 * accepted revision's stored plan step by step through an actuator, and
 * records every step, event and instance state. Safe to kill at any point:
 * steps already done are skipped when the job is picked up again (the lease
 * runs out), and actuators are idempotent, so nothing is lost or doubled.
 */
import { randomUUID } from 'node:crypto';
import { dbUnavailableReason, isDbUnavailable } from '../db/unavailable';
import type { RevisionPlan } from '../engine/plan';
import { instanceKey } from '../engine/state/key';
import type { RevisionRepository } from '../repo/types';
import type { Actuator, ApplyContext } from './actuator';
import { RECONCILE_JOB, runReconcileJob, scheduleReconciles, type ReconcileSource } from './reconcile';

export interface WorkerOptions {
  revisions: RevisionRepository;
  actuator: Actuator;
  /** A lease older than this is considered abandoned (crashed worker). */
  leaseMs?: number;
  /** Attempts per step before it counts as failed (dependants are then skipped). */
  maxAttempts?: number;
  /** Backoff before a retry: base × 2^(attempt-1). */
  backoffMs?: number;
  workerId?: string;
  /** Test hook: called after each step is recorded (a test can kill the worker here). */
  afterStep?: (index: number) => void | Promise<void>;
  log?: (msg: string) => void;
  /** Landscaper's automatic reconciles (./reconcile.ts): looked at every `everyMs` (default 30 s) when idle. */
  reconcile?: { source: ReconcileSource; everyMs?: number; now?: () => Date };
}

export class StopWorker extends Error {}

/** Claim and process one job; returns false when there was nothing to do. */
export async function runOnce(opts: WorkerOptions): Promise<boolean> {
  const { revisions, actuator } = opts;
  const leaseMs = opts.leaseMs ?? 60_000;
  const workerId = opts.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
  const job = await revisions.claim(workerId, leaseMs);
  if (!job) return false;
  const log = opts.log ?? (() => {});
  const rev = job.revisionId != null ? await revisions.get(job.revisionId) : undefined;
  if (rev && job.kind === RECONCILE_JOB && opts.reconcile) {
    // A background job must not hold the queue: after a few tries it gives up (the next look may queue another).
    if (job.attempts > (opts.maxAttempts ?? 3)) {
      await revisions.finishJob(job.id, 'failed', `gave up after ${job.attempts - 1} attempts: ${job.lastError ?? 'unknown error'}`);
      return true;
    }
    // Held while it works, as an apply's lease is, so no other worker takes it over mid-way.
    const heartbeat = setInterval(() => void revisions.renewLease(job.id, workerId).catch(() => undefined), Math.max(500, leaseMs / 3));
    heartbeat.unref?.();
    try {
      await runReconcileJob(job, rev, { revisions, actuator, source: opts.reconcile.source, now: opts.reconcile.now ?? (() => new Date()), workerId });
    } catch (e) {
      await revisions.retryJobLater(job.id, backoff(opts.backoffMs, job.attempts), (e as Error).message).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
    }
    return true;
  }
  if (!rev || job.kind !== 'apply') {
    await revisions.finishJob(job.id, 'failed', `unknown job ${job.kind} for revision ${job.revisionId}`);
    return true;
  }
  // Renew the lease while working so no other worker takes the job over;
  // once it is lost, this worker records nothing more for the job.
  let leaseLost = false;
  const heartbeat = setInterval(() => {
    void revisions.renewLease(job.id, workerId).then(
      (held) => {
        if (!held) leaseLost = true;
      },
      () => undefined,
    );
  }, Math.max(500, leaseMs / 3));
  heartbeat.unref?.();
  /** Still ours? (Renews the lease: a step starts and is recorded only under a live lease.) */
  const holdLease = async () => {
    if (!leaseLost && !(await revisions.renewLease(job.id, workerId))) leaseLost = true;
    if (leaseLost) log(`revision ${rev?.id}: lease on job ${job.id} lost; another worker carries on`);
    return !leaseLost;
  };
  try {
    const started = rev.status === 'accepted' || rev.status === 'applying' || rev.status === 'failed';
    if (!started) {
      await revisions.finishJob(job.id, 'done', `revision ${rev.id} is ${rev.status}; nothing to apply`);
      return true;
    }
    const moved = await revisions.transition(rev.id, rev.status === 'failed' ? 'retry' : 'start');
    if (!moved.ok) {
      await revisions.finishJob(job.id, 'done', `revision ${rev.id}: ${moved.reason}`);
      return true;
    }
    const plan = rev.plan as RevisionPlan;
    const sections = await revisions.sections([rev.id]);
    const ctx: ApplyContext = {
      revisionId: rev.id,
      generation: rev.generation,
      accepters: [...new Set(sections.filter((s) => s.status === 'accepted' && s.decidedBy).map((s) => s.decidedBy!))].sort(),
      author: rev.author,
    };
    await revisions.initSteps(rev.id, plan.steps.map((s) => ({ index: s.index, key: s.key, action: s.action })));
    await revisions.event(rev.id, job.attempts > 1 ? 'apply-resumed' : 'apply-started', `${job.attempts > 1 ? 'Resumed' : 'Started'} applying ${plan.steps.length} steps with ${actuator.name} (attempt ${job.attempts})`, { actor: workerId });
    await actuator.begin(ctx);

    const status = new Map((await revisions.steps(rev.id)).map((s) => [s.stepIndex, s]));
    const maxAttempts = opts.maxAttempts ?? 3;
    let retryLater: string | undefined;
    for (const step of plan.steps) {
      const st = status.get(step.index);
      if (st && st.status === 'done' && actuator.replaysDoneSteps) {
        // The actuator starts from the target again (a fresh checkout of the remote): what was done must be there too.
        const again = await actuator.apply(step as never, ctx);
        if (again.status !== 'done') throw new Error(`step ${step.index} (${step.key}) no longer applies: ${again.error ?? 'failed'}`);
        continue;
      }
      if (st && (st.status === 'done' || st.status === 'failed' || st.status === 'skipped')) continue;
      const blocked = step.waitsFor.find((i) => {
        const w = status.get(i)?.status;
        return w === 'failed' || w === 'skipped';
      });
      if (blocked !== undefined) {
        await revisions.markStep(rev.id, step.index, 'skipped', `skipped: step ${blocked} (${plan.steps[blocked]?.key}) did not succeed`);
        status.set(step.index, { ...(st ?? ({} as never)), status: 'skipped' });
        await revisions.event(rev.id, 'step-skipped', `Skipped ${step.action} ${instanceKey.displayName(step.key)}: it depends on step ${blocked}, which did not succeed`, { step: step.index });
        await opts.afterStep?.(step.index);
        continue;
      }
      if (!(await holdLease())) return true;
      let result;
      try {
        result = await actuator.apply(step as never, ctx);
      } catch (e) {
        result = { status: 'failed' as const, error: (e as Error).message };
      }
      // The lease ran out during the step: its outcome is the new holder's to record (steps are idempotent).
      if (!(await holdLease())) return true;
      if (result.status === 'done') {
        await revisions.markStep(rev.id, step.index, 'done');
        status.set(step.index, { ...(st ?? ({} as never)), status: 'done' });
        await revisions.setInstanceState({ key: step.key, revisionId: rev.id, status: step.action === 'delete' ? 'deleted' : 'applied', deployName: step.deployName });
        await revisions.event(rev.id, 'step-done', `${verb(step.action)} ${instanceKey.displayName(step.key)}${result.message ? ` (${result.message})` : ''}`, { step: step.index });
      } else {
        const attempts = (st?.attempts ?? 0) + 1;
        if (attempts < maxAttempts) {
          await revisions.markStep(rev.id, step.index, 'pending', result.error);
          await revisions.event(rev.id, 'step-retry', `${verb(step.action)} ${instanceKey.displayName(step.key)} failed (attempt ${attempts} of ${maxAttempts}), will retry: ${result.error}`, { step: step.index });
          retryLater = result.error ?? 'step failed';
          break; // the job runs again after a backoff and resumes here
        }
        await revisions.markStep(rev.id, step.index, 'failed', result.error);
        status.set(step.index, { ...(st ?? ({} as never)), status: 'failed' });
        await revisions.setInstanceState({ key: step.key, revisionId: rev.id, status: 'failed', error: result.error, deployName: step.deployName });
        await revisions.event(rev.id, 'step-failed', `${verb(step.action)} ${instanceKey.displayName(step.key)} failed after ${attempts} attempts: ${result.error}`, { step: step.index });
      }
      await opts.afterStep?.(step.index);
    }
    if (retryLater !== undefined) {
      const delay = backoff(opts.backoffMs, job.attempts);
      await revisions.retryJobLater(job.id, delay, retryLater);
      log(`revision ${rev.id}: retrying in ${delay} ms`);
      return true;
    }
    const counts = { done: 0, failed: 0, skipped: 0 };
    for (const s of status.values()) if (s.status in counts) counts[s.status as keyof typeof counts]++;
    const fin = await actuator.finish(ctx, counts);
    const ok = counts.failed === 0 && counts.skipped === 0;
    // `succeed` also makes the revision the deployment's applied one, in the same step.
    const done = await revisions.transition(rev.id, ok ? 'succeed' : 'fail');
    if (!done.ok) log(`revision ${rev.id}: ${done.reason}`);
    await revisions.event(
      rev.id,
      ok ? 'applied' : 'failed',
      `${ok ? 'Applied' : 'Applied with failures'}: ${counts.done} steps done, ${counts.failed} failed, ${counts.skipped} skipped${fin.changed ? ` · commit ${fin.commit?.slice(0, 12)}` : fin.commit ? ' · no new commit (already applied)' : ''}`,
      { actor: workerId },
    );
    await revisions.finishJob(job.id, ok ? 'done' : 'failed', ok ? undefined : `${counts.failed} failed, ${counts.skipped} skipped`);
    log(`revision ${rev.id}: ${ok ? 'applied' : 'failed'}`);
    return true;
  } catch (e) {
    if (e instanceof StopWorker) throw e;
    // Unexpected trouble (database, disk): release the job for a later retry.
    const msg = (e as Error).message;
    // The database went away mid-apply: keep trying to hand the job back while our lease surely still holds (it
    // was renewed at most leaseMs/3 ago), so it resumes as soon as the database returns rather than when the lease runs out.
    const releaseBy = Date.now() + (isDbUnavailable(e) ? leaseMs / 2 : 0);
    for (let wait = 250; ; wait = Math.min(2 * wait, 2000)) {
      if (await revisions.retryJobLater(job.id, backoff(opts.backoffMs, job.attempts), msg).then(() => true, () => false)) break;
      if (Date.now() + wait > releaseBy) break;
      await sleep(wait);
    }
    await revisions.event(rev.id, 'apply-error', `Apply interrupted: ${msg}; will retry`).catch(() => undefined);
    log(`revision ${rev.id}: ${msg}`);
    return true;
  } finally {
    clearInterval(heartbeat);
  }
}

/** Longest wait between two tries of a job: a failing revision holds later ones back for at most this long per try. */
export const MAX_BACKOFF_MS = 5 * 60_000;

/** Exponential backoff from `base` (default 2 s), capped at MAX_BACKOFF_MS. */
export function backoff(base: number | undefined, attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, (base ?? 2000) * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

function verb(action: string): string {
  return action === 'create' ? 'Created' : action === 'update' ? 'Updated' : 'Deleted';
}

/** Poll for jobs until `signal` aborts. */
export async function workLoop(opts: WorkerOptions & { pollMs?: number; signal?: AbortSignal }): Promise<void> {
  const pollMs = opts.pollMs ?? 1000;
  // One name for the life of the loop, so events and leases say which worker did what.
  const loop = { ...opts, workerId: opts.workerId ?? `worker-${randomUUID().slice(0, 8)}` };
  let lookedAt = 0;
  // Failures in a row outside a job's own handling (the database down, mostly): waits grow from pollMs to MAX_LOOP_BACKOFF_MS.
  let failures = 0;
  let isDbDownStreak = false;
  while (!opts.signal?.aborted) {
    let worked = false;
    try {
      worked = await runOnce(loop);
      // Idle: time to see whether an installation is due for an automatic reconcile.
      const r = opts.reconcile;
      if (!worked && r && Date.now() - lookedAt >= (r.everyMs ?? 30_000)) {
        lookedAt = Date.now();
        const queued = await scheduleReconciles(opts.revisions, r.source, (r.now ?? (() => new Date()))());
        if (queued.length) opts.log?.(`automatic reconcile queued for ${queued.join(', ')}`);
        worked = queued.length > 0;
      }
      if (failures > 0) opts.log?.(isDbDownStreak ? 'database reachable again; carrying on' : 'recovered; carrying on');
      failures = 0;
    } catch (e) {
      if (e instanceof StopWorker) return;
      failures++;
      const wait = Math.min(MAX_LOOP_BACKOFF_MS, pollMs * 2 ** Math.min(10, failures - 1));
      isDbDownStreak = isDbUnavailable(e);
      // One line per try, each further apart: an outage of minutes logs a handful, not thousands.
      opts.log?.(`${isDbDownStreak ? `database unreachable (${dbUnavailableReason(e)})` : `worker: ${(e as Error).message.split('\n')[0]}`}; retrying in ${Math.round(wait / 100) / 10} s`);
      await sleep(wait, opts.signal);
      continue;
    }
    if (!worked) await sleep(pollMs, opts.signal);
  }
}

/** Longest wait of the loop between two tries while something it needs (the database) keeps failing. */
export const MAX_LOOP_BACKOFF_MS = 10_000;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
