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
 *    (`items()`, `keys()`, `get()`, `upper()`, `startswith()`, ...);
 *  - `range()` is capped, so a template cannot loop for ever.
 * nunjucks loads `fs`/`path` for loaders this module never constructs.
 */
import nunjucks from 'nunjucks';
import type { Json, TemplateContext } from './types';

export type Rendered = { ok: true; text: string } | { ok: false; message: string };

export interface JinjaLimits {
  /** Largest template (and helper) source. */
  source: number;
  /** Largest rendered output. */
  output: number;
  /** Largest `range()` a template may build. */
  range: number;
  /** Most loop iterations one render may run, nested loops counted in full (default LOOP_BUDGET). */
  loops?: number;
}

/** Loop iterations one render may run: nested loops over modest lists multiply, and a render holds its thread. */
export const LOOP_BUDGET = 1_000_000;

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

type MemberLookup = (obj: unknown, key: unknown) => unknown;
const runtime = (nunjucks as unknown as { runtime: { memberLookup: MemberLookup; fromIterator: (arr: unknown) => unknown } }).runtime;

/** Python methods of dicts, strings and lists that Jinja templates call. */
function pythonMethod(obj: unknown, key: string): ((...args: unknown[]) => unknown) | undefined {
  if (typeof obj === 'string') {
    const s = obj;
    switch (key) {
      case 'upper': return () => s.toUpperCase();
      case 'lower': return () => s.toLowerCase();
      case 'strip': return (chars?: unknown) => (typeof chars === 'string' ? stripChars(s, chars, true, true) : s.trim());
      case 'lstrip': return (chars?: unknown) => (typeof chars === 'string' ? stripChars(s, chars, true, false) : s.trimStart());
      case 'rstrip': return (chars?: unknown) => (typeof chars === 'string' ? stripChars(s, chars, false, true) : s.trimEnd());
      case 'startswith': return (p: unknown) => s.startsWith(String(p));
      case 'endswith': return (p: unknown) => s.endsWith(String(p));
      case 'split': return (sep?: unknown) => (sep === undefined || sep === null ? s.trim().split(/\s+/).filter(Boolean) : s.split(String(sep)));
      case 'join': return (items: unknown) => (Array.isArray(items) ? items.map(String).join(s) : '');
      case 'replace': return (a: unknown, b: unknown) => s.split(String(a)).join(String(b));
      case 'capitalize': return () => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
      case 'find': return (p: unknown) => s.indexOf(String(p));
      default: return undefined;
    }
  }
  if (Array.isArray(obj)) {
    const list = obj;
    switch (key) {
      case 'append': return (x: unknown) => { list.push(x); return null; };
      case 'extend': return (xs: unknown) => { if (Array.isArray(xs)) list.push(...xs); return null; };
      case 'index': return (x: unknown) => list.indexOf(x);
      case 'count': return (x: unknown) => list.filter((y) => y === x).length;
      default: return undefined;
    }
  }
  if (typeof obj === 'object' && obj !== null) {
    const dict = obj as Record<string, unknown>;
    switch (key) {
      case 'items': case 'iteritems': return () => Object.entries(dict);
      case 'keys': case 'iterkeys': return () => Object.keys(dict);
      case 'values': case 'itervalues': return () => Object.values(dict);
      case 'get': return (k: unknown, d: unknown = null) => (Object.hasOwn(dict, String(k)) ? dict[String(k)] : d);
      case 'has_key': return (k: unknown) => Object.hasOwn(dict, String(k));
      case 'update': return (other: unknown) => { if (other && typeof other === 'object') Object.assign(dict, other); return null; };
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
 * Names that lead from a template value to JavaScript's machinery
 * (`range.constructor` is the Function constructor: code on the server).
 * nunjucks is no sandbox; templates come from policy authors and API
 * callers, so these are refused whatever they are looked up on, and
 * functions have no members at all.
 */
const UNSAFE_MEMBERS = new Set(['constructor', '__proto__', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__', 'caller', 'callee', 'arguments']);

function jinjaMemberLookup(original: MemberLookup): MemberLookup {
  return (obj, key) => {
    if (obj === undefined || obj === null) {
      throw new Error(`${obj === null ? 'None' : 'an undefined value'} has no attribute or item ${JSON.stringify(String(key))}`);
    }
    const k = String(key);
    if (UNSAFE_MEMBERS.has(k) || typeof obj === 'function') throw new Error(`${JSON.stringify(k)} is not available in templates`);
    const own = typeof obj === 'object' && Object.hasOwn(obj as object, k);
    if (!own) {
      const method = pythonMethod(obj, k);
      if (method) return method;
    }
    return original(obj, key);
  };
}

/**
 * Renders `source` (the import `name`) with the DM globals. `files` holds
 * every import's content, for `{% import %}` and `{% include %}`.
 */
export function renderJinja(name: string, source: string, context: TemplateContext, files: Map<string, string>, limits: JinjaLimits): Rendered {
  if (source.length > limits.source) {
    return { ok: false, message: `Template '${name}' is ${source.length} characters long, over the limit of ${limits.source}.` };
  }
  const env = new nunjucks.Environment(new ImportsLoader(files, limits.source) as unknown as nunjucks.ILoader, { autoescape: false, throwOnUndefined: false });
  env.addGlobal('range', (start: number, stop?: number, step = 1) => {
    const [from, to] = stop === undefined ? [0, start] : [start, stop];
    const count = step === 0 ? Infinity : Math.max(0, Math.ceil((to - from) / step));
    if (count > limits.range) throw new Error(`range() of ${count} items is over the limit of ${limits.range}`);
    return Array.from({ length: count }, (_, i) => from + i * step);
  });
  env.addFilter('tojson', (v: Json) => JSON.stringify(v));
  const original = runtime.memberLookup;
  const originalFromIterator = runtime.fromIterator;
  // nunjucks' compiled templates call `runtime.memberLookup` at render time; the
  // render is synchronous, so swapping it for the render alone affects no one else.
  runtime.memberLookup = jinjaMemberLookup(original);
  // Every for-loop starts with fromIterator; summing what they iterate counts
  // the iterations of nested loops too, however they are nested.
  let iterations = 0;
  const budget = limits.loops ?? LOOP_BUDGET;
  runtime.fromIterator = (arr: unknown) => {
    const v = originalFromIterator(arr);
    iterations += Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : 0;
    if (iterations > budget) throw new Error(`the template's loops ran over the limit of ${budget} iterations`);
    return v;
  };
  try {
    const template = new nunjucks.Template(source, env, name);
    const text = template.render({ ...context });
    if (text.length > limits.output) {
      return { ok: false, message: `Template '${name}' rendered ${text.length} characters, over the limit of ${limits.output}.` };
    }
    return { ok: true, text };
  } catch (err) {
    return { ok: false, message: describe(err, name) };
  } finally {
    runtime.memberLookup = original;
    runtime.fromIterator = originalFromIterator;
  }
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
