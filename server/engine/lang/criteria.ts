/**
 * Aptomi criteria: `require-all`, `require-none`, `require-any` lists of
 * expressions, evaluated in that order with Aptomi's early exits
 * (pkg/lang/criteria.go):
 *
 *   1. every require-all must be true (the first false one decides);
 *   2. no require-none may be true (the first true one decides);
 *   3. if require-any is non-empty, one must be true (the first true one
 *      decides; if none is, the criteria fail).
 *
 * Absent or empty criteria always match. Because evaluation stops at the
 * first decisive expression, later expressions are not evaluated (and a
 * broken one there is not reported); use `validateCriteria` at policy
 * validation time to compile every expression up front.
 */

import {
  compileExpr,
  compileExprCached,
  evalExpr,
  evalExprDetailed,
  type CompiledExpr,
  type EvalOptions,
  type ExprCache,
  type ExprParams,
} from './govaluate';
import { fail, ok, type LangError, type Result } from './result';

export interface Criteria {
  'require-all'?: readonly string[] | null;
  'require-any'?: readonly string[] | null;
  'require-none'?: readonly string[] | null;
}

export interface CriteriaOutcome {
  matched: boolean;
  /** Short sentence for decision traces, e.g. "require-all `org == 'dev'` was false". */
  reason: string;
}

type Section = 'require-all' | 'require-none' | 'require-any';

interface Verdict {
  value: boolean;
  missing?: string;
}

export function evalCriteria(
  criteria: Criteria | null | undefined,
  params: ExprParams,
  cache?: ExprCache,
  options?: EvalOptions,
): Result<CriteriaOutcome> {
  const all = criteria?.['require-all'] ?? [];
  const none = criteria?.['require-none'] ?? [];
  const any = criteria?.['require-any'] ?? [];
  if (all.length === 0 && none.length === 0 && any.length === 0) {
    return ok({ matched: true, reason: 'no criteria (always matches)' });
  }

  const evaluate = (section: Section, index: number, src: string): Result<Verdict> => {
    const compiled = cache ? compileExprCached(src, cache, options?.limits) : compileExpr(src, options?.limits);
    if (!compiled.ok) return fail(sectionError(section, index, src, compiled.error));
    const r = evalExprDetailed(compiled.value, params, options);
    if (!r.ok) return fail(sectionError(section, index, src, r.error));
    return ok(r.value);
  };

  for (const [i, src] of all.entries()) {
    const r = evaluate('require-all', i, src);
    if (!r.ok) return r;
    if (!r.value.value) {
      return ok({ matched: false, reason: `require-all \`${src}\` was false${missingNote(r.value)}` });
    }
  }
  for (const [i, src] of none.entries()) {
    const r = evaluate('require-none', i, src);
    if (!r.ok) return r;
    if (r.value.value) return ok({ matched: false, reason: `require-none \`${src}\` was true` });
  }
  if (any.length > 0) {
    for (const [i, src] of any.entries()) {
      const r = evaluate('require-any', i, src);
      if (!r.ok) return r;
      if (r.value.value) return ok({ matched: true, reason: `require-any \`${src}\` was true` });
    }
    const only = any.length === 1 ? `require-any \`${any[0]}\` was false` : `none of the ${any.length} require-any expressions was true`;
    return ok({ matched: false, reason: only });
  }

  const parts: string[] = [];
  if (all.length > 0) parts.push(all.length === 1 ? `require-all \`${all[0]}\` was true` : `all ${all.length} require-all expressions were true`);
  if (none.length > 0) parts.push(none.length === 1 ? `require-none \`${none[0]}\` was false` : `no require-none expression was true`);
  return ok({ matched: true, reason: parts.join(' and ') });
}

/**
 * `evalCriteria` without the explanation: the resolver's hot path (24 of 25
 * benchmark rules never match; nobody reads why). Same order, same errors.
 */
export function criteriaMatch(
  criteria: Criteria | null | undefined,
  params: ExprParams,
  cache: ExprCache,
  options?: EvalOptions,
): Result<boolean> {
  // No closures here: this runs millions of times in large resolutions.
  if (!criteria) return TRUE;
  const all = criteria['require-all'];
  if (all) {
    for (let i = 0; i < all.length; i++) {
      const r = testOne('require-all', all, i, params, cache, options);
      if (!r.ok || !r.value) return r;
    }
  }
  const none = criteria['require-none'];
  if (none) {
    for (let i = 0; i < none.length; i++) {
      const r = testOne('require-none', none, i, params, cache, options);
      if (!r.ok) return r;
      if (r.value) return FALSE;
    }
  }
  const any = criteria['require-any'];
  if (any && any.length > 0) {
    for (let i = 0; i < any.length; i++) {
      const r = testOne('require-any', any, i, params, cache, options);
      if (!r.ok || r.value) return r;
    }
    return FALSE;
  }
  return TRUE;
}

function testOne(section: Section, list: readonly string[], i: number, params: ExprParams, cache: ExprCache, options?: EvalOptions): Result<boolean> {
  const src = list[i]!;
  const compiled = compileExprCached(src, cache, options?.limits);
  if (!compiled.ok) return fail(sectionError(section, i, src, compiled.error));
  const r = evalExpr(compiled.value, params, options);
  return r.ok ? r : fail(sectionError(section, i, src, r.error));
}

const TRUE: Result<boolean> = Object.freeze({ ok: true as const, value: true });
const FALSE: Result<boolean> = Object.freeze({ ok: true as const, value: false });

/**
 * Compiles every expression of the criteria and returns all compile errors
 * (each with `path` such as `require-any[2]`); empty when all are valid.
 */
export function validateCriteria(criteria: Criteria | null | undefined, cache?: ExprCache): LangError[] {
  const errors: LangError[] = [];
  for (const section of ['require-all', 'require-none', 'require-any'] as const) {
    for (const [i, src] of (criteria?.[section] ?? []).entries()) {
      const r: Result<CompiledExpr> = cache ? compileExprCached(src, cache) : compileExpr(src);
      if (!r.ok) errors.push(sectionError(section, i, src, r.error));
    }
  }
  return errors;
}

function sectionError(section: Section, index: number, src: string, error: LangError): LangError {
  return {
    ...error,
    message: `${section} \`${src}\`: ${error.message}`,
    path: `${section}[${index}]`,
  };
}

function missingNote(v: Verdict): string {
  return v.missing !== undefined ? ` (\`${v.missing}\` is not set)` : '';
}
