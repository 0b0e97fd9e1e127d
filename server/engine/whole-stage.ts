/**
 * A source stage that recomputes its whole output from the objects it
 * reads (Capact's actions, Landscaper's installations): cheap next to
 * Aptomi's resolution, so a change to any object it reads re-runs it, and
 * a change to nothing it reads leaves its output as it is — unless a
 * request in it ran out of its time (`ClaimOutcome.timedOut`): then every
 * update re-runs it, as time is no property of the objects.
 *
 * Credentials the objects declare (kind registry) are followed into what
 * the stage renders, by value: these sources' templates (Go templates,
 * spiff, Jinja, Python) are not analysed for what they read, so an
 * instance whose parameters hold a credential's string gets the strictest
 * audience among them, and errors and traces (read by everyone) have it
 * withheld.
 */
import type { EngineObject, SourceStage, SourceStageName, StageOutput } from './index';
import { audienceOfRendered, heldCredentials, type HeldCredentials } from './model/credentials';
import { strictestAudience } from './state/types';

const WITHHELD = '(withheld: a credential)';

function followCredentials(objects: readonly EngineObject[], out: StageOutput): StageOutput {
  const held = heldCredentials(objects);
  if (held.length === 0) return out;
  const instances = out.instances.map((i) => {
    const audience = strictestAudience(i.sensitive, audienceOfRendered([i.code, i.discovery], held));
    return audience === i.sensitive ? i : { ...i, sensitive: audience };
  });
  const withhold = (text: string) => withholdIn(text, held);
  return {
    instances,
    claims: out.claims.map((c) => ({ ...c, errors: c.errors.map(withhold), trace: c.trace.map((t) => ({ ...t, message: withhold(t.message), ...(t.data ? { data: withholdWithin(t.data, held) } : {}) })) })),
    errors: out.errors.map((e) => ({ ...e, message: withhold(e.message) })),
  };
}

function withholdWithin<T>(v: T, held: readonly HeldCredentials[]): T {
  if (typeof v === 'string') return withholdIn(v, held) as T;
  if (Array.isArray(v)) return v.map((x) => withholdWithin(x, held)) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withholdWithin(x, held)])) as T;
  return v;
}

function withholdIn(text: string, held: readonly HeldCredentials[]): string {
  let out = text;
  for (const h of held) for (const s of h.secrets) if (out.includes(s)) out = out.split(s).join(WITHHELD);
  return out;
}

export function wholeStage(source: string, stage: SourceStageName, reads: ReadonlySet<string>, compute: (objects: readonly EngineObject[]) => StageOutput): SourceStage {
  const id = (o: { kind: string; namespace: string; name: string }) => `${o.kind}/${o.namespace}/${o.name}`;
  return {
    source,
    stage,
    start(input) {
      let objects = input.objects.filter((o) => reads.has(o.kind));
      let out = followCredentials(objects, compute(objects));
      return {
        output: () => out,
        update(change) {
          // What ran out of its time is computed again whatever changed (the clock decided it, not the objects).
          if (![...change.upserts, ...change.deletes].some((o) => reads.has(o.kind)) && !out.claims.some((c) => c.timedOut)) return true;
          const gone = new Set(change.deletes.map(id));
          const replaced = new Map(change.upserts.filter((u) => reads.has(u.kind)).map((u) => [id(u), u]));
          objects = [...objects.filter((o) => !gone.has(id(o)) && !replaced.has(id(o))), ...replaced.values()];
          out = followCredentials(objects, compute(objects));
          return true;
        },
      };
    },
  };
}
