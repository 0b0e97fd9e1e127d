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
import type { Json, ReferenceGraph } from './types';

/** What the deploy step refuses in a graph, as the console and `keelson expand` say it: each cycle as its path, each unknown name. */
export function referenceProblems(g: Pick<ReferenceGraph, 'cycles' | 'unknown'>): string[] {
  return [
    ...g.cycles.map((c) => `references form a cycle: ${c.join(' → ')}`),
    ...g.unknown.map((u) => `resource ${u.from} refers to $(ref.${u.to}.${u.path}), but ${u.to} is no resource of the expanded configuration`),
  ];
}

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
 * Keelson's step after expansion: a reference to another resource of the
 * flat configuration is replaced by the value at PATH in that resource's
 * properties when they have it (and it holds no reference itself), until
 * nothing more can be replaced. What is left needs a value only the cluster
 * knows (a Service's assigned `spec.clusterIP`), or names no resource.
 */
export function resolveWithinConfiguration<R extends { name: string; properties?: Json }>(resources: readonly R[]): R[] {
  let current = [...resources];
  for (let changed = true; changed; ) {
    changed = false;
    const pick = valuesOf(current);
    current = current.map((r) => {
      if (r.properties === undefined || r.properties === null) return r;
      const next = replaceReferences(r.properties, pick);
      if (next === r.properties) return r;
      changed = true;
      return { ...r, properties: next } as R;
    });
  }
  return current;
}

/** A value (a layout's outputs) with the references the resources' properties answer replaced. */
export function fillFromResources(value: Json, resources: readonly { name: string; properties?: Json }[]): Json {
  return replaceReferences(value, valuesOf(resources));
}

/** What a reference stands for in these resources' properties, when they hold it without a reference of its own. */
function valuesOf(resources: readonly { name: string; properties?: Json }[]): (ref: Reference) => { value: Json } | undefined {
  const byName = new Map<string, Json>();
  for (const r of resources) if (!byName.has(r.name)) byName.set(r.name, r.properties ?? null);
  return (ref) => {
    if (!byName.has(ref.name)) return undefined;
    const got = extractWithJsonPath(byName.get(ref.name)!, ref.name, ref.path);
    if (!got.ok) return undefined;
    const inner = collectReferences(got.value);
    return inner.ok && inner.value.length === 0 ? { value: got.value } : undefined;
  };
}

/** Every `$(ref.…)` token in a value tree, for a check that none is shipped; a malformed one counts as its text. */
export function referenceTokens(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (!v.includes(PREFIX)) return;
      const found = findReferences(v);
      if (found.ok) out.push(...found.value.map((r) => r.token));
      else out.push(v.slice(v.indexOf(PREFIX), v.indexOf(PREFIX) + 200));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return [...new Set(out)];
}

/** The value with each reference `pick` gives a value for replaced (the same object when none is). */
function replaceReferences(value: Json, pick: (r: Reference) => { value: Json } | undefined): Json {
  if (typeof value === 'string') {
    if (!value.includes(PREFIX)) return value;
    const found = findReferences(value);
    if (!found.ok) return value;
    const picked = found.value.map((r) => ({ r, got: pick(r) })).filter((x) => x.got !== undefined) as { r: Reference; got: { value: Json } }[];
    if (picked.length === 0) return value;
    if (found.value.length === 1 && picked.length === 1 && picked[0]!.r.start === 0 && picked[0]!.r.end === value.length) return picked[0]!.got.value;
    let text = '';
    let at = 0;
    for (const { r, got } of picked) {
      text += value.slice(at, r.start) + (typeof got.value === 'string' ? got.value : JSON.stringify(got.value));
      at = r.end;
    }
    return text + value.slice(at);
  }
  if (Array.isArray(value)) {
    const next = value.map((x) => replaceReferences(x, pick));
    // Object.is: NaN is not !== itself here, or a `.nan` would count as a change for ever.
    return next.some((x, i) => !Object.is(x, value[i])) ? next : value;
  }
  if (isObject(value)) {
    let changed = false;
    const next: Record<string, Json> = {};
    for (const [k, x] of Object.entries(value)) {
      const y = replaceReferences(x, pick);
      if (!Object.is(y, x)) changed = true;
      if (k === '__proto__') Object.defineProperty(next, k, { value: y, enumerable: true, writable: true, configurable: true });
      else next[k] = y;
    }
    return changed ? next : value;
  }
  return value;
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
