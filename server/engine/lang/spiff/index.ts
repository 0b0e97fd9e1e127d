/**
 * spiff++ (github.com/mandelsoft/spiff), the subset Landscaper users write
 * in `importDataMappings`, `exportDataMappings` and Spiff executions
 * (reference/landscaper.md §7):
 *
 *   references `(( a.b.c ))`, `(( list[0] ))`, `(( list.[0] ))`,
 *   `(( exports["root.z"] ))`; concatenation by juxtaposition
 *   `(( track1 "B" ))` (strings join, lists append, maps merge); `+ - * / %`;
 *   comparisons; `!`, `-or`, `-and`; defaults `(( x || y ))`; conditionals
 *   `(( c ? a : b ))`; `~` (nil) and `~~` (remove the node); `<<<:` / `<<:`
 *   merges; list `[a, b]` and map `{ "k" = v }` literals; lambdas
 *   `|x|-> e`, `sum[list|init|s,k,v|-> e]`, `map[...]`, `select[...]`;
 *   functions valid, defined, length, keys, values, join, split, trim,
 *   lower, upper, contains, min, max, format.
 *
 * Rejected explicitly (`spiff_unsupported`): file and process access
 * (`read`, `exec`, ...), `&temporary`/`&state` markers and the other
 * functions spiff has. Landscaper's blueprint functions (getResource, ...)
 * need a component descriptor store and are not provided.
 *
 * Every run has a budget (steps and output size) so that a hostile mapping
 * ends with `spiff_limit` instead of stalling a resolution. Errors are data
 * carrying the expression, the offset in it, and the document path.
 */
import type { Budget, Deadline } from '../budget';
import { formatPath, SpiffFailure, type SpiffError, type SpiffResult } from './errors';
import { DELETE, Evaluator } from './eval';
import { parseExpression, type Expr } from './parse';

export type { SpiffError, SpiffErrorCode, SpiffResult } from './errors';
export { spiffDiagnostic } from './errors';
export type { Expr } from './parse';

export interface SpiffLimits {
  /** Most evaluation steps (nodes evaluated, lambda calls, fold iterations) per document. */
  maxSteps: number;
  /** Longest string and longest list a run may build. */
  maxOutput: number;
  /** When a run must stop (the host's clock; see lang/budget.ts). */
  deadline?: Deadline;
}

export const DEFAULT_SPIFF_LIMITS: Readonly<SpiffLimits> = Object.freeze({ maxSteps: 100_000, maxOutput: 1024 * 1024 });

function budgetOf(limits?: Partial<SpiffLimits>): Budget {
  const l = { ...DEFAULT_SPIFF_LIMITS, ...limits };
  return { steps: l.maxSteps, output: l.maxOutput, ...(l.deadline ? { deadline: l.deadline } : {}) };
}

function toError(err: unknown): SpiffError {
  if (err instanceof SpiffFailure) {
    const where = err.path && err.path.length > 0 ? `${formatPath(err.path)}: ` : '';
    const expr = err.expression !== undefined ? ` in (( ${err.expression.trim()} ))` : '';
    return {
      code: err.code,
      message: `${where}${err.message}${expr}`,
      ...(err.expression !== undefined ? { expression: err.expression, position: err.position } : {}),
      ...(err.path ? { path: formatPath(err.path) } : {}),
    };
  }
  if (err instanceof RangeError) return { code: 'spiff_limit', message: `spiff evaluation too deep: ${err.message}` };
  throw err;
}

/** Parses one expression (the text inside `(( ))`), for validation and tests. */
export function parseSpiffExpression(src: string, limits?: Partial<SpiffLimits>): SpiffResult<Expr> {
  try {
    return { ok: true, value: parseExpression(src, { steps: budgetOf(limits).steps, depth: 200 }) };
  } catch (err) {
    const e = toError(err);
    return { ok: false, error: { ...e, expression: src, position: err instanceof SpiffFailure ? err.position : 0, message: `${e.message} in (( ${src.trim()} ))` } };
  }
}

/**
 * Evaluates a spiff document (any YAML value) with `bindings` visible by
 * name. A document that removes itself (`~~` at the top) yields `undefined`.
 */
export function evaluateSpiff(doc: unknown, bindings: Record<string, unknown>, limits?: Partial<SpiffLimits>): SpiffResult<unknown> {
  try {
    const ev = new Evaluator({ doc, bindings, budget: budgetOf(limits) });
    const v = ev.evaluateDocument();
    return { ok: true, value: v === DELETE ? undefined : v };
  } catch (err) {
    return { ok: false, error: toError(err) };
  }
}

/** Evaluates one expression string such as `(( a "b" ))` or `a "b"`. */
export function evaluateSpiffExpression(src: string, bindings: Record<string, unknown>, limits?: Partial<SpiffLimits>): SpiffResult<unknown> {
  const text = /^\s*\(\(/.test(src) ? src : `((${src}))`;
  return evaluateSpiff(text, bindings, limits);
}

/**
 * Landscaper's data mappings: every key is its own spiff document (its own
 * Cascade), so mappings cannot refer to each other; a key whose value is
 * removed with `~~` is absent from the result.
 */
export function evaluateDataMappings(mappings: Record<string, unknown>, bindings: Record<string, unknown>, limits?: Partial<SpiffLimits>): SpiffResult<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, doc] of Object.entries(mappings)) {
    const r = evaluateSpiff(doc, bindings, limits);
    if (!r.ok) return { ok: false, error: { ...r.error, path: r.error.path ? `${key}.${r.error.path}` : key, message: `${key}: ${r.error.message}` } };
    if (r.value !== undefined) out[key] = r.value;
  }
  return { ok: true, value: out };
}
