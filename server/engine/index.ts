/**
 * The engine's stages, in order:
 *
 *   validate → select (Capact) → resolve (Aptomi) → install (Landscaper)
 *            → expand (DM) → merge → plan
 *
 * Each is a pure function with typed input and output. `validate` turns
 * text into objects (model/validate, per source's kinds); each source stage
 * (`<source>/stage.ts`, to the contract in stage.ts) turns the objects it
 * reads into instances of the shared desired state (state/) plus its
 * requests' outcomes; `merge` (merge.ts) joins the stages' outputs into one
 * desired state; `plan` diffs two desired states into a revision (plan/).
 * The resolution service (through server/resolver) and the CLI run the same
 * `ENGINE_STAGES` through an `EngineSession`, which also owns the
 * incremental path: a change a stage can absorb (Aptomi: claims only) is
 * applied to that stage alone.
 *
 * This file only assembles them. Adding a source: its kinds in
 * model/sources/<source>.ts (+ the registry list there), its stage in
 * <source>/stage.ts, listed here in ENGINE_STAGES.
 */
import { APTOMI_RESOLVE } from './aptomi/stage';
import { CAPACT_SELECT } from './capact/stage';
import { DM_EXPAND } from './dm/stage';
import { LANDSCAPER_INSTALL } from './landscaper/stage';
import { merge } from './merge';
import type { EngineInput, EngineOptions, ObjectChange, SourceStage, StageRun } from './stage';
import type { ClaimOutcome, DesiredState } from './state';

export { loadObjects as validate } from './model/validate';
export { merge } from './merge';
export { planRevision as plan } from './plan';
export type { EngineInput, EngineObject, EngineOptions, ObjectChange, SourceStage, SourceStageName, StageOutput, StageRun } from './stage';

export const STAGE_ORDER = ['validate', 'select', 'resolve', 'install', 'expand', 'merge', 'plan'] as const;
export type StageName = (typeof STAGE_ORDER)[number];

/** The built-in source stages; `EngineSession` runs them in STAGE_ORDER. */
export const ENGINE_STAGES: readonly SourceStage[] = [CAPACT_SELECT, APTOMI_RESOLVE, LANDSCAPER_INSTALL, DM_EXPAND];

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
