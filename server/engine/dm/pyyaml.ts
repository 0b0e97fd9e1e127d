/**
 * YAML values as PyYAML's `safe_load` gives them, which is how Deployment
 * Manager read configurations, schemas and template output. PyYAML is
 * YAML 1.1, but not the `yaml` package's YAML 1.1: its bool resolver takes
 * yes/no/true/false/on/off (three spellings each) and not y/n, its floats
 * need a dot (`1e3` is text, `1.0e+3` is not), `0o17` is text while `017`
 * is 15, `+.5` is text, `1:30` is 90, and dates are dates.
 *
 * The parser (the `yaml` package, failsafe schema) builds the tree; this
 * module gives each node its value: plain scalars through PyYAML's implicit
 * resolvers (resolver.py) and SafeConstructor (constructor.py), explicit
 * tags through that constructor, `<<` merges as `flatten_mapping` does them.
 * It reads any tree the `yaml` package parsed, so a deployment object's
 * `configuration`, parsed with the rest of its file, is read the same way
 * as a configuration DM read on its own.
 *
 * Timestamps become text as DM's Go service carried them (PyYAML's
 * `isoformat(' ')`), mapping keys become text as JSON needs them. A float
 * with a whole value (`10.0`) is a JavaScript number like `10`; where it
 * sits is marked (`isWholeFloat`), because DM's schema check refused it as
 * an integer.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node as YamlNode, type Scalar } from 'yaml';
import type { Json, JsonObject } from './types';

// PyYAML's implicit resolvers (resolver.py), in the order PyYAML tries them.
const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const MERGE = /^<<$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const TIMESTAMP =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;
const VALUE = /^=$/;

const TAG = 'tag:yaml.org,2002:';

/** The tag PyYAML's resolver gives a plain scalar. */
export function pyyamlTag(text: string): string {
  if (BOOL.test(text)) return `${TAG}bool`;
  if (FLOAT.test(text)) return `${TAG}float`;
  if (INT.test(text)) return `${TAG}int`;
  if (MERGE.test(text)) return `${TAG}merge`;
  if (NULL.test(text)) return `${TAG}null`;
  if (TIMESTAMP.test(text)) return `${TAG}timestamp`;
  if (VALUE.test(text)) return `${TAG}value`;
  return `${TAG}str`;
}

/** A plain scalar's value as PyYAML's safe_load gives it. */
export function pyyamlScalar(text: string): Json {
  return construct(pyyamlTag(text), text);
}

/** What PyYAML raised, and where (an offset into the parsed text, when known). */
export class PyYamlError extends Error {
  constructor(
    message: string,
    readonly offset?: number,
  ) {
    super(message);
  }
}

/** SafeConstructor's scalar constructors; what it has none for is its ConstructorError. */
function construct(tag: string, text: string): Json {
  switch (tag) {
    case `${TAG}str`:
      return text;
    case `${TAG}null`:
      return null;
    case `${TAG}bool`: {
      const v = BOOL_VALUES[text.toLowerCase()];
      if (v === undefined) throw new PyYamlError(`'${text.toLowerCase()}'`);
      return v;
    }
    case `${TAG}int`:
      return constructInt(text);
    case `${TAG}float`:
      return constructFloat(text);
    case `${TAG}timestamp`:
      return constructTimestamp(text);
    case `${TAG}binary`:
      // bytes have no JSON form; DM's Go service carried them as the text they were written as.
      return text.replace(/\s+/g, '');
    default:
      throw new PyYamlError(`could not determine a constructor for the tag '${tag}'`);
  }
}

const BOOL_VALUES: Record<string, boolean> = { yes: true, no: false, true: true, false: false, on: true, off: false };

function signed(text: string): { sign: number; digits: string } {
  let v = text.replace(/_/g, '');
  const sign = v[0] === '-' ? -1 : 1;
  if (v[0] === '-' || v[0] === '+') v = v.slice(1);
  return { sign, digits: v };
}

function pythonInt(digits: string, base: number, original: string): bigint {
  const valid = { 2: /^[01]+$/, 8: /^(?:0o)?[0-7]+$/i, 10: /^\s*[0-9]+\s*$/, 16: /^[0-9a-f]+$/i }[base as 2 | 8 | 10 | 16];
  if (!valid.test(digits)) throw new PyYamlError(`invalid literal for int() with base ${base}: '${original}'`);
  const prefix = { 2: '0b', 8: '0o', 10: '', 16: '0x' }[base as 2 | 8 | 10 | 16];
  return BigInt(prefix + (base === 8 ? digits.replace(/^0o/i, '') : digits.trim()));
}

/**
 * construct_yaml_int: `0b`, `0x`, a leading `0` (octal), `:` (base 60),
 * underscores anywhere. Python's integers are exact at any size; a number
 * here is exact only while a double holds it, so an integer beyond that
 * (2^53 + 1) is refused rather than silently rounded, as JavaScript and DM's
 * own service (its JSON decoder's float64) would round it.
 */
function constructInt(text: string): number {
  const { sign, digits: v } = signed(text);
  let n: bigint;
  if (v === '0') n = 0n;
  else if (v.startsWith('0b')) n = pythonInt(v.slice(2), 2, v.slice(2));
  else if (v.startsWith('0x')) n = pythonInt(v.slice(2), 16, v.slice(2));
  else if (v[0] === '0') n = pythonInt(v, 8, v);
  else if (v.includes(':')) n = v.split(':').map((p) => pythonInt(p, 10, p)).reduce((acc, p) => acc * 60n + p, 0n);
  else n = pythonInt(v, 10, v);
  if (sign < 0) n = -n;
  const number = Number(n);
  if (BigInt(number) !== n) {
    throw new PyYamlError(`the integer ${n} cannot be carried exactly (a JSON number holds integers up to 2^53); quote it to keep it as text`);
  }
  return number === 0 ? 0 : number;
}

/** construct_yaml_float: `.inf`, `.nan`, `:` (base 60), else Python's float(). */
function constructFloat(text: string): number {
  const { sign, digits } = signed(text);
  const v = digits.toLowerCase();
  if (v === '.inf') return sign * Infinity;
  if (v === '.nan') return NaN;
  if (v.includes(':')) return sign * sexagesimal(v.split(':').map((p) => pythonFloat(p)));
  return sign * pythonFloat(v);
}

function pythonFloat(v: string): number {
  const t = v.trim();
  if (/^(?:inf|infinity)$/i.test(t)) return Infinity;
  if (/^nan$/i.test(t)) return NaN;
  if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?$/i.test(t)) throw new PyYamlError(`could not convert string to float: '${v}'`);
  return Number(t);
}

function sexagesimal(parts: number[]): number {
  return parts.reduce((acc, p) => acc * 60 + p, 0);
}

const TIMESTAMP_PARTS =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;

/**
 * construct_yaml_timestamp, as text: a date is `YYYY-MM-DD`; a date and time
 * is Python's `isoformat(' ')` of the datetime PyYAML built (microseconds when
 * there are any, the offset when one was written). Python's range checks hold.
 */
function constructTimestamp(text: string): string {
  const m = TIMESTAMP_PARTS.exec(text);
  if (!m) throw new PyYamlError("'NoneType' object has no attribute 'groupdict'");
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1) throw new PyYamlError(`year ${year} is out of range`);
  if (month < 1 || month > 12) throw new PyYamlError('month must be in 1..12');
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day < 1 || day > days) throw new PyYamlError('day is out of range for month');
  const two = (n: number) => String(n).padStart(2, '0');
  const date = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}`;
  if (m[4] === undefined) return date;
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (hour > 23) throw new PyYamlError('hour must be in 0..23');
  if (minute > 59) throw new PyYamlError('minute must be in 0..59');
  if (second > 59) throw new PyYamlError('second must be in 0..59');
  const fraction = m[7] ? Number(m[7].slice(0, 6).padEnd(6, '0')) : 0;
  let out = `${date} ${two(hour)}:${two(minute)}:${two(second)}${fraction ? `.${String(fraction).padStart(6, '0')}` : ''}`;
  if (m[9]) {
    const minutes = Number(m[10]) * 60 + Number(m[11] ?? 0);
    if (minutes >= 24 * 60) throw new PyYamlError('offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24).');
    out += minutes === 0 ? '+00:00' : `${m[9]}${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`;
  } else if (m[8] === 'Z') out += '+00:00';
  return out;
}

/**
 * Where PyYAML built a float whose value is whole (`10.0`), by container and
 * key: JavaScript's number cannot tell it from the integer 10, Python could.
 */
const wholeFloats = new WeakMap<object, Set<string | number>>();

/** Whether `container[key]` was read as a float with a whole value (`10.0`, not `10`). */
export function isWholeFloat(container: object, key: string | number): boolean {
  return wholeFloats.get(container)?.has(key) ?? false;
}

/** Marks `container[key]` as a float with a whole value (a copy of a marked value keeps its mark). */
export function markWholeFloat(container: object, key: string | number): void {
  let keys = wholeFloats.get(container);
  if (!keys) wholeFloats.set(container, (keys = new Set()));
  keys.add(key);
}

function floatNode(node: unknown, doc: Document): boolean {
  const target = isAlias(node) ? node.resolve(doc) : node;
  if (!isScalar(target)) return false;
  if (target.tag && target.tag !== '!') return target.tag === `${TAG}float`;
  if (target.tag === '!' || (target.type !== undefined && target.type !== 'PLAIN')) return false;
  return typeof target.source === 'string' && pyyamlTag(target.source) === `${TAG}float`;
}

function markIfWholeFloat(container: object, key: string | number, value: Json, node: unknown, doc: Document): void {
  if (typeof value === 'number' && Number.isInteger(value) && floatNode(node, doc)) markWholeFloat(container, key);
}

/** Most nodes aliases may expand to in one document: PyYAML has no limit, a server needs one ("billion laughs"). */
export const MAX_ALIASED_NODES = 100_000;

/**
 * A node's value as PyYAML's safe_load gives it. Throws PyYamlError (with
 * the node's offset) where PyYAML raised. `node` may come from a document
 * parsed with any schema: plain scalars are resolved from their source text.
 */
export function pyyamlValue(node: unknown, doc: Document): Json {
  const state = { aliased: 0, inAlias: 0, expanding: new Set<unknown>() };
  return valueOf(node, doc, state);
}

interface WalkState {
  aliased: number;
  inAlias: number;
  /** Alias targets being expanded: one reached again is a recursive structure, which JSON cannot hold. */
  expanding: Set<unknown>;
}

function offsetOf(node: unknown): number | undefined {
  return (node as { range?: [number, number, number] } | null)?.range?.[0];
}

function valueOf(node: unknown, doc: Document, st: WalkState): Json {
  if (node === null || node === undefined) return null;
  if (st.inAlias > 0 && ++st.aliased > MAX_ALIASED_NODES) {
    throw new PyYamlError(`aliases expand to more than ${MAX_ALIASED_NODES} nodes`, offsetOf(node));
  }
  if (isAlias(node)) {
    const target = node.resolve(doc);
    if (target === undefined) throw new PyYamlError(`found undefined alias '${node.source}'`, offsetOf(node));
    if (st.expanding.has(target)) throw new PyYamlError(`alias '${node.source}' refers to a node that contains it`, offsetOf(node));
    st.expanding.add(target);
    st.inAlias++;
    try {
      return valueOf(target, doc, st);
    } finally {
      st.inAlias--;
      st.expanding.delete(target);
    }
  }
  if (isScalar(node)) return scalarValue(node);
  if (isSeq(node)) {
    checkCollectionTag(node);
    const list = node.items.map((item) => valueOf(item, doc, st));
    list.forEach((v, i) => markIfWholeFloat(list, i, v, node.items[i], doc));
    return list;
  }
  if (isMap(node)) {
    checkCollectionTag(node);
    return mappingValue(node.items, doc, st);
  }
  throw new PyYamlError('unexpected YAML node', offsetOf(node));
}

function scalarValue(node: Scalar): Json {
  const text = typeof node.source === 'string' ? node.source : node.value === null || node.value === undefined ? '' : String(node.value);
  try {
    // `!` alone is the non-specific tag: a string, as for every non-plain scalar.
    if (node.tag && node.tag !== '!') return construct(node.tag, text);
    if (node.tag === '!' || (node.type !== undefined && node.type !== 'PLAIN')) return text;
    return pyyamlScalar(text);
  } catch (e) {
    if (e instanceof PyYamlError && e.offset === undefined) throw new PyYamlError(e.message, offsetOf(node));
    throw e;
  }
}

/** Explicit collection tags PyYAML's SafeConstructor knows; they read as the mapping or sequence they are written as. */
const COLLECTION_TAGS = new Set([`${TAG}map`, `${TAG}seq`, `${TAG}omap`, `${TAG}pairs`, `${TAG}set`]);

function checkCollectionTag(node: YamlNode): void {
  const tag = (node as { tag?: string }).tag;
  if (tag && tag !== '!' && !COLLECTION_TAGS.has(tag)) throw new PyYamlError(`could not determine a constructor for the tag '${tag}'`, offsetOf(node));
}

/** A key as JSON has it: PyYAML's key, in words (booleans as true/false, numbers and null as Python prints them: `None`). */
function keyText(key: Json, node: unknown): string {
  if (typeof key === 'string') return key;
  if (key === null) return 'None';
  if (typeof key === 'boolean' || typeof key === 'number') return String(key);
  throw new PyYamlError('while constructing a mapping: found unhashable key', offsetOf(node));
}

function isMergeKey(key: unknown): boolean {
  return isScalar(key) && !key.tag && (key.type === undefined || key.type === 'PLAIN') && key.source === '<<';
}

/** flatten_mapping, then construct_mapping: merged pairs first (a list's first mapping wins), the mapping's own after them. */
function mappingValue(items: readonly unknown[], doc: Document, st: WalkState): JsonObject {
  // Each entry with whether it is a whole float (see isWholeFloat).
  const merged: [string, Json, boolean][] = [];
  const own: [string, Json, boolean][] = [];
  for (const pair of items) {
    if (!isPair(pair)) continue;
    if (isMergeKey(pair.key)) {
      const sources = mergeSources(pair.value, doc, st);
      for (const s of sources.reverse()) merged.push(...Object.entries(s).map(([k, v]): [string, Json, boolean] => [k, v, isWholeFloat(s, k)]));
      continue;
    }
    const value = valueOf(pair.value, doc, st);
    own.push([keyText(valueOf(pair.key, doc, st), pair.key), value, typeof value === 'number' && Number.isInteger(value) && floatNode(pair.value, doc)]);
  }
  const out: JsonObject = {};
  const floats = new Set<string>();
  for (const [k, v, whole] of [...merged, ...own]) {
    // A key named __proto__ is data, not the object's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
    if (whole) floats.add(k);
    else floats.delete(k);
  }
  for (const k of floats) markWholeFloat(out, k);
  return out;
}

function mergeSources(value: unknown, doc: Document, st: WalkState): JsonObject[] {
  const target = isAlias(value) ? value.resolve(doc) : value;
  const wrong = (found: string) =>
    new PyYamlError(`while constructing a mapping: expected a mapping or list of mappings for merging, but found ${found}`, offsetOf(value));
  if (isMap(target)) return [valueOf(value, doc, st) as JsonObject];
  if (isSeq(target)) {
    return target.items.map((item) => {
      const sub = isAlias(item) ? item.resolve(doc) : item;
      if (!isMap(sub)) throw wrong(isSeq(sub) ? 'sequence' : 'scalar');
      return valueOf(item, doc, st) as JsonObject;
    });
  }
  throw wrong('scalar');
}
