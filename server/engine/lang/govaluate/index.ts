/**
 * Keelson's expression language: govaluate as forked and used by Aptomi
 * (`ralekseenkov/govaluate`), reimplemented so that policies written for
 * Aptomi evaluate identically.
 *
 * Semantics reproduced on purpose (see reference/aptomi.md §4):
 * - Precedence, lowest first: `? : ??` | `||` | `&&` | comparators
 *   (`== != > >= < <= =~ !~ IN`) | `& | ^` | `<< >>` | `+ -` | `* / %` | `**`
 *   | prefix `- ! ~`. Every binary level is left-associative (govaluate
 *   reorders its right-leaning plan into left-associative order), so
 *   `2 ** 3 ** 2` is 64 and `-2 ** 2` is 4.
 * - All numbers are float64. `+` adds two numbers or, if either side is a
 *   string, concatenates both sides printed with Go's `%v` (so
 *   `'a' + 'b' + true` is the string "abtrue", which then fails the "must be
 *   a boolean" check). `> >= < <=` need two numbers or two strings.
 * - A parameter that does not exist anywhere in the evaluated path makes the
 *   whole expression false (the fork's MissingParameterError, swallowed by
 *   Aptomi), while short-circuiting still skips unevaluated operands.
 * - Labels are strings coerced like Aptomi's params.go (see `coerceLabel`);
 *   nested values (`Bundle.Labels.x`) are not coerced.
 * - The only function is `in(x, a, b, ...)`; any other call is a parse error.
 * - The lexer reads operators as maximal runs of symbol characters, as
 *   govaluate does, so `a==-1` is the invalid token `==-` (write `a == -1`).
 *
 * Deliberate differences (documented in DESIGN.md / the report):
 * - `bundle.Labels.blog == true` is true for the label string "true": when a
 *   parameter's string value meets a boolean under `==`/`!=`, the string is
 *   read with Go's ParseBool first. (Aptomi compared raw strings, so the
 *   documented example could never match.) A string *literal* is never
 *   coerced, so `b == 't'` stays false as in Aptomi.
 * - An accessor root that does not exist is retried with its first letter's
 *   case flipped, so `bundle.Name` and `Bundle.Name` both work.
 * - String literals end at the matching quote (govaluate ends them at any
 *   quote), and string literals are never reinterpreted as dates.
 * - `in()` with no arguments and an empty expression are parse errors
 *   (govaluate failed only when evaluating them).
 * - `=~` uses an RE2-compatible linear-time matcher (../re2, re2js), not JS RegExp.
 *
 * Phases: `lex.ts` (tokens) → `parse.ts` (syntax tree) → `eval.ts`
 * (evaluation). This file is the dialect's public API.
 */

import type { Budget, Deadline } from '../budget';
import { FormatLimitError } from '../gosprint';
import { fail, LangFailure, ok, type Result } from '../result';
import { evaluate, type ExprOutcome, type ExprParams } from './eval';
import { lex } from './lex';
import { parseExpr, type ExprNode } from './parse';

export { coerceLabel, coerceLabelSet, type ExprOutcome, type ExprParams } from './eval';
export type { ExprNode } from './parse';

// ---------------------------------------------------------------------------
// Public API

export interface ExprLimits {
  /** Longest accepted source text, in UTF-16 units. */
  maxSourceLength: number;
  /** Most AST nodes a compiled expression may have. */
  maxNodes: number;
  /** Deepest operator/parenthesis nesting accepted by the parser. */
  maxDepth: number;
  /** Most node evaluations per `evalExpr` call. */
  maxSteps: number;
  /** Longest string `+` may build. */
  maxStringLength: number;
  /** Regex matcher budget (NFA steps) per evaluation. */
  maxRegexWork: number;
}

export const DEFAULT_EXPR_LIMITS: Readonly<ExprLimits> = Object.freeze({
  maxSourceLength: 4096,
  maxNodes: 2000,
  maxDepth: 100,
  maxSteps: 10_000,
  maxStringLength: 65_536,
  maxRegexWork: 2_000_000,
});

/** A parsed expression. Immutable and safe to cache and share. */
export interface CompiledExpr {
  readonly source: string;
  /** Parameter names the expression reads (accessors dotted), in source order. */
  readonly references: readonly string[];
  /** @internal the syntax tree; not part of the stable API. */
  readonly root: ExprNode;
}

export interface EvalOptions {
  /**
   * Coerce top-level string parameters with `coerceLabel` when they are read
   * (labels passed as `Record<string, string>`). Nested values are never
   * coerced. Leave false when the caller already coerced (faster for reuse).
   */
  coerceLabels?: boolean;
  limits?: Partial<ExprLimits>;
  /** When the evaluation must stop (the host's clock; see lang/budget.ts). */
  deadline?: Deadline;
}

/** Compiled expressions keyed by source (compile errors are cached too); a
 * `Map` works, or any bounded cache with the same two methods. */
export interface ExprCache {
  get(source: string): Result<CompiledExpr> | undefined;
  set(source: string, compiled: Result<CompiledExpr>): unknown;
}

function evalBudget(limits: ExprLimits): Budget {
  return { steps: limits.maxSteps, output: limits.maxStringLength };
}

/** Made once: nearly every evaluation runs with the default limits. */
const DEFAULT_EVAL_BUDGET = evalBudget(DEFAULT_EXPR_LIMITS);

export function compileExpr(src: string, limits?: Partial<ExprLimits>): Result<CompiledExpr> {
  const lim = { ...DEFAULT_EXPR_LIMITS, ...limits };
  if (src.length > lim.maxSourceLength) {
    return fail({ code: 'expr_limit', message: `expression is longer than ${lim.maxSourceLength} characters` });
  }
  try {
    const tokens = lex(src);
    const { root, references } = parseExpr(src, tokens, { steps: lim.maxNodes, depth: lim.maxDepth });
    return ok({ source: src, references, root });
  } catch (e) {
    if (e instanceof LangFailure) return fail(e.error);
    throw e;
  }
}

/** compileExpr with a cache keyed by source text. */
export function compileExprCached(src: string, cache: ExprCache, limits?: Partial<ExprLimits>): Result<CompiledExpr> {
  let hit = cache.get(src);
  if (hit === undefined) {
    hit = compileExpr(src, limits);
    cache.set(src, hit);
  }
  return hit;
}

/** Evaluates to a boolean; a missing parameter yields `{ ok: true, value: false }`. */
export function evalExpr(compiled: CompiledExpr, params: ExprParams, options?: EvalOptions): Result<boolean> {
  const r = evalExprDetailed(compiled, params, options);
  return r.ok ? ok(r.value.value) : r;
}

/** Like `evalExpr`, but also reports which missing parameter forced `false`. */
export function evalExprDetailed(compiled: CompiledExpr, params: ExprParams, options?: EvalOptions): Result<ExprOutcome> {
  const lim = options?.limits ? { ...DEFAULT_EXPR_LIMITS, ...options.limits } : DEFAULT_EXPR_LIMITS;
  const limited = options?.limits ? evalBudget(lim) : DEFAULT_EVAL_BUDGET;
  const budget = options?.deadline ? { ...limited, deadline: options.deadline } : limited;
  try {
    return ok(evaluate(compiled.root, params, options?.coerceLabels === true, budget, lim.maxRegexWork));
  } catch (e) {
    if (e instanceof LangFailure) return fail(e.error);
    if (e instanceof FormatLimitError) return fail({ code: 'expr_limit', message: e.message });
    throw e;
  }
}
