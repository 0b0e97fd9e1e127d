/**
 * Credentials, as the kind registry declares them (`KindSpec.credentials`):
 * which fields of an object hold them and who may see them whole. Every
 * read of a stored object — the editor, history, diffs, graphs, scope
 * panels, REST — is redacted by `redactObject`, driven by the declaration
 * alone, so a new kind gets the rule by declaring its fields; and
 * `undeclaredCredentialFields` finds a kind whose schema has a
 * credential-shaped field and no declaration (the registry test).
 */
import { parseDocument, stringify } from 'yaml';
import { canManage, isDomainAdmin, type UserRoles } from '../acl';
import { audienceOf, strictestAudience, type SecretAudience } from '../state/types';
import { KINDS, type KindRegistry } from './kinds';
import type { CredentialDeclaration } from './sources/types';

/** The placeholder a reader without the right sees instead of a credential. */
export function credentialMarker(decl: Pick<CredentialDeclaration, 'audience' | 'what'>): string {
  return `<redacted: only ${decl.audience === 'namespace-admins' ? 'namespace admins' : 'domain admins'} see ${decl.what}>`;
}

/**
 * May someone with these roles see credentials of this audience used in
 * `namespace`? Namespace admins (and domain admins) for a user's own
 * secrets; domain admins only for the platform's — and for anything whose
 * audience is not known (`audienceOf`).
 */
export function mayReadCredentials(roles: UserRoles, audience: unknown, namespace: string): boolean {
  return audienceOf(audience) === 'namespace-admins' ? canManage(roles, 'bundle', namespace) : isDomainAdmin(roles);
}

type Path = readonly (string | number)[];

function matches(declared: readonly string[], path: Path): boolean {
  return declared.length === path.length && declared.every((seg, i) => seg === '*' || seg === String(path[i]));
}

/** The values at the declared fields of a document (absent and null fields hold nothing). */
export function declaredValues(decl: CredentialDeclaration, doc: unknown): unknown[] {
  const out: unknown[] = [];
  const walk = (v: unknown, field: readonly string[], depth: number) => {
    if (depth === field.length) {
      if (v !== undefined && v !== null) out.push(v);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const seg = field[depth]!;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (const [k, x] of entries) if (seg === '*' || seg === k) walk(x, field, depth + 1);
  };
  for (const f of decl.fields) walk(doc, f, 0);
  return out;
}

/** Strings shorter than this inside a credential are not hunted elsewhere in the object (every "v1" would go). */
const MIN_SECRET_CHARS = 4;

/**
 * Keys whose string values inside a credential name things rather than
 * being secret: a kubeconfig's cluster, user and context names, its
 * server, a namespace. Hunting those would redact every mention of
 * "kubernetes" or "default".
 */
const NAMING_KEYS = new Set(['name', 'namespace', 'kind', 'apiVersion', 'cluster', 'context', 'user', 'current-context', 'server', 'type']);

/** Every string inside credential values that is long enough to be worth hunting where it is repeated (names inside them are not). */
export function secretStrings(values: readonly unknown[], minChars = MIN_SECRET_CHARS): string[] {
  const out = new Set<string>();
  const collect = (v: unknown, key?: string) => {
    if (typeof v === 'string') {
      if (v.length >= minChars && (key === undefined || !NAMING_KEYS.has(key))) out.add(v);
    } else if (Array.isArray(v)) v.forEach((x) => collect(x));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, k);
  };
  values.forEach((v) => collect(v));
  return [...out];
}

/**
 * A copy of a document with every declared field replaced by the marker,
 * and every other string that contains a string of a credential (an alias
 * copies it; a hand-built URL embeds it) replaced too — except the strings
 * in `keep` (those naming the object, which every reader is shown anyway).
 * `secrets`: the strings to hunt, when more are known than the document's
 * own declared fields hold.
 */
export function redactDocument(decl: CredentialDeclaration, doc: unknown, opts: { keep?: ReadonlySet<string>; secrets?: readonly string[] } = {}): unknown {
  const secrets = opts.secrets ?? secretStrings(declaredValues(decl, doc));
  const keep = opts.keep ?? new Set<string>();
  const marker = credentialMarker(decl);
  const scrub = (v: unknown, path: (string | number)[]): unknown => {
    if (v !== undefined && v !== null && decl.fields.some((f) => matches(f, path))) return marker;
    if (typeof v === 'string') return !keep.has(v) && secrets.some((x) => v.includes(x)) ? marker : v;
    if (Array.isArray(v)) return v.map((x, i) => scrub(x, [...path, i]));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x, [...path, k])]));
    return v;
  };
  return scrub(doc, []);
}

/** The declaration of a kind, when its objects hold credentials. */
export function credentialsOf(kind: string, registry: KindRegistry = KINDS): CredentialDeclaration | undefined {
  return registry.spec(kind)?.credentials;
}

/** Does this object hold credentials its kind declares? */
export function holdsCredentials(o: { kind: string; spec: unknown }, registry: KindRegistry = KINDS): boolean {
  const decl = credentialsOf(o.kind, registry);
  return decl !== undefined && declaredValues(decl, o.spec).length > 0;
}

/**
 * An object as a reader without the right sees it: the parsed value
 * redacted, and the text rebuilt from the parsed document (redacted the
 * same way) rather than edited — a credential may be an anchor aliased
 * elsewhere, or repeated in a comment; comments and anchors are dropped.
 */
export function redactObject<T extends { kind: string; namespace: string; name: string; text: string; spec: unknown }>(o: T, registry: KindRegistry = KINDS): T {
  const decl = credentialsOf(o.kind, registry);
  if (!decl) return o;
  const keep = new Set([o.kind, o.namespace, o.name]);
  let whole: unknown;
  try {
    whole = parseDocument(o.text).toJS({ maxAliasCount: 1000 });
  } catch {
    whole = o.spec;
  }
  // What is hunted in either: the credentials of the stored value and of the text's own reading.
  const secrets = secretStrings([...declaredValues(decl, o.spec), ...declaredValues(decl, whole)]);
  const spec = redactDocument(decl, o.spec, { keep, secrets }) as T['spec'];
  return { ...o, spec, text: stringify(redactDocument(decl, whole, { keep, secrets }), { aliasDuplicateObjects: false, lineWidth: 0 }) };
}

// ------------------------------------------------------------------ the registry check

/**
 * Field names that hold credentials wherever they appear (compared
 * without case, `-` and `_`): what a reviewer would expect to be declared.
 */
const CREDENTIAL_NAME = /^(?:key|.*(?:kubeconfig|password|passwd|passphrase|token|secret|credential|privatekey|apikey|clientkey|accesskey|certkey))$/;
/** A field whose description says it holds credentials. */
const CREDENTIAL_WORDS = /\b(?:credentials?|secrets?|kubeconfig|passwords?|tokens?)\b/i;

type JsonSchema = Record<string, unknown>;

/** Every field a kind's JSON Schema names, with its path (`*` for array items and free-form keys) and description. */
function schemaFields(root: JsonSchema): { path: string[]; name: string; description?: string }[] {
  const out: { path: string[]; name: string; description?: string }[] = [];
  const seen = new Set<unknown>();
  const resolve = (s: JsonSchema): JsonSchema => {
    const ref = s.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return s;
    let at: unknown = root;
    for (const seg of ref.slice(2).split('/')) at = (at as Record<string, unknown> | undefined)?.[seg];
    return (at as JsonSchema | undefined) ?? {};
  };
  const walk = (raw: unknown, path: string[]) => {
    if (!raw || typeof raw !== 'object' || path.length > 32) return;
    const s = resolve(raw as JsonSchema);
    if (seen.has(s) && s !== raw) return;
    if (s !== raw) seen.add(s);
    for (const k of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(s[k])) for (const x of s[k] as unknown[]) walk(x, path);
    if (s.properties && typeof s.properties === 'object') {
      for (const [name, x] of Object.entries(s.properties as Record<string, JsonSchema>)) {
        const xs = resolve(x);
        out.push({ path: [...path, name], name, ...(typeof xs.description === 'string' ? { description: xs.description } : {}) });
        walk(x, [...path, name]);
      }
    }
    if (s.items && typeof s.items === 'object') walk(s.items, [...path, '*']);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, [...path, '*']);
  };
  walk(root, []);
  return out;
}

function covers(declared: readonly string[], field: readonly string[]): boolean {
  return declared.length <= field.length && declared.every((seg, i) => seg === '*' || seg === field[i]);
}

/** Credential-shaped fields (by name or description) of each kind that its declaration does not cover: `kind: a.b.c`. */
export function undeclaredCredentialFields(registry: KindRegistry = KINDS): string[] {
  const out: string[] = [];
  for (const kind of registry.kinds) {
    const declared = registry.spec(kind)?.credentials?.fields ?? [];
    for (const f of schemaFields(registry.jsonSchema(kind))) {
      // The registry describes the top-level `kind` with the kind's own description, not a field's.
      const described = f.path.length === 1 && f.name === 'kind' ? undefined : f.description;
      const shaped = CREDENTIAL_NAME.test(f.name.toLowerCase().replace(/[-_]/g, '')) || (described !== undefined && CREDENTIAL_WORDS.test(described));
      if (shaped && !declared.some((d) => covers(d, f.path))) out.push(`${kind}: ${f.path.join('.')}`);
    }
  }
  return out;
}

/**
 * Declared fields the kind's schema cannot hold (a closed object without
 * that property): a typo there would leave the real field unredacted.
 */
export function unreachableDeclarations(registry: KindRegistry = KINDS): string[] {
  const out: string[] = [];
  for (const kind of registry.kinds) {
    const schema = registry.jsonSchema(kind);
    for (const field of registry.spec(kind)?.credentials?.fields ?? []) {
      if (!reachable(schema, schema, field)) out.push(`${kind}: ${field.join('.')}`);
    }
  }
  return out;
}

function reachable(root: JsonSchema, raw: unknown, path: readonly string[]): boolean {
  if (path.length === 0) return true;
  if (!raw || typeof raw !== 'object') return raw !== false;
  let s = raw as JsonSchema;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    let at: unknown = root;
    for (const seg of s.$ref.slice(2).split('/')) at = (at as Record<string, unknown> | undefined)?.[seg];
    s = (at as JsonSchema | undefined) ?? {};
  }
  const branches = (['anyOf', 'oneOf', 'allOf'] as const).flatMap((k) => (Array.isArray(s[k]) ? (s[k] as unknown[]) : []));
  if (branches.length > 0 && branches.some((b) => reachable(root, b, path))) return true;
  const [seg, ...rest] = path as [string, ...string[]];
  const props = s.properties as Record<string, unknown> | undefined;
  if (props && seg !== '*' && seg in props) return reachable(root, props[seg], rest);
  if (s.items !== undefined && (seg === '*' || /^\d+$/.test(seg))) return reachable(root, s.items, rest);
  // A schema that says nothing of the value (unknown, loose) holds any field.
  if (s.type === undefined && props === undefined && branches.length === 0) return true;
  if (s.type === 'object' || props !== undefined) return s.additionalProperties !== false && reachable(root, s.additionalProperties ?? {}, rest);
  return false;
}

// ------------------------------------------------------------------ values derived from objects

/** Credentials a reader may not see, as strings to hunt for, and the placeholder that replaces them. */
export interface HiddenCredentials {
  marker: string;
  secrets: readonly string[];
}

/** The credentials of these objects that `hide` keeps from a reader (by each kind's declaration and the object's namespace). */
export function hiddenCredentials(
  objects: readonly { kind: string; namespace: string; spec: unknown }[],
  hide: (decl: CredentialDeclaration, namespace: string) => boolean,
  registry: KindRegistry = KINDS,
): HiddenCredentials[] {
  const out: HiddenCredentials[] = [];
  for (const o of objects) {
    const decl = credentialsOf(o.kind, registry);
    if (!decl || !hide(decl, o.namespace)) continue;
    const values = declaredValues(decl, o.spec);
    // Even without a string worth hunting (a short token, numbers), the object's copies inside the value are redacted.
    if (values.length > 0) out.push({ marker: credentialMarker(decl), secrets: secretStrings(values) });
  }
  return out;
}

/**
 * A value computed from objects (a scope graph's imports and exports, a
 * trace) as a reader sees it, given the credentials of those objects the
 * reader may not see (`hiddenCredentials`): every document inside it of a kind that
 * declares credentials is redacted by that declaration when `hide` says
 * so (a Landscaper installation imports whole Target objects), and every
 * string that contains a hidden credential's string becomes its marker
 * (a template copied it into an export).
 */
export function redactWithin(
  value: unknown,
  hidden: readonly HiddenCredentials[],
  hide: (decl: CredentialDeclaration, namespace: string) => boolean,
  registry: KindRegistry = KINDS,
): unknown {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      for (const h of hidden) if (h.secrets.some((x) => v.includes(x))) return h.marker;
      return v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const doc = v as Record<string, unknown>;
    const source = typeof doc.kind === 'string' ? registry.sourceOfDocument(doc) : undefined;
    const id = source?.identify(doc);
    const kind = id?.kind !== undefined ? registry.normalise(id.kind) : undefined;
    const decl = kind !== undefined ? credentialsOf(kind, registry) : undefined;
    const keep = new Set([id?.kind, id?.namespace, id?.name].filter((x): x is string => typeof x === 'string'));
    const own = decl && hide(decl, id?.namespace ?? '') ? (redactDocument(decl, doc, { keep }) as Record<string, unknown>) : doc;
    return Object.fromEntries(Object.entries(own).map(([k, x]) => [k, walk(x)]));
  };
  // The documents inside are copies of the objects `hidden` was taken from: nothing hidden, nothing to do.
  return hidden.length === 0 ? value : walk(value);
}

/** The credential strings objects hold, each with its audience: what a rendered value is checked against. */
export interface HeldCredentials {
  audience: SecretAudience;
  secrets: readonly string[];
  /**
   * Longer strings of the policy that everyone reads and that contain one
   * of the secrets (a TypeInstance whose value is "postgresql" beside the
   * Interface cap.interface.database.postgresql.install): an occurrence
   * inside such a string is that public text, not the credential.
   */
  publicText: readonly string[];
}

/**
 * Strings shorter than this are not followed into rendered values: a
 * kubeconfig's "Config" or "admin" would mark half the platform's
 * instances as holding it.
 */
const MIN_FOLLOWED_CHARS = 8;

export function heldCredentials(objects: readonly { kind: string; namespace?: string; name?: string; spec: unknown }[], registry: KindRegistry = KINDS): HeldCredentials[] {
  const held: { audience: SecretAudience; secrets: string[] }[] = [];
  for (const o of objects) {
    const decl = credentialsOf(o.kind, registry);
    // The strings naming the object (a kubeconfig names its cluster) are shown everywhere anyway.
    const secrets = decl ? secretStrings(declaredValues(decl, o.spec), MIN_FOLLOWED_CHARS).filter((x) => x !== o.name && x !== o.namespace) : [];
    if (decl && secrets.length > 0) held.push({ audience: decl.audience, secrets: [...secrets, ...secrets.map(base64)] });
  }
  if (held.length === 0) return [];
  // The walk over every object is for the rare text that holds a secret: a stage re-runs on each change to what it reads,
  // and its output seldom holds one, so it is done on first need, not here.
  let around: string[] | undefined;
  const publicAround = () => (around ??= publicStringsAround(objects, held.flatMap((h) => h.secrets), registry));
  return held.map((h) => {
    let mine: readonly string[] | undefined;
    return {
      ...h,
      get publicText() {
        return (mine ??= publicAround().filter((p) => h.secrets.some((x) => p.includes(x))));
      },
    };
  });
}

/** The strings of objects everyone reads (names, and specs of kinds that declare no credential) that contain a secret and are longer. */
function publicStringsAround(objects: readonly { kind: string; namespace?: string; name?: string; spec: unknown }[], secrets: readonly string[], registry: KindRegistry): string[] {
  const around = new Set<string>();
  const note = (v: unknown) => {
    // Strictly longer: a public string equal to a secret cannot tell the two apart, so the secret stays withheld.
    if (typeof v === 'string') {
      if (secrets.some((x) => v.length > x.length && v.includes(x))) around.add(v);
    } else if (Array.isArray(v)) v.forEach(note);
    else if (v && typeof v === 'object') Object.values(v).forEach(note);
  };
  for (const o of objects) {
    note(o.name);
    note(o.namespace);
    if (!credentialsOf(o.kind, registry)) note(o.spec);
  }
  return [...around];
}

/** Where in `text` the held secrets occur outside the public text that contains them: [start, end) pairs, in order, not overlapping. */
function secretSpans(text: string, held: readonly HeldCredentials[]): [number, number][] {
  const covered: [number, number][] = [];
  for (const h of held)
    for (const p of h.publicText)
      for (let at = text.indexOf(p); at >= 0; at = text.indexOf(p, at + 1)) covered.push([at, at + p.length]);
  const inPublic = (a: number, b: number) => covered.some(([s, e]) => s <= a && b <= e);
  const spans: [number, number][] = [];
  for (const h of held)
    for (const x of h.secrets)
      for (let at = text.indexOf(x); at >= 0; at = text.indexOf(x, at + 1)) if (!inPublic(at, at + x.length)) spans.push([at, at + x.length]);
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const sp of spans) {
    const last = merged[merged.length - 1];
    if (last && sp[0] <= last[1]) last[1] = Math.max(last[1], sp[1]);
    else merged.push([sp[0], sp[1]]);
  }
  return merged;
}

/** Whether `text` holds one of `h`'s secrets anywhere but inside public text. */
function holdsSecret(text: string, h: HeldCredentials): boolean {
  return h.secrets.some((x) => text.includes(x)) && secretSpans(text, [h]).length > 0;
}

/** `text` with every held secret replaced by `marker`, where it is not part of public text around it. */
export function withholdSecrets(text: string, held: readonly HeldCredentials[], marker: string): string {
  if (!held.some((h) => h.secrets.some((x) => text.includes(x)))) return text;
  let out = '';
  let from = 0;
  for (const [a, b] of secretSpans(text, held)) {
    out += text.slice(from, a) + marker;
    from = b;
  }
  return out + text.slice(from);
}

/**
 * The strictest audience of the credentials a rendered value holds (as
 * written, or base64-encoded as Kubernetes Secrets carry them): for
 * sources whose templates are not analysed for what they read, the value
 * is checked instead.
 */
export function audienceOfRendered(value: unknown, held: readonly HeldCredentials[]): SecretAudience | undefined {
  if (held.length === 0) return undefined;
  let found: SecretAudience | undefined;
  const walk = (v: unknown) => {
    if (found === 'domain-admins') return;
    if (typeof v === 'string') {
      for (const h of held) if (h.audience !== found && holdsSecret(v, h)) found = strictestAudience(found, h.audience);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return found;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 of a string's UTF-8 bytes. */
function base64(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=') + (i + 2 < bytes.length ? B64[n & 63]! : '=');
  }
  return out;
}
