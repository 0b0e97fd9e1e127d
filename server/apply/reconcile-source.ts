/**
 * What the automatic reconcile loop reads (./reconcile.ts), from the
 * repositories: the applied revision, the outcome of each root installation
 * in its generation's desired state (resolved: Succeeded, error: Failed),
 * each installation's `automaticReconcile` as the policy had it then, and
 * its deploy items.
 */
import type { AutomaticReconcile } from '../engine/landscaper/auto-reconcile';
import type { DesiredState } from '../engine/state';
import type { Repos } from '../repo/types';
import type { ApplyStep } from './actuator';
import { restartOf } from '../engine/state/restart';
import type { ReconcileSource } from './reconcile';

export function reconcileSource(repos: Pick<Repos, 'revisions' | 'resolutions' | 'policy'>): ReconcileSource {
  const stateOf = async (generation: number) => (await repos.resolutions.get(generation))?.state as DesiredState | undefined;
  return {
    async applied() {
      const id = (await repos.revisions.head()).appliedRevisionId;
      const rev = id === null ? undefined : await repos.revisions.get(id);
      if (!rev) return undefined;
      const state = await stateOf(rev.generation);
      if (!state) return undefined;
      const settings = new Map(
        (await repos.policy.listObjects({ generation: rev.generation, kind: 'installation' })).map((o) => [`${o.namespace}/${o.name}`, (o.spec as { spec?: { automaticReconcile?: AutomaticReconcile } }).spec?.automaticReconcile]),
      );
      // Failed: the engine says so, or a deploy item did not apply.
      const roots = state.claims.filter((c) => c.kind === 'installation');
      const failedKeys = new Set((await repos.revisions.instanceStates(roots.flatMap((c) => c.instances))).filter((x) => x.status === 'failed').map((x) => x.key));
      const installations = roots.map((c) => {
        const ref = `${c.namespace}/${c.name}`;
        const setting = settings.get(ref);
        const failed = c.status !== 'resolved' || c.instances.some((k) => failedKeys.has(k));
        return { ref, phase: failed ? ('Failed' as const) : ('Succeeded' as const), ...(setting ? { setting } : {}) };
      });
      return { revisionId: rev.id, generation: rev.generation, installations };
    },
    async deployItems(generation, ref) {
      const state = await stateOf(generation);
      return (state?.instances ?? [])
        .filter((i) => i.code !== null && !i.error && i.claims.includes(ref))
        .map(
          (i, index): ApplyStep => ({
            index,
            action: 'update',
            key: i.key,
            deployName: i.deployName,
            instanceId: i.instanceId,
            target: i.target,
            code: i.code,
            claims: i.claims,
            // Written as the revision wrote it: a restart stamp it carries stays, or the workload would roll.
            ...(restartOf(i) !== undefined ? { restartedAt: restartOf(i) } : {}),
          }),
        );
    },
  };
}
