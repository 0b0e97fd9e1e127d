/**
 * A source stage that recomputes its whole output from the objects it
 * reads (Capact's actions, Landscaper's installations): cheap next to
 * Aptomi's resolution, so a change to any object it reads re-runs it, and
 * a change to nothing it reads leaves its output as it is.
 */
import type { EngineObject, SourceStage, SourceStageName, StageOutput } from './index';

export function wholeStage(source: string, stage: SourceStageName, reads: ReadonlySet<string>, compute: (objects: readonly EngineObject[]) => StageOutput): SourceStage {
  const id = (o: { kind: string; namespace: string; name: string }) => `${o.kind}/${o.namespace}/${o.name}`;
  return {
    source,
    stage,
    start(input) {
      let objects = input.objects.filter((o) => reads.has(o.kind));
      let out = compute(objects);
      return {
        output: () => out,
        update(change) {
          if (![...change.upserts, ...change.deletes].some((o) => reads.has(o.kind))) return true;
          const gone = new Set(change.deletes.map(id));
          const replaced = new Map(change.upserts.filter((u) => reads.has(u.kind)).map((u) => [id(u), u]));
          objects = [...objects.filter((o) => !gone.has(id(o)) && !replaced.has(id(o))), ...replaced.values()];
          out = compute(objects);
          return true;
        },
      };
    },
  };
}
