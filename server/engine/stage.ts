/**
 * The contract between the engine and a source: what a source stage takes
 * (`EngineInput`, the stored objects and users), what it gives
 * (`StageOutput`: instances, request outcomes, problems) and how it moves
 * with a change (`StageRun.update`). Each source's stage lives in
 * `<source>/stage.ts` and imports only this, never the engine's assembly
 * (`index.ts`), which imports them.
 */
import type { RoleGrant } from './acl';
import type { Diagnostic } from './diagnostics';
import type { PolicyUser } from './model/users';
import { audienceOfRendered, heldCredentials, withholdSecrets, type HeldCredentials } from './model/credentials';
import type { ClaimOutcome, Instance } from './state';
import { strictestAudience } from './state/types';

/** The stages a source contributes; the others (validate, merge, plan) are the engine's own. */
export type SourceStageName = 'select' | 'resolve' | 'install' | 'expand';

/** A stored or loaded object as every stage takes it; a stage reads the kinds it knows. */
export interface EngineObject {
  kind: string;
  namespace: string;
  name: string;
  spec: unknown;
}

export interface EngineInput {
  objects: readonly EngineObject[];
  users: readonly PolicyUser[];
  domainAdmins?: readonly string[];
  extraGrants?: ReadonlyMap<string, readonly RoleGrant[]>;
  /** See PolicyInput.enforceConsumeAcl. */
  enforceConsumeAcl?: boolean;
  /** See PolicyInput.deployedClaims. */
  deployedClaims?: ReadonlyMap<string, string>;
}

export interface EngineOptions {
  /** Record decision traces (default true). */
  trace?: boolean;
}

/** What a source stage produces: its instances, its requests' outcomes and the problems not tied to one request. */
export interface StageOutput {
  instances: Instance[];
  claims: ClaimOutcome[];
  errors: Diagnostic[];
}

/** A change between two generations: objects written (any kind) and objects removed. */
export interface ObjectChange {
  upserts: readonly EngineObject[];
  deletes: readonly { kind: string; namespace: string; name: string }[];
  /** The deployed generation's claims, when they changed since the input (EngineInput.deployedClaims). */
  deployedClaims?: ReadonlyMap<string, string>;
}

/** A source stage's working state over one input. */
export interface StageRun {
  output(): StageOutput;
  /**
   * Absorb a change; false when it cannot (the engine then starts over with
   * the full input). Requests whose outcome ran out of its time
   * (`ClaimOutcome.timedOut`) are resolved again by every update, whatever
   * it changed: the host's clock decided them, not the objects.
   */
  update(change: ObjectChange): boolean;
  /** A request's outcome with its full decision trace, when the stage has requests of that key. */
  explain?(requestKey: string): ClaimOutcome | undefined;
}

export interface SourceStage {
  /** The source whose provenance its instances carry. */
  source: string;
  stage: SourceStageName;
  start(input: EngineInput, opts: EngineOptions): StageRun;
}

// ---------------------------------------------------------------- wholeStage

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
    claims: out.claims.map((c) => ({ ...c, errors: c.errors.map(withhold), ...(c.diagnostics ? { diagnostics: c.diagnostics.map((d) => ({ ...d, message: withhold(d.message) })) } : {}), trace: c.trace.map((t) => ({ ...t, message: withhold(t.message), ...(t.data ? { data: withholdWithin(t.data, held) } : {}) })) })),
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
  return withholdSecrets(text, held, WITHHELD);
}

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
