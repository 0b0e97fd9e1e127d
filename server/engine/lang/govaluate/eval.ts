/**
 * govaluate's evaluation: walks the syntax tree over the parameters with
 * govaluate's types (every number a float64, Go's `%v` when `+` meets a
 * string, reflect.DeepEqual for `==`), counting steps and built strings
 * against the evaluation's budget.
 */

import { BudgetMeter, type Budget, type OverBudget } from '../budget';
import { compareGoStrings, parseGoBool, parseGoInt } from '../gofmt';
import { formatValueV, isGoMapObject } from '../gosprint';
import { compileRe2 } from '../re2';
import { LangFailure } from '../result';
import type { ExprNode } from './parse';

/** Parameters: a plain object (top-level labels and objects such as `Bundle`). */
export type ExprParams = Readonly<Record<string, unknown>>;

export interface ExprOutcome {
  value: boolean;
  /** Set when the result is false because this parameter was missing. */
  missing?: string;
}


/**
 * Aptomi's label coercion (`params.go`): strconv.Atoi first (optional sign and
 * digits: "10" → 10, "1.5" is not an int), then strconv.ParseBool
 * (`t`, `TRUE`, `False`, ...), else the string itself. "1" and "0" are ints.
 */
export function coerceLabel(s: string): number | boolean | string {
  const n = parseGoInt(s);
  if (n !== undefined) return n;
  const b = parseGoBool(s);
  if (b !== undefined) return b;
  return s;
}

/** Coerces every value of a label set (see `coerceLabel`). */
export function coerceLabelSet(labels: Readonly<Record<string, string>>): Record<string, number | boolean | string> {
  // A keys loop, not Object.entries: this runs for every claim at every
  // level, and the entry arrays were most of its cost.
  const out: Record<string, number | boolean | string> = {};
  const keys = Object.keys(labels);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    out[k] = coerceLabel(labels[k]!);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Evaluation

/**
 * Evaluates a syntax tree to a boolean. Throws `LangFailure` (and gofmt's
 * `FormatLimitError`), which the public API turns into a `Result`.
 */
export function evaluate(root: ExprNode, params: ExprParams, coerceLabels: boolean, budget: Budget, regexWork: number): ExprOutcome {
  const ev = new Evaluator(params, coerceLabels, budget, regexWork);
  const v = ev.eval(root);
  if (v === MISSING) return { value: false, missing: ev.missingName };
  if (typeof v !== 'boolean') {
    throw new LangFailure({
      code: 'expr_type_error',
      message: `expression must evaluate to a boolean, got ${describe(v)}`,
    });
  }
  return { value: v };
}

/** An evaluation's budget: `steps` counts nodes evaluated, `output` caps the strings `+` builds. */
const evalOverBudget: OverBudget = (kind, limit, at) => {
  switch (kind) {
    case 'steps':
      return new LangFailure({ code: 'expr_limit', message: `expression evaluation exceeded ${limit} steps`, column: at + 1 });
    case 'output':
      return new LangFailure({ code: 'expr_limit', message: `string longer than ${limit} characters`, column: at + 1 });
    case 'depth':
      return new LangFailure({ code: 'expr_limit', message: `expression nests deeper than ${limit} levels`, column: at + 1 });
    case 'volume':
      return new LangFailure({ code: 'expr_limit', message: `expression evaluation built more than ${limit} characters in all`, column: at + 1 });
    case 'time':
      return new LangFailure({ code: 'expr_limit', message: `expression evaluation ran out of its time (${limit} ms)`, column: at + 1 });
  }
};

/** Marks "a parameter was missing"; propagates outward like govaluate's error. */
const MISSING: unique symbol = Symbol('missing');

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (typeof v === 'number') return `number ${formatValueV(v, 'float64')}`;
  if (typeof v === 'boolean') return `bool ${v}`;
  if (Array.isArray(v)) return `list ${formatValueV(v, 'float64')}`;
  return `map ${formatValueV(v, 'float64')}`;
}

function typeError(message: string, pos: number): LangFailure {
  return new LangFailure({ code: 'expr_type_error', message, column: pos + 1 });
}

/** Deeper than this, `==` on nested values gives up (cyclic parameters). */
const MAX_EQUAL_DEPTH = 100;

/** Go's reflect.DeepEqual over JSON-like values (govaluate's `==`). */
function deepEqual(a: unknown, b: unknown, pos: number, depth = 0): boolean {
  if (a === b) return true; // NaN never gets here: NaN !== NaN, as in DeepEqual
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (depth > MAX_EQUAL_DEPTH) {
    throw new LangFailure({ code: 'expr_limit', message: `'==' compared values nested deeper than ${MAX_EQUAL_DEPTH} levels`, column: pos + 1 });
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i], pos, depth + 1));
  }
  const ea = entriesOf(a);
  const eb = entriesOf(b);
  if (!ea || !eb || ea.size !== eb.size) return false;
  for (const [k, v] of ea) {
    if (!eb.has(k) || !deepEqual(v, eb.get(k), pos, depth + 1)) return false;
  }
  return true;
}

function entriesOf(v: object): Map<string, unknown> | undefined {
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [String(k), x]));
  if (isGoMapObject(v)) return new Map(Object.entries(v));
  return undefined;
}

/** Go's `==` on interface values (used by `in`): scalars by value only. */
function scalarEqual(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return b === null || b === undefined;
  return typeof a !== 'object' && a === b;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Own keys only: `constructor` or `__proto__` must never resolve to JS internals. */
function lookup(container: unknown, key: string): unknown {
  if (isGoMapObject(container)) return hasOwn.call(container, key) ? container[key] : MISSING;
  if (container instanceof Map) return container.has(key) ? container.get(key) : MISSING;
  return MISSING; // fields of strings, numbers, lists or nil do not exist
}

function flipFirstLetter(name: string): string {
  // Rules test `bundle.Name` (for `Bundle`) on every service level of every
  // claim: a fresh string each time cost its allocation and its hashing in
  // the lookup. Names come from expression sources, so the set stays small.
  let flipped = flippedNames.get(name);
  if (flipped === undefined) {
    const first = name.charAt(0);
    flipped = (first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase()) + name.slice(1);
    if (flippedNames.size >= MAX_FLIPPED_NAMES) flippedNames.clear();
    flippedNames.set(name, flipped);
  }
  return flipped;
}

/** Bounds `flippedNames` however many distinct expressions a long-lived process compiles. */
const MAX_FLIPPED_NAMES = 10_000;
const flippedNames = new Map<string, string>();

/** float64 → int64 the way Go does on amd64 (NaN/Inf/out of range → min int64). */
function toInt64(x: number): bigint {
  if (!Number.isFinite(x) || Math.abs(x) >= 9223372036854775808) return -9223372036854775808n;
  return BigInt(Math.trunc(x));
}

function toUint64(x: number): bigint {
  return BigInt.asUintN(64, toInt64(x));
}

class Evaluator {
  private readonly meter: BudgetMeter;
  missingName: string | undefined;

  constructor(
    private readonly params: ExprParams,
    private readonly coerce: boolean,
    budget: Budget,
    private readonly regexWork: number,
  ) {
    this.meter = new BudgetMeter(budget, evalOverBudget);
  }

  private missing(name: string): typeof MISSING {
    this.missingName ??= name;
    return MISSING;
  }

  eval(n: ExprNode): unknown {
    this.meter.step(n.pos);
    switch (n.k) {
      case 'lit':
        return n.v;
      case 'param': {
        const v = lookup(this.params, n.name);
        if (v === MISSING || v === undefined) return this.missing(n.name);
        return this.coerce && typeof v === 'string' ? coerceLabel(v) : v;
      }
      case 'access':
        return this.evalAccess(n.path);
      case 'unary':
        return this.evalUnary(n);
      case 'binary':
        return this.evalBinary(n);
      case 'in': {
        // Arguments are evaluated left to right; a missing one stops everything.
        const values: unknown[] = [];
        for (const arg of n.args) {
          const v = this.eval(arg);
          if (v === MISSING) return MISSING;
          values.push(v);
        }
        const [x, ...candidates] = values;
        return candidates.some((c) => scalarEqual(x, c));
      }
      case 'list': {
        const values: unknown[] = [];
        for (const item of n.items) {
          const v = this.eval(item);
          if (v === MISSING) return MISSING;
          values.push(v);
        }
        return values;
      }
    }
  }

  private evalAccess(path: string[]): unknown {
    // Indexing, not `[root, ...fields]`: the rest array was an allocation per evaluation on the resolver's hot path.
    const root = path[0] ?? '';
    let v = lookup(this.params, root);
    if (v === MISSING) v = lookup(this.params, flipFirstLetter(root));
    if (v === MISSING || v === undefined) return this.missing(path.join('.'));
    for (let i = 1; i < path.length; i++) {
      v = lookup(v, path[i]!);
      if (v === MISSING || v === undefined) return this.missing(path.join('.'));
    }
    return v;
  }

  private evalUnary(n: Extract<ExprNode, { k: 'unary' }>): unknown {
    const x = this.eval(n.x);
    if (x === MISSING) return MISSING;
    switch (n.op) {
      case '-':
        if (typeof x !== 'number') throw typeError(`prefix '-' needs a number, got ${describe(x)}`, n.pos);
        return -x;
      case '!':
        if (typeof x !== 'boolean') throw typeError(`prefix '!' needs a boolean, got ${describe(x)}`, n.pos);
        return !x;
      case '~':
        if (typeof x !== 'number') throw typeError(`prefix '~' needs a number, got ${describe(x)}`, n.pos);
        return Number(BigInt.asIntN(64, ~toInt64(x)));
    }
  }

  private evalBinary(n: Extract<ExprNode, { k: 'binary' }>): unknown {
    const l = this.eval(n.l);
    if (l === MISSING) return MISSING;

    // Short-circuiting operators decide before (or instead of) the right side.
    switch (n.op) {
      case '&&':
      case '||': {
        if (n.op === '&&' ? l === false : l === true) return l;
        const r = this.eval(n.r);
        if (r === MISSING) return MISSING;
        if (typeof l !== 'boolean' || typeof r !== 'boolean') {
          const bad = typeof l !== 'boolean' ? l : r;
          throw typeError(`'${n.op}' needs booleans, got ${describe(bad)}`, n.pos);
        }
        return r;
      }
      case '?': {
        // govaluate: `c ? x` yields x when c is true, nil otherwise; `:` then
        // picks its right side only when the left is nil.
        let r: unknown = null;
        if (l !== false) {
          r = this.eval(n.r);
          if (r === MISSING) return MISSING;
        }
        if (typeof l !== 'boolean') throw typeError(`'?' needs a boolean condition, got ${describe(l)}`, n.pos);
        return l ? r : null;
      }
      case ':':
      case '??':
        return l !== null ? l : this.eval(n.r);
    }

    const r = this.eval(n.r);
    if (r === MISSING) return MISSING;
    switch (n.op) {
      case '==':
        return this.equals(n, l, r);
      case '!=':
        return !this.equals(n, l, r);
      case '>':
      case '>=':
      case '<':
      case '<=':
        return compare(n, l, r);
      case '=~':
      case '!~':
        return this.regexMatch(n, l, r) === (n.op === '=~');
      case 'IN':
        if (!Array.isArray(r)) throw typeError(`right side of 'IN' must be a list like ('a', 'b'), got ${describe(r)}`, n.pos);
        return r.some((c) => scalarEqual(l, c));
      case '+':
        if (typeof l === 'number' && typeof r === 'number') return l + r;
        if (typeof l === 'string' || typeof r === 'string') {
          const s = formatValueV(l, 'float64') + formatValueV(r, 'float64');
          this.meter.output(s.length, n.pos);
          return s;
        }
        throw typeError(`'+' needs two numbers or a string, got ${describe(l)} and ${describe(r)}`, n.pos);
    }

    // Everything left is arithmetic or bitwise on float64 operands.
    if (typeof l !== 'number' || typeof r !== 'number') {
      const bad = typeof l !== 'number' ? l : r;
      throw typeError(`'${n.op}' needs numbers, got ${describe(bad)}`, n.pos);
    }
    switch (n.op) {
      case '-': return l - r;
      case '*': return l * r;
      case '/': return l / r;
      case '%': return l % r; // same as Go's math.Mod (sign of the dividend)
      case '**': return goPow(l, r);
      case '&': return Number(BigInt.asIntN(64, toInt64(l) & toInt64(r)));
      case '|': return Number(BigInt.asIntN(64, toInt64(l) | toInt64(r)));
      case '^': return Number(BigInt.asIntN(64, toInt64(l) ^ toInt64(r)));
      case '<<': {
        const count = toUint64(r);
        return count >= 64n ? 0 : Number(BigInt.asUintN(64, toUint64(l) << count));
      }
      case '>>': {
        const count = toUint64(r);
        return count >= 64n ? 0 : Number(toUint64(l) >> count);
      }
    }
    throw typeError(`unknown operator '${n.op}'`, n.pos);
  }

  private equals(n: Extract<ExprNode, { k: 'binary' }>, l: unknown, r: unknown): boolean {
    // Keelson: a parameter's raw string meets a boolean -> read it as a bool.
    if (typeof l === 'string' && typeof r === 'boolean' && isParamRef(n.l)) {
      return parseGoBool(l) === r;
    }
    if (typeof r === 'string' && typeof l === 'boolean' && isParamRef(n.r)) {
      return parseGoBool(r) === l;
    }
    return deepEqual(l, r, n.pos);
  }

  private regexMatch(n: Extract<ExprNode, { k: 'binary' }>, l: unknown, r: unknown): boolean {
    if (typeof l !== 'string') throw typeError(`left side of '${n.op}' must be a string, got ${describe(l)}`, n.pos);
    let re = n.re;
    if (!re) {
      if (typeof r !== 'string') throw typeError(`right side of '${n.op}' must be a string pattern, got ${describe(r)}`, n.pos);
      const compiled = compileRe2(r);
      if (!compiled.ok) throw typeError(compiled.error.message, n.r.pos);
      re = compiled.value;
    }
    const matched = re.test(l, this.regexWork);
    if (matched === undefined) {
      throw new LangFailure({ code: 'expr_limit', message: `regular expression '${re.source}' needed too much work`, column: n.pos + 1 });
    }
    return matched;
  }
}

function isParamRef(n: ExprNode): boolean {
  return n.k === 'param' || n.k === 'access';
}

function compare(n: Extract<ExprNode, { k: 'binary' }>, l: unknown, r: unknown): boolean {
  let c: number;
  if (typeof l === 'number' && typeof r === 'number') {
    if (Number.isNaN(l) || Number.isNaN(r)) return false;
    c = l - r;
  } else if (typeof l === 'string' && typeof r === 'string') {
    c = compareGoStrings(l, r);
  } else {
    throw typeError(
      `'${n.op}' compares two numbers or two strings, got ${describe(l)} and ${describe(r)}`,
      n.pos,
    );
  }
  switch (n.op) {
    case '>': return c > 0;
    case '>=': return c >= 0;
    case '<': return c < 0;
    default: return c <= 0;
  }
}

/** math.Pow differs from JS `**` on a few special cases. */
function goPow(x: number, y: number): number {
  if (x === 1) return 1; // Go: Pow(1, y) = 1 for any y, even NaN
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return x ** y;
}
