/**
 * Validation: candidate objects → typed policy objects, or diagnostics that
 * name the object, the field and the line. Nothing here throws on bad input.
 */
import type { z } from 'zod';
import { objectRef, type Diagnostic, type SourcePos } from '../diagnostics';
import { KINDS, MAX_OBJECT_BYTES, SYSTEM_NAMESPACE, type Kind, type KindRegistry, type ObjectOfKind } from './kinds';
import { parseYamlObjects, type ParseResult, type SourceObject } from './source';
import { deepFreeze } from '../values';

export { findComponentCycle } from './sources/aptomi-checks';

export interface LoadedObject<K extends Kind = Kind> {
  kind: K;
  namespace: string;
  name: string;
  /** The validated, normalised object (labels as strings, kind lower-case). */
  spec: ObjectOfKind[K];
  /** The object's YAML as written. */
  text: string;
  file?: string;
  pos: SourcePos;
  /** Field path → position; absent for objects rebuilt from storage. */
  locate?: SourceObject['locate'];
}

export type AnyLoadedObject = { [K in Kind]: LoadedObject<K> }[Kind];

export function objectKey(o: { kind: string; namespace: string; name: string }): string {
  return `${o.kind}/${o.namespace}/${o.name}`;
}

export interface ValidateResult {
  objects: AnyLoadedObject[];
  diagnostics: Diagnostic[];
}

/**
 * Who an object is, read from its envelope before its schema or anything in
 * it is evaluated: what a writer's rights are checked on.
 */
export interface ObjectIdentity {
  /** Canonical (lower-case). */
  kind: string;
  namespace: string;
  name: string;
  /** A claim's user as written (a claim acts for the user it names). */
  user?: string;
  pos: SourcePos;
}

export interface IdentifyResult {
  objects: ObjectIdentity[];
  /** YAML syntax errors; schema and checks are the load's to report. */
  diagnostics: Diagnostic[];
}

/**
 * Parse YAML only as far as naming its objects: no schema, no kind checks.
 * A document no source takes, or whose kind, namespace or name is missing,
 * is left out: it cannot be saved, and its load says why.
 */
export function identifyObjects(text: string, file?: string, registry: KindRegistry = KINDS): IdentifyResult {
  return identifyParsed(parseYamlObjects(text, file), registry);
}

/** `identifyObjects` of text already parsed (the caller keeps the parse for the load that follows). */
export function identifyParsed(parsed: ParseResult, registry: KindRegistry = KINDS): IdentifyResult {
  const objects: ObjectIdentity[] = [];
  for (const src of parsed.objects) {
    const id = identityOf(src.value as Record<string, unknown>, registry);
    if (!id?.kind || id.namespace === undefined || id.name === undefined) continue;
    const user = id.kind === 'claim' ? (src.value as { user?: unknown }).user : undefined;
    objects.push({ kind: id.kind, namespace: id.namespace, name: id.name, ...(typeof user === 'string' ? { user } : {}), pos: src.pos });
  }
  return { objects, diagnostics: parsed.diagnostics };
}

/** The canonical kind (when a source of the registry declares it for this envelope), namespace and name of a document. */
function identityOf(v: Record<string, unknown>, registry: KindRegistry): { kind?: string; namespace?: string; name?: string } | undefined {
  const source = registry.sourceOfDocument(v);
  if (!source || source.unsupported) return undefined;
  const id = source.identify(v);
  const kind = typeof id.kind === 'string' ? registry.normalise(id.kind) : undefined;
  return { kind: kind && registry.sourceOfKind(kind) === source ? kind : undefined, namespace: id.namespace, name: id.name };
}

export interface LoadOptions {
  /**
   * The keys (`kind/namespace/name`) whose writer's rights were checked:
   * only their kinds' checks (which compile and may run templates) run; any
   * other object is an error, not evaluated.
   */
  cleared?: ReadonlySet<string>;
}

/** Parse and validate YAML text; `file` is used in diagnostics. */
export function loadObjects(text: string, file?: string, registry: KindRegistry = KINDS, opts: LoadOptions = {}): ValidateResult {
  const memoKey = registry === KINDS && !opts.cleared && text.length <= MEMO_MAX_TEXT ? `${file ?? ''}\u0000${text}` : undefined;
  const hit = memoKey === undefined ? undefined : memo.get(memoKey);
  if (hit) return { objects: [...hit.objects], diagnostics: [...hit.diagnostics] };
  const result = loadParsed(parseYamlObjects(text, file), registry, opts);
  if (memoKey !== undefined) {
    if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
    memo.set(memoKey, deepFreeze(result));
    return { objects: [...result.objects], diagnostics: [...result.diagnostics] };
  }
  return result;
}

/** `loadObjects` of text already parsed. */
export function loadParsed(parsed: ParseResult, registry: KindRegistry = KINDS, opts: LoadOptions = {}): ValidateResult {
  const out = validateSourceObjects(parsed.objects, registry, opts);
  return { objects: out.objects, diagnostics: [...parsed.diagnostics, ...out.diagnostics] };
}

/**
 * The last texts loaded, with what they loaded to. A service save reads its
 * one small YAML text several times on its way (placement, admission, the
 * marks check, the commit): on a console under load that was a tenth of
 * the request thread. Entries are frozen, so no caller can change what
 * the next one gets; the arrays handed out are the caller's own.
 */
const MEMO_ENTRIES = 256;
const MEMO_MAX_TEXT = 16 * 1024;
const memo = new Map<string, ValidateResult>();


export function validateSourceObjects(sources: readonly SourceObject[], registry: KindRegistry = KINDS, opts: LoadOptions = {}): ValidateResult {
  const objects: AnyLoadedObject[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const src of sources) {
    const r = validateSourceObject(src, registry, opts);
    diagnostics.push(...r.diagnostics);
    if (r.object) objects.push(r.object);
  }
  return dedupe(objects, diagnostics);
}

/** Report duplicates; identical copies are dropped, conflicting ones are errors. */
export function dedupe(objects: AnyLoadedObject[], diagnostics: Diagnostic[] = []): ValidateResult {
  const dups = findDuplicates(objects);
  if (dups.length === 0) return { objects, diagnostics };
  const seen = new Set<string>();
  const unique = objects.filter((o) => {
    const k = objectKey(o);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { objects: unique, diagnostics: [...diagnostics, ...dups] };
}

export function validateSourceObject(
  src: SourceObject,
  registry: KindRegistry = KINDS,
  opts: LoadOptions = {},
): { object?: AnyLoadedObject; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  const v = src.value as Record<string, unknown>;
  const at = (path: PropertyKey[], key = false) => src.locate(path, { key });
  const source = registry.sourceOfDocument(v);
  // Kubernetes manifests and other foreign documents sit beside policy files
  // (Aptomi's guestbook keeps its k8s YAML there, and a k8s `Service` would
  // otherwise pass for ours): no source recognises their envelope.
  if (!source) {
    diags.push({
      code: 'skipped',
      severity: 'info',
      message: `skipped ${String(v.apiVersion)} ${String(v.kind ?? 'document')}: not a Keelson policy object`,
      file: src.file,
      ...src.pos,
    });
    return { diagnostics: diags };
  }
  const id = source.identify(v);
  const rawKind = id.kind;
  const ns = id.namespace;
  const name = id.name;
  if (source.unsupported) {
    diags.push({
      code: 'unsupported_source',
      severity: 'warning',
      message: `${source.title} ${rawKind ?? 'document'}${name ? ` "${name}"` : ''} recognised but skipped: ${source.unsupported}`,
      file: src.file,
      object: rawKind ? objectRef(rawKind, ns, name) : undefined,
      ...src.pos,
    });
    return { diagnostics: diags };
  }

  if (typeof rawKind !== 'string' || rawKind === '') {
    diags.push({
      code: 'missing_kind',
      severity: 'error',
      message: `object has no kind; known kinds: ${registry.kinds.join(', ')}`,
      file: src.file,
      path: ['kind'],
      object: name ? objectRef('?', ns, name) : undefined,
      ...src.pos,
    });
    return { diagnostics: diags };
  }
  const unstorable = findUnstorable(v);
  if (unstorable) {
    diags.push({
      code: 'schema',
      severity: 'error',
      message: `${unstorable.path.join('.') || 'the object'} holds ${unstorable.what}, which cannot be stored`,
      file: src.file,
      path: unstorable.path.map(String),
      object: objectRef(rawKind, ns, name),
      ...at(unstorable.path),
    });
    return { diagnostics: diags };
  }
  const kind = registry.normalise(rawKind) as Kind | undefined;
  const spec = kind && registry.sourceOfKind(kind) === source ? registry.spec(kind) : undefined;
  if (!kind || !spec) {
    const own = Object.keys(source.kinds).sort();
    diags.push({
      code: 'unknown_kind',
      severity: 'error',
      message: kind
        ? `kind "${rawKind}" belongs to ${registry.sourceOfKind(kind)?.title}, not to ${source.title} documents; ${source.title} kinds: ${own.join(', ')}`
        : `unknown kind "${rawKind}"; known kinds: ${registry.kinds.join(', ')}`,
      file: src.file,
      path: ['kind'],
      object: objectRef(rawKind, ns, name),
      ...at(['kind']),
    });
    return { diagnostics: diags };
  }
  const ref = objectRef(kind, ns, name);

  const bytes = utf8Length(src.text);
  if (bytes > MAX_OBJECT_BYTES) {
    diags.push({
      code: 'too_large',
      severity: 'error',
      message: `object is ${bytes} bytes, over the limit of ${MAX_OBJECT_BYTES} bytes (1 MiB)`,
      file: src.file,
      object: ref,
      ...src.pos,
    });
    return { diagnostics: diags };
  }

  const res = (spec.schema as z.ZodType).safeParse(v);
  if (!res.success) {
    for (const issue of res.error.issues) {
      diags.push(...issueToDiagnostics(issue, src, ref));
    }
    return { diagnostics: diags };
  }
  const parsed = res.data as ObjectOfKind[Kind] & { kind: string };
  parsed.kind = kind;
  const valid = source.identify(parsed as unknown as Record<string, unknown>);
  const object = {
    kind,
    namespace: valid.namespace ?? '',
    name: valid.name ?? '',
    spec: parsed,
    text: src.text,
    file: src.file,
    pos: src.pos,
    locate: src.locate,
  } as AnyLoadedObject;

  if (spec.systemOnly && object.namespace !== SYSTEM_NAMESPACE) {
    diags.push({
      code: 'namespace',
      severity: 'error',
      message: `a ${kind} must be in the "${SYSTEM_NAMESPACE}" namespace, not "${object.namespace}"`,
      file: src.file,
      object: ref,
      path: ['metadata', 'namespace'],
      ...at(['metadata', 'namespace']),
    });
  }
  if (opts.cleared && !opts.cleared.has(objectKey(object))) {
    // Unreachable while identity is read the same way before and after the schema; if ever not, nothing runs unchecked.
    diags.push({ code: 'schema', severity: 'error', message: `${ref} was not among the objects the writer's rights were checked on; nothing in it was evaluated`, file: src.file, object: ref, ...src.pos });
  } else if (spec.check) diags.push(...spec.check(object));
  return { object: diags.some((d) => d.severity === 'error') ? undefined : object, diagnostics: diags };
}

function issueToDiagnostics(issue: z.core.$ZodIssue, src: SourceObject, ref: string): Diagnostic[] {
  const path = issue.path as (string | number)[];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      code: 'schema' as const,
      severity: 'error' as const,
      message: `unknown field "${key}"${path.length ? ` in ${fieldName(path)}` : ''}`,
      file: src.file,
      object: ref,
      path: [...path, key],
      ...src.locate([...path, key], { key: true }),
    }));
  }
  let message = issue.message;
  if (issue.code === 'invalid_type') {
    const got = describeValue(getAt(src.value, path));
    message = got === 'nothing' ? `missing required field "${fieldName(path)}"` : `${fieldName(path)}: expected ${issue.expected}, got ${got}`;
  } else if (issue.code === 'invalid_value') {
    message = `${fieldName(path)}: must be one of ${issue.values.map((x) => JSON.stringify(x)).join(', ')}`;
  } else if (path.length > 0) {
    message = `${fieldName(path)}: ${issue.message}`;
  }
  return [
    {
      code: 'schema',
      severity: 'error',
      message,
      file: src.file,
      object: ref,
      path,
      ...src.locate(path),
    },
  ];
}

function fieldName(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out || '(object)';
}

function getAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = value;
  for (const p of path) {
    if (cur == null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function utf8Length(s: string): number {
  // Fast path: ASCII-only strings have one byte per char.
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) n += c > 0x7ff ? (c >= 0xd800 && c <= 0xdbff ? 1 : 2) : 1;
  }
  return n;
}

function findDuplicates(objects: readonly AnyLoadedObject[]): Diagnostic[] {
  const seen = new Map<string, AnyLoadedObject>();
  const diags: Diagnostic[] = [];
  for (const o of objects) {
    const k = objectKey(o);
    const first = seen.get(k);
    if (first) {
      const where = first.file ? `${first.file}:${first.pos.line}` : `line ${first.pos.line}`;
      // Example sets ship the same object twice (Aptomi's acl.yaml); an exact
      // copy is harmless, a different object under the same name is not.
      const identical = JSON.stringify(first.spec) === JSON.stringify(o.spec);
      diags.push({
        code: 'duplicate_object',
        severity: identical ? 'info' : 'error',
        message: identical
          ? `${o.kind} "${o.namespace}/${o.name}" is defined again, identically (first at ${where}); the copy is ignored`
          : `duplicate ${o.kind} "${o.namespace}/${o.name}" (first defined at ${where})`,
        file: o.file,
        object: objectRef(o.kind, o.namespace, o.name),
        path: ['metadata', 'name'],
        ...(o.locate ? o.locate(['metadata', 'name']) : o.pos),
      });
    } else seen.set(k, o);
  }
  return diags;
}

/**
 * PostgreSQL's text and jsonb cannot hold a NUL character, nor can any
 * UTF-8 store a lone surrogate (YAML's "\0" and "\ud800" escapes make
 * both): such a value is refused at load, with its path, instead of
 * failing in storage.
 */
export function unstorableIn(s: string): string | undefined {
  if (s.includes('\u0000')) return 'a NUL character (\\0)';
  if (/\p{Cs}/u.test(s)) return 'a lone UTF-16 surrogate';
  return undefined;
}

function findUnstorable(v: unknown, path: (string | number)[] = []): { path: (string | number)[]; what: string } | undefined {
  if (typeof v === 'string') {
    const what = unstorableIn(v);
    return what ? { path, what } : undefined;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const r = findUnstorable(v[i], [...path, i]);
      if (r) return r;
    }
    return undefined;
  }
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const what = unstorableIn(k);
      if (what) return { path: [...path, k], what };
      const r = findUnstorable(x, [...path, k]);
      if (r) return r;
    }
  }
  return undefined;
}
