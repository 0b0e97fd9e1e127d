/**
 * The Axebow selector language (reference/axebow.md §2): tenant rules that
 * decide, per environment, whether a user, a resource or a service may go
 * there. `compileSelector` is the save-time check, `runSelector` the run,
 * and `evaluateSelector` what the hooks call: it folds every failure into
 * `false` with a reason, because a broken rule must exclude (and say why),
 * never crash a selection or silently admit.
 */

import type { Budget } from '../budget';
import { compileSelector } from './compile';
import { runSelector } from './run';
import type { SelectorContext, SelectorError } from './types';

export { compileSelector, parseReference, type CompileResult } from './compile';
export { compareCodePoints, jsonEqual, parseQuantity, runSelector, type RunResult } from './run';
export {
  isSelectorOp,
  MAX_PROGRAM_LENGTH,
  MAX_STACK_DEPTH,
  SELECTOR_OPS,
  SELECTOR_ROOTS,
  selectorDiagnostic,
  type CompiledItem,
  type CompiledSelector,
  type JsonValue,
  type PathSegment,
  type SelectorContext,
  type SelectorError,
  type SelectorErrorCode,
  type SelectorOp,
  type SelectorProgram,
  type SelectorRoot,
} from './types';

export interface SelectorOutcome {
  value: boolean;
  /** Why the value is a forced `false`: the error messages, joined with "; ". */
  reason?: string;
  /** The first error (a compile error, or the run-time error that stopped the run). */
  error?: SelectorError;
}

/**
 * Runs a stored selector in one hook. An absent program (undefined or null)
 * gives `absent`, which each hook chooses (true for the `validate*` hooks and
 * `selectEnvironmentService`, false for `selectAcceptEnvironmentService`:
 * acceptance stays manual unless a rule grants it).
 */
export function evaluateSelector(program: unknown, ctx: SelectorContext, absent: boolean, budget?: Budget): SelectorOutcome {
  if (program === undefined || program === null) return { value: absent };
  const compiled = compileSelector(program);
  if (!compiled.ok) return { value: false, reason: compiled.errors.map((e) => e.message).join('; '), error: compiled.errors[0] };
  const run = runSelector(compiled.program, ctx, budget);
  if (!run.ok) return { value: false, reason: run.error.message, error: run.error };
  return { value: run.value };
}
