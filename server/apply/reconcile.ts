/**
 * Landscaper's automatic reconcile, run by the job loop. Now and then the
 * loop looks at the root installations of the applied revision: one whose
 * `automaticReconcile` says a reconcile is due (engine
 * landscaper/auto-reconcile.ts) gets a `reconcile` job, queued behind any
 * apply (jobs run one at a time, oldest first). The job re-applies that
 * installation's deploy items as the applied revision has them, asking the
 * deployer to reconcile now — for GitOps, Flux's `requestedAt` on the
 * installation's HelmReleases; raw manifests are reconciled by Flux on its
 * own interval, so they are rewritten as they are. A job whose revision is
 * no longer the applied one does nothing: the newer revision is the truth.
 *
 * What was done is remembered per installation with a compare-and-set, so
 * two workers looking at once queue one reconcile, not two.
 */
import { reconcileDecision, type AutomaticReconcile } from '../engine/landscaper/auto-reconcile';
import type { JobRow, RevisionRepository, RevisionRow } from '../repo/revisions.types';
import type { Actuator, ApplyContext, ApplyStep } from './actuator';

export const RECONCILE_JOB = 'reconcile';

export interface ReconcileInstallation {
  /** `ns/name` of a root installation. */
  ref: string;
  phase: 'Succeeded' | 'Failed';
  setting?: AutomaticReconcile;
}

/** What the loop reads about the applied state (server/apply/reconcile-source.ts reads it from the repositories). */
export interface ReconcileSource {
  /** The applied revision and the root installations its generation runs; undefined when nothing is applied. */
  applied(): Promise<{ revisionId: number; generation: number; installations: ReconcileInstallation[] } | undefined>;
  /** The deploy items (instances with code) of an installation in a generation's desired state, as update steps. */
  deployItems(generation: number, ref: string): Promise<ApplyStep[]>;
}

/** Queue the reconciles that are due; returns the installations queued. */
export async function scheduleReconciles(revisions: RevisionRepository, source: ReconcileSource, now: Date): Promise<string[]> {
  const applied = await source.applied();
  if (!applied) return [];
  const queued: string[] = [];
  for (const i of applied.installations) {
    if (!i.setting) continue;
    if (await revisions.openJob(RECONCILE_JOB, i.ref)) continue;
    const before = await revisions.reconcileMemory(i.ref);
    const d = reconcileDecision(i.setting, i.phase, applied.generation, before, now);
    if (!d.memory) continue;
    // Another worker that moved the memory first has queued this reconcile (or started the clock).
    if (!(await revisions.saveReconcileMemory(i.ref, d.memory, before))) continue;
    if (!d.due) continue;
    await revisions.enqueue(RECONCILE_JOB, applied.revisionId, i.ref);
    await revisions.event(applied.revisionId, 'reconcile-queued', `Automatic reconcile of installation ${i.ref} queued (${d.why})`);
    queued.push(i.ref);
  }
  return queued;
}

/** Carry out one reconcile job. */
export async function runReconcileJob(job: JobRow, rev: RevisionRow, deps: { revisions: RevisionRepository; actuator: Actuator; source: ReconcileSource; now: () => Date; workerId: string }): Promise<void> {
  const { revisions, actuator } = deps;
  const ref = job.subject ?? '';
  const applied = await deps.source.applied();
  if (!applied || applied.revisionId !== rev.id) {
    await revisions.finishJob(job.id, 'done', `revision ${rev.id} is no longer the applied one: nothing to reconcile`);
    return;
  }
  const at = deps.now().toISOString();
  const steps = (await deps.source.deployItems(rev.generation, ref)).map((s) => ({ ...s, reconcileAt: at }));
  const ctx: ApplyContext = { revisionId: rev.id, generation: rev.generation, accepters: [], author: 'keelson', purpose: `Reconcile installation ${ref} (revision ${rev.id}, automatic)` };
  await actuator.begin(ctx);
  const counts = { done: 0, failed: 0, skipped: 0 };
  const failures: string[] = [];
  for (const step of steps) {
    let r;
    try {
      r = await actuator.apply(step, ctx);
    } catch (e) {
      r = { status: 'failed' as const, error: (e as Error).message };
    }
    if (r.status === 'done') counts.done++;
    else {
      counts.failed++;
      failures.push(`${step.key}: ${r.error}`);
    }
  }
  const fin = await actuator.finish(ctx, counts);
  const commit = fin.changed && fin.commit ? ` · commit ${fin.commit.slice(0, 12)}` : '';
  await revisions.event(
    rev.id,
    counts.failed ? 'reconcile-failed' : 'reconciled',
    `Automatic reconcile of installation ${ref}: ${counts.done} deploy item${counts.done === 1 ? '' : 's'} re-applied${counts.failed ? `, ${counts.failed} failed (${failures.join('; ')})` : ''}${commit}`,
    { actor: deps.workerId },
  );
  await revisions.finishJob(job.id, counts.failed ? 'failed' : 'done', counts.failed ? failures.join('; ') : undefined);
}
