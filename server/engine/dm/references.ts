/**
 * `$(ref.NAME.PATH)` as DM's PR 167 parses and resolves it (reference/dm.md §4):
 * NAME runs to the first `.`, PATH to the `)` that balances `$(` (so JSONPath
 * filters such as `[?(@.price<10)]` fit), several references may share a
 * string, and a `$(ref.` without a complete reference is "Malformed reference.".
 *
 * Substitution replaces references to names the caller knows (template
 * outputs) and leaves the rest as they are, for deploy time. A reference that
 * is the whole string keeps the value's JSON type; an embedded one is
 * replaced by the value as text (JSON for non-strings), which is Keelson's
 * definition where the PR would have failed.
 */
import { isObject } from './config';
import type { Json } from './types';

export interface Reference {
  name: string;
  path: string;
  /** The whole `$(ref.NAME.PATH)` token. */
  token: string;
  start: number;
  end: number;
}

export type Found<T> = { ok: true; value: T } | { ok: false; message: string };

const PREFIX = '$(ref.';

/** Every reference in a string, in order; an error if a `$(ref.` is malformed. */
export function findReferences(text: string): Found<Reference[]> {
  const refs: Reference[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(PREFIX, from);
    if (start < 0) return { ok: true, value: refs };
    let depth = 1;
    let i = start + 2;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')') depth--;
    }
    if (depth !== 0) return { ok: false, message: `Malformed reference. ${JSON.stringify(text.slice(start))} has no closing parenthesis.` };
    const body = text.slice(start + PREFIX.length, i - 1);
    const dot = body.indexOf('.');
    if (dot <= 0 || dot === body.length - 1) return { ok: false, message: `Malformed reference. ${JSON.stringify(text.slice(start, i))} needs both a name and a path.` };
    refs.push({ name: body.slice(0, dot), path: body.slice(dot + 1), token: text.slice(start, i), start, end: i });
    from = i;
  }
}

export function hasReference(text: string): Found<boolean> {
  const found = findReferences(text);
  return found.ok ? { ok: true, value: found.value.length > 0 } : found;
}

/** Every reference in a value tree (strings inside maps and lists; other scalars have none). */
export function collectReferences(value: Json): Found<Reference[]> {
  const out: Reference[] = [];
  const walk = (v: Json): string | null => {
    if (typeof v === 'string') {
      const found = findReferences(v);
      if (!found.ok) return found.message;
      out.push(...found.value);
    } else if (Array.isArray(v)) {
      for (const x of v) { const e = walk(x); if (e) return e; }
    } else if (isObject(v)) {
      for (const x of Object.values(v)) { const e = walk(x); if (e) return e; }
    }
    return null;
  };
  const error = walk(value);
  return error ? { ok: false, message: error } : { ok: true, value: out };
}

/**
 * Replaces references whose NAME is a key of `known` by the value at PATH
 * inside `known[NAME]`. A known NAME with a PATH that finds nothing is an error.
 */
export function substituteReferences(value: Json, known: ReadonlyMap<string, Json>): Found<Json> {
  let failure: string | null = null;
  const walk = (v: Json): Json => {
    if (failure) return v;
    if (typeof v === 'string') {
      const found = findReferences(v);
      if (!found.ok) { failure = found.message; return v; }
      const refs = found.value.filter((r) => known.has(r.name));
      if (refs.length === 0) return v;
      const values: Json[] = [];
      for (const r of refs) {
        const got = extractWithJsonPath(known.get(r.name)!, r.name, r.path);
        if (!got.ok) { failure = `${got.message} Reference: ${r.token}`; return v; }
        values.push(got.value);
      }
      if (refs.length === 1 && refs[0]!.start === 0 && refs[0]!.end === v.length) return values[0]!;
      let text = '';
      let at = 0;
      refs.forEach((r, i) => {
        const x = values[i]!;
        text += v.slice(at, r.start) + (typeof x === 'string' ? x : JSON.stringify(x));
        at = r.end;
      });
      return text + v.slice(at);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const result = walk(value);
  return failure ? { ok: false, message: failure } : { ok: true, value: result };
}

// ------------------------------------------------------------ JSONPath

type Step =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; field: string[]; op: string; operand: Json };

/**
 * Evaluates PATH against `obj` as the PR's `_ExtractWithJsonPath` did: a single
 * match is the value itself, a wildcard or filter yields the list of matches,
 * an index past the end is "index out of range", and no match is "No value found.".
 */
export function extractWithJsonPath(obj: Json, name: string, path: string): Found<Json> {
  const steps = parsePath(path);
  const where = `${name}.${path}`;
  if (!steps) return { ok: false, message: `No value found. Cannot parse ${where}.` };
  let current: Json[] = [obj];
  let many = false;
  for (const step of steps) {
    const next: Json[] = [];
    for (const node of current) {
      switch (step.kind) {
        case 'key':
          if (isObject(node) && Object.hasOwn(node, step.key)) next.push(node[step.key]!);
          break;
        case 'index':
          if (Array.isArray(node)) {
            const i = step.index < 0 ? node.length + step.index : step.index;
            if (i < 0 || i >= node.length) return { ok: false, message: `${where}: list index out of range.` };
            next.push(node[i]!);
          }
          break;
        case 'wildcard':
          many = true;
          if (Array.isArray(node)) next.push(...node);
          else if (isObject(node)) next.push(...Object.values(node));
          break;
        case 'filter':
          many = true;
          if (Array.isArray(node)) next.push(...node.filter((item) => filterMatches(item, step)));
          break;
      }
    }
    current = next;
  }
  if (current.length === 0 && !many) return { ok: false, message: `No value found. ${where}` };
  return { ok: true, value: many ? current : current[0]! };
}

function filterMatches(item: Json, step: Extract<Step, { kind: 'filter' }>): boolean {
  let v: Json | undefined = item;
  for (const f of step.field) v = isObject(v) ? v[f] : undefined;
  if (v === undefined) return false;
  const a = v;
  const b = step.operand;
  switch (step.op) {
    case '==': return a === b;
    case '!=': return a !== b;
    case '<': return typeof a === typeof b && (a as number) < (b as number);
    case '<=': return typeof a === typeof b && (a as number) <= (b as number);
    case '>': return typeof a === typeof b && (a as number) > (b as number);
    case '>=': return typeof a === typeof b && (a as number) >= (b as number);
    default: return false;
  }
}

/** `a.b[0]["c d"][*].e[?(@.x<10)]`; null when it does not parse. */
function parsePath(path: string): Step[] | null {
  const steps: Step[] = [];
  let i = 0;
  const ident = /^[^.[\]()]+/;
  while (i < path.length) {
    const rest = path.slice(i);
    if (rest[0] === '.') {
      i++;
      if (path[i] === '*') { steps.push({ kind: 'wildcard' }); i++; continue; }
      const m = ident.exec(path.slice(i));
      if (!m) return null;
      steps.push({ kind: 'key', key: m[0] });
      i += m[0].length;
    } else if (rest[0] === '[') {
      const close = matchingBracket(path, i);
      if (close < 0) return null;
      const inner = path.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === '*') steps.push({ kind: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^(['"]).*\1$/.test(inner)) steps.push({ kind: 'key', key: inner.slice(1, -1) });
      else {
        const f = /^\?\(\s*@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*\)$/.exec(inner);
        if (!f) return null;
        let operand: Json;
        const raw = f[3]!;
        if (/^-?\d+(\.\d+)?$/.test(raw)) operand = Number(raw);
        else if (/^(['"]).*\1$/.test(raw)) operand = raw.slice(1, -1);
        else if (raw === 'true' || raw === 'false') operand = raw === 'true';
        else operand = raw;
        steps.push({ kind: 'filter', field: f[1]!.slice(1).split('.'), op: f[2]!, operand });
      }
    } else if (i === 0) {
      const m = ident.exec(rest);
      if (!m) return null;
      steps.push(m[0] === '*' ? { kind: 'wildcard' } : { kind: 'key', key: m[0] });
      i += m[0].length;
    } else {
      return null;
    }
  }
  return steps;
}

function matchingBracket(s: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < s.length; i++) {
    const c = s[i]!;
    if (quote) { if (c === quote) quote = null; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}
