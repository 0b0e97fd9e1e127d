/**
 * Restarts (Axebow's "restart role" and "restart role instance"): a claim
 * label stamps a time, and an instance whose stamp changes is updated with
 * nothing else changed, so the apply rolls its workloads. Labels, because a
 * restart is a change like any other: a revision, with its diff and its
 * acceptance, and history to show who restarted what.
 *
 * - `restart`: every role of the service;
 * - `restart-<role>`: the instances of that component;
 * - `restart_<deployName>`: one instance (label names allow no dot).
 * The latest stamp that applies wins (ISO times compare as strings).
 * A new stamp re-applies; a stamp taken away asks for nothing.
 *
 * A reconcile is milder: Landscaper's `operation: reconcile` annotation on a
 * root installation stamps its deploy items with RECONCILE_LABEL
 * (engine/landscaper/stage.ts); the apply asks the deployer to reconcile them now,
 * forcing and restarting nothing.
 */
export const RESTART_LABEL = 'restart';

export function restartLabelFor(role: string, deployName?: string): string {
  return deployName ? `${RESTART_LABEL}_${deployName}` : `${RESTART_LABEL}-${role}`;
}

/** The restart stamp that applies to an instance, if any. */
export function restartOf(i: { labels: Readonly<Record<string, string>>; component: string; deployName: string }): string | undefined {
  let latest: string | undefined;
  for (const k of [RESTART_LABEL, `${RESTART_LABEL}-${i.component}`, `${RESTART_LABEL}_${i.deployName}`]) {
    const v = i.labels[k];
    if (v !== undefined && v !== '' && (latest === undefined || v > latest)) latest = v;
  }
  return latest;
}

export const RECONCILE_LABEL = 'keelson-reconcile';

/** The reconcile stamp of an instance, if any. */
export function reconcileOf(i: { labels: Readonly<Record<string, string>> }): string | undefined {
  const v = i.labels[RECONCILE_LABEL];
  return v === undefined || v === '' ? undefined : v;
}
