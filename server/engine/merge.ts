/**
 * The merge stage: the source stages' outputs as one desired state.
 * Instances are sorted by key (a stage's own output already is); two stages
 * claiming one key is an error of the merge, reported rather than letting
 * one silently win.
 */
import { errorAt } from './diagnostics';
import type { StageOutput } from './stage';
import type { DesiredState, Instance } from './state';

export function merge(all: readonly StageOutput[]): DesiredState {
  // A stage with nothing to say (no actions, no installations) costs nothing: most policies use one source.
  const nonEmpty = all.filter((o) => o.instances.length + o.claims.length + o.errors.length > 0);
  const outputs = nonEmpty.length > 0 ? nonEmpty : all.slice(-1);
  if (outputs.length === 1) {
    const only = outputs[0]!;
    return { claims: only.claims, instances: only.instances, errors: only.errors };
  }
  const byKey = new Map<string, Instance>();
  const errors = outputs.flatMap((o) => o.errors);
  for (const o of outputs) {
    for (const i of o.instances) {
      const prior = byKey.get(i.key);
      if (prior) errors.push(errorAt('instance_conflict', `instance ${i.key} is produced by both ${prior.provenance.source} and ${i.provenance.source}; the first is kept`, { object: i.key }));
      else byKey.set(i.key, i);
    }
  }
  const byName = (a: { namespace: string; name: string }, b: { namespace: string; name: string }) =>
    a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  return {
    claims: outputs.flatMap((o) => o.claims).sort(byName),
    instances: [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    errors,
  };
}
