/**
 * Jinja templates of DM, rendered with nunjucks (the JavaScript port of
 * Jinja2's language).
 *
 * expandybird rendered with `Environment(loader=DictLoader(imports))` and the
 * resource as globals; here the loader serves the same imports from memory
 * (never nunjucks' FileSystemLoader: the engine reads no files), autoescape
 * is off (output is YAML, not HTML), and the few places where nunjucks is
 * more lenient than Jinja2 are brought in line during the render:
 *  - reading a member of an undefined value or None fails, as Jinja2's
 *    `Undefined` does (`{{ porcelain["x"] }}` is an error, not an empty string);
 *  - dicts, strings and lists answer the Python methods templates call
 *    (`items()`, `keys()`, `get()`, `upper()`, `startswith()`, ...), and
 *    nothing else: JavaScript's own methods (`'x'.repeat`, `.match`) are not
 *    reachable;
 *  - `*` repeats strings and lists, `+` joins lists, as in Python;
 *  - regular-expression literals (a nunjucks extension) are refused.
 *
 * The budget. A template is user input rendered on a resolver thread, so
 * everything that can cost time or memory is counted as it runs, against
 * one `BudgetMeter` (lang/budget.ts) shared by every template of an
 * expansion: a loop iteration, a call or an include is a step; every string
 * or list a filter, method or operator builds is checked against `output`
 * before it is built and counted, with what it reads, against `volume`; the
 * host's deadline is read as it goes. `{{ ''|center(10**9) }}` is refused
 * before a byte is allocated, never a 5 GB heap. The hooks are installed
 * into nunjucks' compiler and runtime once (`install`); they meter only
 * while `renderJinja` runs, which is synchronous.
 * nunjucks loads `fs`/`path` for loaders this module never constructs.
 */
import nunjucks from 'nunjucks';
import { BudgetMeter, type BudgetKind, type Deadline } from '../lang/budget';
import type { Json, TemplateContext } from './types';

export type Rendered = { ok: true; text: string } | { ok: false; message: string; limit?: boolean; budget?: BudgetKind };

export interface JinjaLimits {
  /** Largest template (and helper) source. */
  source: number;
  /** Largest rendered output, and largest string or list a template may build. */
  output: number;
  /** Largest `range()` a template may build. */
  range: number;
  /** Steps (loop iterations, calls, includes) one meter allows (default JINJA_STEPS). */
  steps?: number;
  /** Characters and items one meter allows to be read or built (default JINJA_VOLUME_PER_OUTPUT × output). */
  volume?: number;
  /** When the render must stop (the host's clock). */
  deadline?: Deadline;
}

/** Steps for one expansion's templates: far above what a configuration of 10,000 resources needs, and about a second of nunjucks. */
export const JINJA_STEPS = 1_000_000;
/** What an include or import costs in steps: a whole render's setup, a few dozen loop iterations' worth. */
const INCLUDE_STEPS = 64;
/** Deepest nesting of includes and imports (a template that includes itself goes no deeper, and no stack overflows). */
const INCLUDE_DEPTH = 32;
/** Volume, as a multiple of the output limit: what bounds memory (a few hundred MB at worst) and work on large values. */
export const JINJA_VOLUME_PER_OUTPUT = 32;

/** The meter for one expansion's templates (one per expansion: a shared one would let one deployment eat another's budget). */
export function jinjaMeter(limits: JinjaLimits): BudgetMeter {
  return new BudgetMeter(
    {
      steps: limits.steps ?? JINJA_STEPS,
      output: limits.output,
      depth: INCLUDE_DEPTH,
      volume: limits.volume ?? JINJA_VOLUME_PER_OUTPUT * limits.output,
      ...(limits.deadline ? { deadline: limits.deadline } : {}),
    },
    (kind, limit) => new OverBudget(kind, limit),
  );
}

/** Thrown by the meter; nunjucks wraps what it catches, so the render also remembers it (`Active.over`). */
class OverBudget extends Error {
  constructor(
    readonly kind: BudgetKind,
    readonly limit: number,
  ) {
    super(`over its ${kind} budget`);
  }
}

function overBudgetMessage(name: string, e: OverBudget, line: number | undefined): string {
  const where = line ? ` (line ${line})` : '';
  switch (e.kind) {
    case 'steps':
      return `Template '${name}' ran out of steps${where}: the expansion's templates may take ${e.limit} loop iterations, calls and includes in all.`;
    case 'output':
      return `Template '${name}' would build a string or list longer than the output limit of ${e.limit} characters or items${where}.`;
    case 'volume':
      return `Template '${name}' ran out of volume${where}: the expansion's templates may read or build ${e.limit} characters and items in all.`;
    case 'time':
      return `Template '${name}' ran out of time${where}: the expansion's templates have ${e.limit} ms.`;
    case 'depth':
      return `Template '${name}' nests includes and imports deeper than ${e.limit} levels${where}.`;
  }
}

interface LoaderSource { src: string; path: string; noCache: boolean }

/** The imports as nunjucks templates: `{% import 'helpers/common.jinja' %}` resolves by import name. */
class ImportsLoader {
  constructor(private readonly files: Map<string, string>, private readonly maxSource: number) {}

  getSource(name: string): LoaderSource | null {
    const src = this.files.get(name);
    if (src === undefined) return null;
    if (src.length > this.maxSource) throw new Error(`template '${name}' is ${src.length} characters long, over the limit of ${this.maxSource}`);
    return { src, path: name, noCache: false };
  }
}

// ---------------------------------------------------------------------------
// The render in progress

interface Active {
  meter: BudgetMeter;
  limits: JinjaLimits;
  /** The budget that ran out, if one did (nunjucks wraps the error it threw). */
  over?: OverBudget;
}

/** The render running now: renders are synchronous and never nest. */
let active: Active | undefined;

function meterNow(): BudgetMeter | undefined {
  return active?.meter;
}

/** Records an exhausted budget: `OverBudget` must win over whatever nunjucks makes of the error. */
function remember(e: unknown): void {
  if (e instanceof OverBudget && active && !active.over) active.over = e;
}

function guard<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    remember(e);
    throw e;
  }
}

// ---------------------------------------------------------------------------
// Sizes: what a value would cost as text, found without building the text

type SafeStringLike = { val: string; length: number };
type Runtime = {
  memberLookup: (obj: unknown, key: unknown) => unknown;
  callWrap: (obj: unknown, name: string, context: unknown, args: unknown[]) => unknown;
  suppressValue: (val: unknown, autoescape: boolean) => unknown;
  inOperator: (key: unknown, val: unknown) => boolean;
  SafeString: new (s: string) => SafeStringLike;
  [hook: string]: unknown;
};
const runtime = (nunjucks as unknown as { runtime: Runtime }).runtime;

function isSafeString(v: unknown): v is SafeStringLike {
  return v instanceof runtime.SafeString;
}

/** Deeper than this a value is not printed at all (JSON.stringify overflows its stack long before). */
const MAX_TEXT_DEPTH = 10_000;

/**
 * An upper-ish bound of the characters `String(v)` or JSON of `v` would
 * take, walking shared and cyclic structures as the text would (so
 * `[a, a]` nested thirty deep counts its 2^30 leaves), and giving up past
 * `limit` or MAX_TEXT_DEPTH. `indent` adds JSON's indentation per nesting
 * level. It visits each child when it gets to it, so its own time and
 * memory are bounded by `limit` too.
 */
function textSize(v: unknown, limit: number, indent = 0): number {
  // Finite whatever the budget: a cyclic value would otherwise be walked for ever.
  const cap = Math.min(limit, 2 ** 31);
  const frames: { items: readonly unknown[]; next: number; depth: number }[] = [];
  let total = 0;
  let x = v;
  let depth = 0;
  for (;;) {
    total += 1 + depth * indent;
    if (typeof x === 'string') total += x.length + 2;
    else if (isSafeString(x)) total += x.length + 2;
    else if (typeof x === 'number') total += 24;
    else if (Array.isArray(x)) {
      total += x.length;
      if (x.length > 0) frames.push({ items: x, next: 0, depth: depth + 1 });
    } else if (x !== null && typeof x === 'object') {
      const keys = Object.keys(x);
      for (const k of keys) total += k.length + 4;
      if (keys.length > 0) frames.push({ items: keys.map((k) => (x as Record<string, unknown>)[k]), next: 0, depth: depth + 1 });
    } else total += 5;
    if (total > cap || frames.length > MAX_TEXT_DEPTH) return cap + 1;
    let top = frames[frames.length - 1];
    while (top && top.next >= top.items.length) {
      frames.pop();
      top = frames[frames.length - 1];
    }
    if (!top) return total;
    x = top.items[top.next++];
    depth = top.depth;
  }
}

/** What reading `v` costs: its length (strings, lists) or key count (dicts); constants cost nothing. */
function shallowSize(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (isSafeString(v)) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v !== null && typeof v === 'object') return Object.keys(v).length;
  return 0;
}

/** Counts a value just built: strings and lists by length (checked against `output`), dicts by keys. */
function built<T>(m: BudgetMeter, v: T): T {
  if (typeof v === 'string' || isSafeString(v) || Array.isArray(v)) m.volume((v as { length: number }).length, 0);
  else if (v !== null && typeof v === 'object') m.volume(Object.keys(v).length, 0);
  return v;
}

/** The deep text size of `v`, counted, and refused when the text it would become is over `output`. */
function asText(m: BudgetMeter, v: unknown, indent = 0): number {
  if (typeof v === 'string') {
    m.volume(v.length, 0);
    return v.length;
  }
  const n = textSize(v, m.room(), indent);
  m.volume(n, 0);
  return n;
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (isSafeString(v)) return v.val;
  return String(v);
}

/** A value as `%s` and `{}` print it: Python's None, and no function's source. */
function asString(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'function') return '<function>';
  return str(v);
}

function int(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new Error(`${what} must be an integer, not ${JSON.stringify(v)}`);
  return v;
}

/** Non-overlapping occurrences of `sub` in `s` (Python's `str.count`); `''` occurs len+1 times. */
function occurrences(s: string, sub: string, max = Infinity): number {
  if (sub === '') return Math.min(s.length + 1, max);
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0 && n < max; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

/** Python's `str.replace`, sized before it is built. */
function pyReplace(m: BudgetMeter, s: string, old: string, neu: string, count?: unknown): string {
  const max = typeof count === 'number' && count >= 0 ? count : Infinity;
  m.volume(s.length, 0, false);
  const k = occurrences(s, old, max);
  m.volume(s.length + k * (neu.length - old.length), 0);
  if (k === 0) return s;
  if (old === '') {
    // 'ab'.replace('', '-') == '-a-b-'
    const chars = [...s];
    let out = '';
    for (let i = 0; i < chars.length; i++) out += i < k ? neu + chars[i] : chars[i];
    return k > chars.length ? out + neu : out;
  }
  let out = '';
  let from = 0;
  for (let i = 0, at = s.indexOf(old); i < k && at >= 0; i++, at = s.indexOf(old, from)) {
    out += s.slice(from, at) + neu;
    from = at + old.length;
  }
  return out + s.slice(from);
}

/** Python's `str.center/ljust/rjust`, sized before it is built. */
function pad(m: BudgetMeter, s: string, width: unknown, fill: unknown, how: 'center' | 'left' | 'right'): string {
  const w = int(width, 'the width');
  const f = fill === undefined ? ' ' : str(fill);
  if (f.length !== 1) throw new Error('the fill character must be exactly one character long');
  if (w <= s.length) return s;
  m.volume(w, 0);
  const total = w - s.length;
  // CPython's rule: an odd space goes left when the width is odd too, else right.
  const left = how === 'left' ? 0 : how === 'right' ? total : Math.floor(total / 2) + (total & w & 1);
  return f.repeat(left) + s + f.repeat(total - left);
}

// ---------------------------------------------------------------------------
// Python methods

/** Python methods of dicts, strings and lists that Jinja templates call. */
function pythonMethod(obj: unknown, key: string): ((...args: unknown[]) => unknown) | undefined {
  const m = meterNow();
  if (!m) return undefined;
  if (typeof obj === 'string' || isSafeString(obj)) {
    const s = str(obj);
    const read = () => m.volume(s.length, 0, false);
    const same = <T>(f: () => T) => () => {
      read();
      return built(m, f());
    };
    switch (key) {
      case 'upper': return same(() => s.toUpperCase());
      case 'lower': return same(() => s.toLowerCase());
      case 'title': return () => (m.volume(s.length * WORDY['title']!, 0, false), built(m, s.replace(/\w\S*/g, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())));
      case 'capitalize': return same(() => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase());
      case 'strip': return (chars?: unknown) => (read(), typeof chars === 'string' ? stripChars(s, chars, true, true) : s.trim());
      case 'lstrip': return (chars?: unknown) => (read(), typeof chars === 'string' ? stripChars(s, chars, true, false) : s.trimStart());
      case 'rstrip': return (chars?: unknown) => (read(), typeof chars === 'string' ? stripChars(s, chars, false, true) : s.trimEnd());
      case 'startswith': return (p: unknown) => s.startsWith(str(p));
      case 'endswith': return (p: unknown) => s.endsWith(str(p));
      case 'find': return (p: unknown) => (read(), s.indexOf(str(p)));
      case 'count': return (p: unknown) => (read(), occurrences(s, str(p)));
      case 'isdigit': return () => s.length > 0 && /^\d+$/.test(s);
      case 'split':
        return (sep?: unknown, maxsplit?: unknown) => {
          read();
          if (sep === undefined || sep === null) {
            const parts = s.trim().split(/\s+/).filter(Boolean);
            return built(m, typeof maxsplit === 'number' && maxsplit >= 0 && parts.length > maxsplit + 1 ? [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(' ')] : parts);
          }
          const by = str(sep);
          // Python refuses an empty separator; splitting into characters is `list(s)`.
          if (by === '') throw new Error('ValueError: empty separator');
          const max = typeof maxsplit === 'number' && maxsplit >= 0 ? maxsplit : Infinity;
          // Every part is made (and the tail joined again when maxsplit is given).
          m.volume(occurrences(s, by) + 1, 0);
          if (max === Infinity) return s.split(by);
          const parts = s.split(by);
          return parts.length > max + 1 ? [...parts.slice(0, max), parts.slice(max).join(by)] : parts;
        };
      case 'join':
        return (items: unknown) => {
          if (!Array.isArray(items)) return '';
          const n = asText(m, items);
          m.volume(n + Math.max(0, items.length - 1) * s.length, 0);
          return items.map(str).join(s);
        };
      case 'replace': return (a: unknown, b: unknown, count?: unknown) => pyReplace(m, s, str(a), str(b), count);
      case 'center': return (w: unknown, fill?: unknown) => pad(m, s, w, fill, 'center');
      case 'ljust': return (w: unknown, fill?: unknown) => pad(m, s, w, fill, 'left');
      case 'rjust': return (w: unknown, fill?: unknown) => pad(m, s, w, fill, 'right');
      case 'zfill':
        return (w: unknown) => {
          const sign = /^[+-]/.test(s) ? s[0]! : '';
          const padded = pad(m, s.slice(sign.length), int(w, 'the width') - sign.length, '0', 'right');
          return sign + padded;
        };
      case 'format': return (...args: unknown[]) => pyFormat(m, s, args);
      default: return undefined;
    }
  }
  if (Array.isArray(obj)) {
    const list = obj;
    switch (key) {
      // The list grows by what is added (counted), and may grow no longer than `output`.
      case 'append': return (x: unknown) => { m.output(list.length + 1, 0); m.volume(1, 0, false); list.push(x); return null; };
      case 'extend': return (xs: unknown) => { if (Array.isArray(xs)) { m.output(list.length + xs.length, 0); m.volume(xs.length, 0, false); const n = xs.length; for (let i = 0; i < n; i++) list.push(xs[i]); } return null; };
      case 'index': return (x: unknown) => (m.volume(list.length, 0, false), list.indexOf(x));
      case 'count': return (x: unknown) => (m.volume(list.length, 0, false), list.filter((y) => y === x).length);
      default: return undefined;
    }
  }
  if (typeof obj === 'object' && obj !== null) {
    const dict = obj as Record<string, unknown>;
    const keys = () => { const k = Object.keys(dict); m.volume(k.length, 0); return k; };
    switch (key) {
      case 'items': case 'iteritems': return () => keys().map((k) => [k, dict[k]]);
      case 'keys': case 'iterkeys': return () => keys();
      case 'values': case 'itervalues': return () => keys().map((k) => dict[k]);
      case 'get': return (k: unknown, d: unknown = null) => (Object.hasOwn(dict, String(k)) ? dict[String(k)] : d);
      case 'has_key': return (k: unknown) => Object.hasOwn(dict, String(k));
      case 'update': return (other: unknown) => { if (other && typeof other === 'object') { m.volume(shallowSize(other), 0, false); Object.assign(dict, other); } return null; };
      default: return undefined;
    }
  }
  return undefined;
}

function stripChars(s: string, chars: string, left: boolean, right: boolean): string {
  let a = 0;
  let b = s.length;
  while (left && a < b && chars.includes(s[a]!)) a++;
  while (right && b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/**
 * Python's `str.format`, the common part: `{}`, `{0}`, `{name}` with a spec
 * `[[fill]align][0][width][.precision][type]`. Every field's width is
 * checked before the field is built.
 */
function pyFormat(m: BudgetMeter, template: string, args: unknown[]): string {
  // nunjucks passes keyword arguments as a trailing object marked __keywords.
  const last = args[args.length - 1] as Record<string, unknown> | undefined;
  const kwargs = last && typeof last === 'object' && (last as { __keywords?: boolean }).__keywords ? (args.pop(), last) : {};
  m.volume(template.length, 0, false);
  let auto = 0;
  let size = 0;
  const out = template.replace(/\{\{|\}\}|\{([^{}:!]*)(?:!([rs]))?(?::([^{}]*))?\}/g, (whole, field: string | undefined, _conv, spec: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const name = field ?? '';
    const value = name === '' ? args[auto++] : /^\d+$/.test(name) ? args[Number(name)] : Object.hasOwn(kwargs, name) ? kwargs[name] : undefined;
    const text = formatField(m, value, spec ?? '');
    size += text.length;
    m.output(size, 0);
    return text;
  });
  return built(m, out);
}

function formatField(m: BudgetMeter, value: unknown, spec: string): string {
  const s = /^(?:(.)?([<>^]))?(0)?(\d+)?(?:\.(\d+))?([sdfxXob%])?$/.exec(spec);
  if (!s) throw new Error(`ValueError: invalid format specifier '${spec}'`);
  const [, fill, align, zero, width, precision, type] = s;
  let text: string;
  if (type === 'f' || type === '%') text = (Number(value) * (type === '%' ? 100 : 1)).toFixed(precision ? Number(precision) : 6) + (type === '%' ? '%' : '');
  else if (type === 'd') text = String(Math.trunc(Number(value)));
  else if (type === 'x' || type === 'X' || type === 'o' || type === 'b') {
    text = Math.trunc(Number(value)).toString(type === 'o' ? 8 : type === 'b' ? 2 : 16);
    if (type === 'X') text = text.toUpperCase();
  } else {
    asText(m, value);
    text = asString(value);
    if (precision) text = text.slice(0, Number(precision));
  }
  const w = width ? Number(width) : 0;
  if (w <= text.length) return text;
  m.volume(w, 0);
  const numeric = typeof value === 'number';
  const how = align ?? (numeric ? '>' : '<');
  const f = zero && !align ? '0' : (fill ?? ' ');
  const total = w - text.length;
  const left = how === '<' ? 0 : how === '>' ? total : Math.floor(total / 2);
  return f.repeat(left) + text + f.repeat(total - left);
}

// ---------------------------------------------------------------------------
// Member lookup: own data and Python methods only

/**
 * Names that lead from a template value to JavaScript's machinery
 * (`range.constructor` is the Function constructor: code on the server).
 * nunjucks is no sandbox; templates come from policy authors and API
 * callers, so these are refused whatever they are looked up on, and
 * functions have no members at all.
 */
const UNSAFE_MEMBERS = new Set(['constructor', '__proto__', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__', 'caller', 'callee', 'arguments']);

function jinjaMemberLookup(obj: unknown, key: unknown): unknown {
  if (obj === undefined || obj === null) {
    throw new Error(`${obj === null ? 'None' : 'an undefined value'} has no attribute or item ${JSON.stringify(String(key))}`);
  }
  const k = String(key);
  if (UNSAFE_MEMBERS.has(k) || typeof obj === 'function') throw new Error(`${JSON.stringify(k)} is not available in templates`);
  if (typeof obj === 'string' || isSafeString(obj) || Array.isArray(obj)) {
    const method = pythonMethod(obj, k);
    if (method) return method;
    // An item (Python's negative indexes too) or the length; never one of JavaScript's methods (`'x'.repeat(10**9)`).
    const seq: string | unknown[] = Array.isArray(obj) ? obj : str(obj);
    if (k === 'length') return seq.length;
    if (/^-?\d+$/.test(k)) {
      const i = Number(k);
      return seq[i < 0 ? seq.length + i : i];
    }
    return undefined;
  }
  if (typeof obj === 'object') {
    if (Object.hasOwn(obj, k)) return (obj as Record<string, unknown>)[k];
    return pythonMethod(obj, k);
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Operators, as Python has them, sized before they build

function add(a: unknown, b: unknown): unknown {
  const m = meterNow();
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (!m) return (a as string) + (b as string);
  if (Array.isArray(a) && Array.isArray(b)) {
    m.volume(a.length + b.length, 0);
    return a.concat(b);
  }
  return concat(a, b);
}

function concat(a: unknown, b: unknown): string {
  const m = meterNow();
  if (m) m.volume(asText(m, a) + asText(m, b), 0);
  return (a as string) + '' + (b as string);
}

function multiply(a: unknown, b: unknown): unknown {
  const m = meterNow();
  const [seq, n] = typeof b === 'number' && (typeof a === 'string' || isSafeString(a) || Array.isArray(a)) ? [a, b] : typeof a === 'number' && (typeof b === 'string' || isSafeString(b) || Array.isArray(b)) ? [b, a] : [undefined, undefined];
  if (seq === undefined || !m) return (a as number) * (b as number);
  const times = Math.max(0, int(n, 'a sequence can only be multiplied by an integer; the count'));
  const length = (seq as { length: number }).length;
  m.volume(length * times, 0);
  if (Array.isArray(seq)) {
    const out = new Array<unknown>(length * times);
    for (let i = 0; i < out.length; i++) out[i] = seq[i % length];
    return out;
  }
  return str(seq).repeat(times);
}

function compare(a: unknown, op: string, b: unknown): boolean {
  // Comparing two long strings reads them.
  const m = meterNow();
  if (m && typeof a === 'string' && typeof b === 'string') m.volume(Math.min(a.length, b.length), 0, false);
  switch (op) {
    case '==': return a == b; // eslint-disable-line eqeqeq
    case '===': return a === b;
    case '!=': return a != b; // eslint-disable-line eqeqeq
    case '!==': return a !== b;
    case '<': return (a as number) < (b as number);
    case '>': return (a as number) > (b as number);
    case '<=': return (a as number) <= (b as number);
    case '>=': return (a as number) >= (b as number);
    default: throw new Error(`unknown comparison ${op}`);
  }
}

// ---------------------------------------------------------------------------
// Filters: every one counted; those that can grow their input sized first

type Filter = (this: unknown, ...args: unknown[]) => unknown;
/** How a filter reads its input: not at all, its top level, sorting it, or as the text it becomes. */
type Reads = 'nothing' | 'top' | 'sort' | 'text';
const FILTER_READS: Record<string, Reads> = {
  abs: 'nothing', default: 'nothing', d: 'nothing', first: 'nothing', last: 'nothing', length: 'nothing', float: 'nothing', int: 'nothing', round: 'nothing', random: 'nothing',
  batch: 'top', list: 'top', reverse: 'top', select: 'top', reject: 'top', selectattr: 'top', rejectattr: 'top', slice: 'top',
  sort: 'sort', dictsort: 'sort', groupby: 'sort',
};

/**
 * Filters that work word by word (a regular expression or a callback per
 * word) cost far more per character than a copy: measured against `upper`,
 * `title` is ~200 times slower, `urlize` ~400. Their input counts this many
 * times over, so that a few calls on megabytes exhaust the volume rather
 * than the clock.
 */
const WORDY: Record<string, number> = { urlize: 64, title: 32, wordcount: 16, striptags: 16, wordwrap: 8, escape: 4, e: 4, forceescape: 4, nl2br: 4, urlencode: 4 };

/** What a filter will build, for the filters whose arguments can make it far larger than their input. */
function grows(name: string, input: unknown, size: number, args: unknown[]): number {
  const n = shallowSize(input);
  switch (name) {
    case 'center': return Math.max(size, Number(args[0]) || 80);
    case 'indent': return size + (occurrences(str(input ?? ''), '\n') + 1) * (Number(args[0]) || 4);
    case 'replace': {
      const [old, neu, count] = args;
      if (typeof old !== 'string' && typeof old !== 'number') return size;
      const k = occurrences(str(input ?? ''), String(old), typeof count === 'number' && count >= 0 ? count : Infinity);
      return size + k * Math.max(0, str(neu ?? '').length);
    }
    case 'join': return size + n * str(args[0] ?? '').length;
    case 'batch': {
      const per = Number(args[0]);
      return per > 0 && args[1] ? n + Math.ceil(Math.max(n, 1) / per) * (per + 1) : 2 * n;
    }
    case 'slice': return n + (Number(args[0]) || 0) * 2;
    case 'truncate': return size + str(args[2] ?? '...').length;
    case 'wordwrap': return size * (1 + str(args[2] ?? '\n').length);
    case 'format': return size;
    default: return 0;
  }
}

function meteredFilter(name: string, f: Filter): Filter {
  const reads: Reads = FILTER_READS[name] ?? 'text';
  return function (this: unknown, input: unknown, ...args: unknown[]) {
    const m = meterNow();
    if (!m) return f.call(this, input, ...args);
    m.step(0);
    let size = 0;
    if (reads === 'top') m.volume((size = shallowSize(input)), 0, false);
    else if (reads === 'sort') {
      size = shallowSize(input);
      m.volume(size * Math.max(1, Math.ceil(Math.log2(size + 1))), 0, false);
    } else if (reads === 'text') {
      size = asText(m, input, name === 'dump' ? jsonIndent(args[0]) : 0);
      m.output(size, 0);
      const wordy = WORDY[name];
      if (wordy) m.volume(size * (wordy - 1), 0, false);
    }
    const growth = grows(name, input, size, args);
    if (growth > 0) m.volume(growth, 0);
    const out = f.call(this, input, ...args);
    // `first`, `default` and the like hand back what they were given: nothing was built.
    return reads === 'nothing' ? out : built(m, out);
  };
}

/** The indentation JSON.stringify would use for `spaces` (at most ten characters). */
function jsonIndent(spaces: unknown): number {
  if (typeof spaces === 'number') return Math.max(0, Math.min(10, Math.floor(spaces)));
  if (typeof spaces === 'string') return Math.min(10, spaces.length);
  return 0;
}

/** Jinja2's `format` filter: printf-style (`"%s-%05d"|format(a, b)`), each width sized first. */
function formatFilter(fmt: unknown, ...args: unknown[]): string {
  const m = meterNow()!;
  let i = 0;
  let size = 0;
  const out = str(fmt).replace(/%([-+ 0#]*)(\d+)?(?:\.(\d+))?([sdifrxXo%])/g, (_all, flags: string, width: string | undefined, precision: string | undefined, type: string) => {
    if (type === '%') return '%';
    const v = args[i++];
    let text: string;
    if (type === 'd' || type === 'i') text = String(Math.trunc(Number(v)));
    else if (type === 'f') text = Number(v).toFixed(precision ? Number(precision) : 6);
    else if (type === 'x' || type === 'X' || type === 'o') {
      text = Math.trunc(Number(v)).toString(type === 'o' ? 8 : 16);
      if (type === 'X') text = text.toUpperCase();
    } else {
      asText(m, v);
      text = asString(v);
      if (precision) text = text.slice(0, Number(precision));
    }
    const w = width ? Number(width) : 0;
    if (w > text.length) {
      m.volume(w, 0);
      const fill = flags.includes('0') && !flags.includes('-') && type !== 's' ? '0' : ' ';
      text = flags.includes('-') ? text + ' '.repeat(w - text.length) : fill.repeat(w - text.length) + text;
    }
    size += text.length;
    m.output(size, 0);
    return text;
  });
  return out;
}

/** Jinja2's `wordwrap(width=79, break_long_words=True, wrapstring='\n')`. */
function wordwrapFilter(s: unknown, width: unknown = 79, breakLong: unknown = true, wrapstring: unknown = '\n'): string {
  const w = Math.max(1, int(width, 'the width'));
  const sep = str(wrapstring);
  const lines: string[] = [];
  let line = '';
  for (let word of str(s).split(/\s+/).filter(Boolean)) {
    while (breakLong && word.length > w) {
      if (line) {
        lines.push(line);
        line = '';
      }
      lines.push(word.slice(0, w));
      word = word.slice(w);
    }
    if (!word) continue;
    if (line && line.length + 1 + word.length > w) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join(sep);
}

// ---------------------------------------------------------------------------
// Installing the hooks (once)

type CompilerProto = Record<string, (...a: any[]) => unknown> & { buffer?: string };
/** A parsed node's place (nunjucks counts lines from 0). */
type Position = { lineno: number; colno: number };
let installed = false;

/**
 * Points nunjucks' compiled code at the metered operators and loop hook.
 * The compiler emits JavaScript operators for `+ ~ *` and comparisons and
 * nothing at all per loop iteration; these overrides emit calls instead.
 */
function install(): void {
  if (installed) return;
  installed = true;
  const proto = (nunjucks as unknown as { compiler: { Compiler: { prototype: CompilerProto } } }).compiler.Compiler.prototype;
  // `lineno`/`colno` are the compiled function's own: set, an error there names its place.
  const at = (node: Position) => `lineno = ${node.lineno}, colno = ${node.colno}, `;
  const call = (fn: string) =>
    function (this: CompilerProto, node: Position & { left: unknown; right: unknown }, frame: unknown) {
      this._emit!(`(${at(node)}runtime.${fn}(`);
      this.compile!(node.left, frame);
      this._emit!(', ');
      this.compile!(node.right, frame);
      this._emit!('))');
    };
  proto.compileAdd = call('keelsonAdd');
  proto.compileConcat = call('keelsonConcat');
  proto.compileMul = call('keelsonMul');
  proto.compileCompare = function (this: CompilerProto, node: Position & { expr: unknown; ops: { type: string; expr: unknown }[] }, frame: unknown) {
    // Folded left, as the JavaScript nunjucks emitted (`a < b < c` is `(a < b) < c`).
    this._emit!(`(${at(node)}`);
    for (let i = node.ops.length - 1; i >= 0; i--) this._emit!('runtime.keelsonCompare(');
    this.compile!(node.expr, frame);
    for (const op of node.ops) {
      this._emit!(`, ${JSON.stringify(op.type)}, `);
      this.compile!(op.expr, frame);
      this._emit!(')');
    }
    this._emit!(')');
  };
  const filter = proto.compileFilter!;
  proto.compileFilter = function (this: CompilerProto, node: Position, frame: unknown) {
    this._emit!(`(${at(node)}`);
    filter.call(this, node, frame);
    this._emit!(')');
  };
  const literal = proto.compileLiteral!;
  proto.compileLiteral = function (this: CompilerProto, node: { value: unknown }, frame: unknown) {
    // nunjucks' `r/.../` literals are JavaScript regular expressions, which backtrack: `(a+)+$` holds a thread for minutes.
    if (node.value instanceof RegExp) this.fail!('regular expressions (r/.../) are not available in templates');
    return literal.call(this, node, frame);
  };
  const loopBindings = proto._emitLoopBindings!;
  proto._emitLoopBindings = function (this: CompilerProto, node: Position, ...rest: unknown[]) {
    // Every iteration is a step, and the output it has built so far is checked, as the loop runs.
    this._emitLine!(`${at(node).replace(/, $/, ';')} runtime.keelsonIteration(${this.buffer}.length);`);
    return loopBindings.call(this, node, ...rest);
  };

  runtime.keelsonAdd = (a: unknown, b: unknown) => guard(() => add(a, b));
  runtime.keelsonConcat = (a: unknown, b: unknown) => guard(() => concat(a, b));
  runtime.keelsonMul = (a: unknown, b: unknown) => guard(() => multiply(a, b));
  runtime.keelsonCompare = (a: unknown, op: string, b: unknown) => guard(() => compare(a, op, b));
  // The hottest hook (every iteration of every loop): no closure per call.
  runtime.keelsonIteration = (length: number) => {
    const m = meterNow();
    if (!m) return;
    try {
      m.step(0);
      m.output(length, 0);
    } catch (e) {
      remember(e);
      throw e;
    }
  };
  const memberLookup = runtime.memberLookup;
  runtime.memberLookup = (obj, key) => (active ? guard(() => jinjaMemberLookup(obj, key)) : memberLookup(obj, key));
  const callWrap = runtime.callWrap;
  runtime.callWrap = (obj, name, context, args) => {
    if (active) guard(() => active!.meter.step(0));
    return guard(() => callWrap(obj, name, context, args));
  };
  const suppressValue = runtime.suppressValue;
  runtime.suppressValue = (val, autoescape) => {
    const m = meterNow();
    // What is printed is counted (and, being output, checked against it) before it becomes text.
    if (m && val !== null && val !== undefined) guard(() => asText(m, val));
    return suppressValue(val, autoescape);
  };
  // Every render of a template inside another (include, import, the root itself) is one level deeper.
  const templateProto = (nunjucks as unknown as { Template: { prototype: Record<string, (...a: unknown[]) => unknown> } }).Template.prototype;
  for (const method of ['render', 'getExported']) {
    const original = templateProto[method]!;
    templateProto[method] = function (this: unknown, ...a: unknown[]) {
      const m = meterNow();
      if (!m) return original.apply(this, a);
      guard(() => m.enter(0));
      try {
        return original.apply(this, a);
      } finally {
        m.leave();
      }
    };
  }
  const inOperator = runtime.inOperator;
  runtime.inOperator = (key, val) => {
    const m = meterNow();
    if (m) guard(() => m.volume(shallowSize(val), 0, false));
    return inOperator(key, val);
  };
}

/** The filters of a fresh environment, each metered, plus DM's own. */
function meterFilters(env: nunjucks.Environment): void {
  const filters = (env as unknown as { filters: Record<string, Filter> }).filters;
  filters['tojson'] = (v: unknown) => JSON.stringify(v as Json);
  filters['format'] = formatFilter as Filter;
  filters['wordwrap'] = wordwrapFilter as Filter;
  for (const [name, f] of Object.entries(filters)) {
    const metered = meteredFilter(name, f);
    filters[name] = function (this: unknown, ...args: unknown[]) {
      return guard(() => metered.apply(this, args));
    };
  }
}

/**
 * What one expansion's renders share: the meter (one budget for all its
 * templates), and the nunjucks environment with each template compiled once
 * (200 resources of one type compile it once, not 200 times).
 */
export interface JinjaSession {
  readonly meter: BudgetMeter;
  readonly limits: JinjaLimits;
  readonly env: nunjucks.Environment;
  readonly compiled: Map<string, nunjucks.Template>;
}

/** A session for one expansion's templates: `files` holds every import's content, for `{% import %}` and `{% include %}`. */
export function jinjaSession(files: Map<string, string>, limits: JinjaLimits): JinjaSession {
  install();
  const env = new nunjucks.Environment(new ImportsLoader(files, limits.source) as unknown as nunjucks.ILoader, { autoescape: false, throwOnUndefined: false });
  const session: JinjaSession = { meter: jinjaMeter(limits), limits, env, compiled: new Map() };
  env.addGlobal('range', (start: number, stop?: number, step = 1) => {
    const [from, to] = stop === undefined ? [0, start] : [start, stop];
    const count = step === 0 ? Infinity : Math.max(0, Math.ceil((to - from) / step));
    if (count > limits.range) throw new Error(`range() of ${count} items is over the limit of ${limits.range}`);
    guard(() => session.meter.volume(count, 0));
    return Array.from({ length: count }, (_, i) => from + i * step);
  });
  meterFilters(env);
  // Includes and imports cost steps too: a template that includes itself twice per level doubles at each.
  const getTemplate = env.getTemplate.bind(env) as (...a: unknown[]) => unknown;
  (env as unknown as { getTemplate: (...a: unknown[]) => unknown }).getTemplate = (...a: unknown[]) => {
    guard(() => {
      for (let i = 0; i < INCLUDE_STEPS; i++) session.meter.step(0);
    });
    return getTemplate(...a);
  };
  return session;
}

/**
 * Renders `source` (the import `name`) with the DM globals, in the
 * expansion's `session`; without one the render has a session (and a
 * budget) of its own.
 */
export function renderJinja(name: string, source: string, context: TemplateContext, files: Map<string, string>, limits: JinjaLimits, session?: JinjaSession): Rendered {
  if (source.length > limits.source) {
    return { ok: false, message: `Template '${name}' is ${source.length} characters long, over the limit of ${limits.source}.`, limit: true };
  }
  const s = session ?? jinjaSession(files, limits);
  const run: Active = { meter: s.meter, limits };
  const outer = active;
  active = run;
  try {
    const key = `${name}\u0000${source}`;
    let template = s.compiled.get(key);
    if (!template) s.compiled.set(key, (template = new nunjucks.Template(source, s.env, name)));
    const text = template.render({ ...context });
    if (run.over) return { ok: false, message: overBudgetMessage(name, run.over, undefined), limit: true, budget: run.over.kind };
    if (text.length > limits.output) {
      return { ok: false, message: `Template '${name}' rendered ${text.length} characters, over the limit of ${limits.output}.`, limit: true };
    }
    return { ok: true, text };
  } catch (err) {
    if (run.over) return { ok: false, message: overBudgetMessage(name, run.over, lineOf(err)), limit: true, budget: run.over.kind };
    if (err instanceof RangeError && /string length/i.test(err.message)) {
      return { ok: false, message: `Template '${name}' would build a string longer than JavaScript allows, over the limit of ${limits.output}.`, limit: true };
    }
    const message = describe(err, name);
    return { ok: false, message, ...(/over the limit/.test(message) ? { limit: true } : {}) };
  } finally {
    active = outer;
  }
}

/** The template line nunjucks attached to an error (it counts from 0), counted from 1. */
function lineOf(err: unknown): number | undefined {
  const m = err instanceof Error ? /\[Line (\d+)(?:, Column \d+)?\]/.exec(err.message) : null;
  return m ? Number(m[1]) + 1 : undefined;
}

function describe(err: unknown, name: string): string {
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return `Exception in template '${name}': template recursion too deep (a macro, import or include that calls itself)`;
  }
  const raw = err instanceof Error ? err.message : String(err);
  // nunjucks prefixes "(unknown path)" or the name and a position; keep the position, drop the noise.
  const lines = raw.split('\n').map((l) => l.trim()).filter(Boolean);
  const text = lines.join(' ').replace(/^\(unknown path\)\s*/, '').replace(/\bError: /, '');
  return `Exception in template '${name}': ${text}`;
}
