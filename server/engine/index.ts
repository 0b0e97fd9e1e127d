/**
 * The engine's stages, in order:
 *
 *   validate → select (Capact) → resolve (Aptomi) → install (Landscaper)
 *            → expand (DM) → merge → plan
 *
 * Each is a pure function with typed input and output. `validate` turns
 * text into objects (model/validate, per source's kinds); each source stage
 * turns the objects it reads into instances of the shared desired state
 * (state/) plus its requests' outcomes; `merge` joins the stages' outputs
 * into one desired state; `plan` diffs two desired states into a revision
 * (plan/). The resolution service (through server/resolver) and the CLI run
 * the same `ENGINE_STAGES` through an `EngineSession`, which also owns the
 * incremental path: a change a stage can absorb (Aptomi: claims only) is
 * applied to that stage alone.
 *
 * Adding a source: its kinds in model/sources/<source>.ts (+ the registry
 * list there), its stage here in ENGINE_STAGES.
 */
import type { RoleGrant } from './acl';
import type { PolicyUser } from './model/users';
import { APTOMI } from './model/sources/aptomi';
import { claimsOf, ResolveSession, type PolicyInput, type PolicyObjectInput } from './resolve';
import { claimKey } from './resolve/claim';
import { CAPACT_INPUT_KINDS } from './resolve/capact';
import { CAPACT_SELECT } from './select';
import { LANDSCAPER_INSTALL } from './install';
import { DM_EXPAND } from './expand';
import type { ClaimOutcome, DesiredState, Instance } from './state';

export { loadObjects as validate } from './model/validate';
export { planRevision as plan } from './plan';

export const STAGE_ORDER = ['validate', 'select', 'resolve', 'install', 'expand', 'merge', 'plan'] as const;
export type StageName = (typeof STAGE_ORDER)[number];
/** The stages a source contributes; the others are the engine's own. */
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
  errors: { object: string; message: string }[];
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

/** Aptomi's resolve stage: claims → instances, incrementally when only claims change. */
export const APTOMI_RESOLVE: SourceStage = {
  source: 'aptomi',
  stage: 'resolve',
  start(input, opts) {
    const session = new ResolveSession(input as PolicyInput, opts);
    return {
      output: () => session.state(),
      update(change) {
        // Capact's Hub and Global policy decide what interface components deploy: a change there starts over.
        if ([...change.upserts, ...change.deletes].some((o) => CAPACT_INPUT_KINDS.has(o.kind))) return false;
        // Objects of other sources do not reach this stage; of its own, only claims can change in place.
        const upserts = change.upserts.filter((o) => isAptomiKind(o.kind));
        const deletes = change.deletes.filter((o) => isAptomiKind(o.kind));
        if (!upserts.every((o) => o.kind === 'claim') || !deletes.every((o) => o.kind === 'claim')) return false;
        if (change.deployedClaims) session.setDeployedClaims(change.deployedClaims);
        // Even a change of nothing here: claims that ran out of their time are resolved again.
        session.absorbClaims({ upserts: claimsOf(upserts as readonly PolicyObjectInput[]), deletes: deletes.map((d) => claimKey(d)) });
        return true;
      },
      explain: (key) => session.explain(key),
    };
  },
};

function isAptomiKind(kind: string): boolean {
  return Object.hasOwn(APTOMI.kinds, kind);
}

/** The built-in source stages; `EngineSession` runs them in STAGE_ORDER. */
export const ENGINE_STAGES: readonly SourceStage[] = [CAPACT_SELECT, APTOMI_RESOLVE, LANDSCAPER_INSTALL, DM_EXPAND];

/**
 * Merge: the stages' outputs as one desired state. Instances are sorted by
 * key (a stage's own output already is); two stages claiming one key is an
 * error of the merge, reported rather than letting one silently win.
 */
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
      if (prior) errors.push({ object: i.key, message: `instance ${i.key} is produced by both ${prior.provenance.source} and ${i.provenance.source}; the first is kept` });
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

function inStageOrder(stages: readonly SourceStage[]): SourceStage[] {
  return [...stages].sort((a, b) => STAGE_ORDER.indexOf(a.stage) - STAGE_ORDER.indexOf(b.stage));
}

/**
 * The engine over one input: every source stage started in order, merged on
 * demand, updated in place when each stage can absorb a change.
 */
export class EngineSession {
  private readonly runs: { stage: SourceStage; run: StageRun }[];

  constructor(input: EngineInput, opts: EngineOptions = {}, stages: readonly SourceStage[] = ENGINE_STAGES) {
    this.runs = inStageOrder(stages).map((stage) => ({ stage, run: stage.start(input, opts) }));
  }

  state(): DesiredState {
    return merge(this.runs.map((r) => r.run.output()));
  }

  /**
   * Apply a change to every stage; null when some stage cannot absorb it
   * (then start a new session over the full input). A stage that refused
   * leaves this session unusable, so callers drop it on null.
   */
  update(change: ObjectChange): DesiredState | null {
    return this.absorb(change) ? this.state() : null;
  }

  /** `update` without building the merged state (false: as `update`'s null — drop the session). */
  absorb(change: ObjectChange): boolean {
    for (const r of this.runs) if (!r.run.update(change)) return false;
    return true;
  }

  /** A request's outcome with its decision trace, from the first stage that knows it. */
  explain(requestKey: string): ClaimOutcome | undefined {
    for (const r of this.runs) {
      const o = r.run.explain?.(requestKey);
      if (o) return o;
    }
    return undefined;
  }
}

/** Every source stage and the merge, once. */
export function runEngine(input: EngineInput, opts: EngineOptions = {}, stages: readonly SourceStage[] = ENGINE_STAGES): DesiredState {
  return new EngineSession(input, opts, stages).state();
}
