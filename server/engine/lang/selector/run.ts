/**
 * Runs a compiled selector against a hook's context (reference/axebow.md §2).
 *
 * References are pushed unresolved and each operator decides what to do
 * with them: `::dup`, `::pop` and `::swap` move them as they are, `::exists`
 * and `::getor` ask whether they resolve, and every other operator resolves
 * its operands (left operand first) and fails with `MissingReference` if one
 * does not. The final value is resolved the same way, so `["$.user.admin"]`
 * is a valid selector when that field is a boolean.
 *
 * The context is hostile-safe: paths read own data properties only (never
 * `__proto__`, `constructor` or a getter of the prototype chain), an index
 * reads arrays only and a key reads non-array objects only, nothing is ever
 * written, and equality walks iteratively with cycle detection, so no input
 * makes this throw or hang. The first error stops the run.
 */

import { BudgetMeter, type Budget, type OverBudget } from '../budget';
import { selectorError, typeName, type CompiledItem, type CompiledSelector, type SelectorContext, type SelectorError } from './types';

export type RunResult = { ok: true; value: boolean } | { ok: false; error: SelectorError };

type RefItem = Extract<CompiledItem, { kind: 'ref' }>;
/** A stack slot: a reference still to resolve, or a value. */
type Slot = { ref: RefItem } | { ref?: undefined; value: unknown };

/** Internal control flow; caught in `runSelector`, never leaves this module. */
class SelectorFailure extends Error {
  constructor(readonly error: SelectorError) {
    super(error.message);
  }
}

const MISSING: unique symbol = Symbol('missing');

/** A program is short (MAX_PROGRAM_LENGTH) and loops nowhere; the budget is the host's deadline, and a cap on operations for whoever wants one. */
const selectorOverBudget: OverBudget = (kind, limit, pc) =>
  new SelectorFailure(selectorError.overBudget(kind === 'time' ? 'time' : 'steps', limit, pc));

export function runSelector(compiled: CompiledSelector, ctx: SelectorContext, budget: Budget = {}): RunResult {
  const at = { pc: 0, op: '(result)' };
  try {
    return { ok: true, value: run(compiled, ctx, at, new BudgetMeter(budget, selectorOverBudget)) };
  } catch (e) {
    if (e instanceof SelectorFailure) return { ok: false, error: e.error };
    // Only exotic context objects (a Proxy whose traps throw) get here; JSON data never does.
    return { ok: false, error: selectorError.type(at.op, 'JSON data', 'a value that could not be read', at.pc) };
  }
}

function run(compiled: CompiledSelector, ctx: SelectorContext, at: { pc: number; op: string }, meter: BudgetMeter): boolean {
  const stack: Slot[] = [];
  const items = compiled.items;
  for (let pc = 0; pc < items.length; pc++) {
    const item = items[pc]!;
    at.pc = pc;
    meter.step(pc);
    meter.time(pc);
    if (item.kind === 'lit') {
      stack.push({ value: item.value });
      continue;
    }
    if (item.kind === 'ref') {
      stack.push({ ref: item });
      continue;
    }
    const op = item.op;
    at.op = op;
    const take = (n: number): Slot[] => {
      if (stack.length < n) throw new SelectorFailure(selectorError.underflow(op, n, stack.length, pc));
      return stack.splice(stack.length - n, n);
    };
    const value = (s: Slot): unknown => {
      if (!s.ref) return s.value;
      const v = resolve(s.ref, ctx);
      if (v === MISSING) throw new SelectorFailure(selectorError.missing(s.ref.path, pc));
      return v;
    };
    const values2 = (): [unknown, unknown] => {
      const [a, b] = take(2) as [Slot, Slot];
      const va = value(a);
      return [va, value(b)];
    };
    const bad = (expected: string, got: string): never => {
      throw new SelectorFailure(selectorError.type(op, expected, got, pc));
    };

    switch (op) {
      case '::dup': {
        const [x] = take(1) as [Slot];
        stack.push(x, x);
        break;
      }
      case '::pop':
        take(1);
        break;
      case '::swap': {
        const [a, b] = take(2) as [Slot, Slot];
        stack.push(b, a);
        break;
      }
      case '::exists': {
        const [x] = take(1) as [Slot];
        stack.push({ value: x.ref ? resolve(x.ref, ctx) !== MISSING : x.value !== null });
        break;
      }
      case '::getor': {
        // The default is kept as it is (a reference stays a reference), so fallbacks chain:
        // ["$.a", "$.b", "::getor", 0, "::getor"] reads $.a, else $.b, else 0.
        const [x, d] = take(2) as [Slot, Slot];
        if (x.ref) {
          const v = resolve(x.ref, ctx);
          stack.push(v === MISSING ? d : { value: v });
        } else {
          stack.push(x.value === null ? d : x);
        }
        break;
      }
      case '::num': {
        const [x] = take(1) as [Slot];
        const v = value(x);
        const expected = 'a number, a boolean or a numeric string';
        if (typeof v === 'number') stack.push({ value: v });
        else if (typeof v === 'boolean') stack.push({ value: v ? 1 : 0 });
        else if (typeof v === 'string') {
          const n = parseQuantity(v);
          if (n === null) bad(expected, `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v)}`);
          stack.push({ value: n });
        } else bad(expected, typeName(v));
        break;
      }
      case '::bool': {
        const [x] = take(1) as [Slot];
        stack.push({ value: truthy(value(x)) });
        break;
      }
      case '::eq':
      case '::neq': {
        const [a, b] = values2();
        const eq = jsonEqual(a, b);
        stack.push({ value: op === '::eq' ? eq : !eq });
        break;
      }
      case '::gt':
      case '::gte':
      case '::lt':
      case '::lte': {
        const [a, b] = values2();
        let c: number;
        if (typeof a === 'number' && typeof b === 'number') c = a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
        else if (typeof a === 'string' && typeof b === 'string') c = compareCodePoints(a, b);
        else return bad('2 numbers or 2 strings', `${typeName(a)} and ${typeName(b)}`);
        // NaN (only from a non-JSON context) is unordered: every comparison is false.
        const r = op === '::gt' ? c > 0 : op === '::gte' ? c >= 0 : op === '::lt' ? c < 0 : c <= 0;
        stack.push({ value: r });
        break;
      }
      case '::not': {
        const [x] = take(1) as [Slot];
        const v = value(x);
        if (typeof v !== 'boolean') bad('a boolean', typeName(v));
        stack.push({ value: !v });
        break;
      }
      case '::and':
      case '::nand':
      case '::or':
      case '::nor':
      case '::xor': {
        const [a, b] = values2();
        if (typeof a !== 'boolean' || typeof b !== 'boolean') return bad('2 booleans', `${typeName(a)} and ${typeName(b)}`);
        const r = op === '::and' ? a && b : op === '::nand' ? !(a && b) : op === '::or' ? a || b : op === '::nor' ? !(a || b) : a !== b;
        stack.push({ value: r });
        break;
      }
      default: {
        const never: never = op;
        throw new SelectorFailure(selectorError.unknownOp(String(never), pc));
      }
    }
  }

  at.pc = items.length;
  at.op = '(result)';
  if (stack.length !== 1) throw new SelectorFailure(selectorError.badResult(stack.length));
  const top = stack[0]!;
  let result: unknown;
  if (top.ref) {
    result = resolve(top.ref, ctx);
    if (result === MISSING) throw new SelectorFailure(selectorError.missing(top.ref.path, items.length));
  } else result = top.value;
  if (typeof result !== 'boolean') throw new SelectorFailure(selectorError.badResult(1, typeName(result)));
  return result;
}

/** An own data property, or MISSING. `undefined` counts as missing: JSON has no such value. */
function own(o: object, key: string | number): unknown {
  const d = Object.getOwnPropertyDescriptor(o, key);
  if (!d || !('value' in d) || d.value === undefined) return MISSING;
  return d.value;
}

/** A dot segment that is an array index: decimal, no sign, no leading zeros (as `[n]` requires). */
const DOT_INDEX = /^(0|[1-9][0-9]{0,14})$/;

function resolve(ref: RefItem, ctx: SelectorContext): unknown {
  if (ctx === null || typeof ctx !== 'object') return MISSING;
  let cur = own(ctx, ref.root);
  for (const written of ref.segments) {
    if (cur === MISSING) return MISSING;
    // The document's grammar (§5.11) has dot segments only: `.0` on an array is its first element, as `[0]` is.
    const seg = typeof written === 'string' && Array.isArray(cur) && DOT_INDEX.test(written) ? Number(written) : written;
    if (typeof seg === 'number') {
      if (!Array.isArray(cur) || seg >= cur.length) return MISSING;
    } else if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) {
      return MISSING;
    }
    cur = own(cur, seg);
  }
  return cur;
}

/** `::bool`: false for false, null, 0, NaN, "", [] and {}; true otherwise. */
function truthy(v: unknown): boolean {
  if (v === false || v === null || v === undefined || v === 0 || v === '') return false;
  if (typeof v === 'number') return !Number.isNaN(v);
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return jsonKeys(v).length > 0;
  return true;
}

/** Keys a JSON object has: own enumerable string keys whose value is not `undefined`. */
function jsonKeys(o: object): string[] {
  return Object.keys(o).filter((k) => own(o, k) !== MISSING);
}

/** Orders strings by Unicode code point (JS `<` compares UTF-16 units, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return i < a.length ? 1 : j < b.length ? -1 : 0;
}

/**
 * Deep JSON equality without coercion (`"1"` is not `1`, `[]` is not `{}`);
 * numbers compare by value. Iterative, and a pair of objects already under
 * comparison counts as equal, so deep or cyclic contexts neither overflow the
 * call stack nor loop.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const work: [unknown, unknown][] = [[a, b]];
  const seen = new Map<object, Set<object>>();
  while (work.length > 0) {
    const [x, y] = work.pop()!;
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    let pairs = seen.get(x);
    if (pairs?.has(y)) continue;
    if (!pairs) seen.set(x, (pairs = new Set()));
    pairs.add(y);
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        const vx = own(x, i);
        const vy = own(y, i);
        if ((vx === MISSING) !== (vy === MISSING)) return false;
        work.push([vx, vy]);
      }
    } else {
      const kx = jsonKeys(x);
      const ky = jsonKeys(y);
      if (kx.length !== ky.length) return false;
      for (const k of kx) {
        const vy = own(y, k);
        if (vy === MISSING) return false;
        work.push([own(x, k), vy]);
      }
    }
  }
  return true;
}

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE]))?$/;
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/**
 * `::num` on a string: trimmed, then a decimal (`1.5`, `-2`, `.5`, `1e3`) or
 * a Kubernetes quantity (`500m` = 0.5, `4Gi` = 4·2³⁰, `1G` = 10⁹; binary
 * suffixes Ki…Ei, decimal n u m k M G T P E). Decimal suffixes shift the
 * exponent rather than multiply, so `500m` is exactly 0.5 and `0.1k` exactly
 * 100. Null when the text is none of these or the result is not finite.
 */
export function parseQuantity(text: string): number | null {
  const m = QUANTITY.exec(text.trim());
  if (!m) return null;
  const [, sign, digits, exponent, binary, decimal] = m;
  const mantissa = `${sign}${digits}`;
  let n: number;
  if (exponent) n = Number(mantissa + exponent);
  else if (binary) n = Number(mantissa) * 2 ** BINARY[binary]!;
  else if (decimal) n = Number(`${mantissa}e${DECIMAL[decimal]!}`);
  else n = Number(mantissa);
  return Number.isFinite(n) ? n : null;
}
