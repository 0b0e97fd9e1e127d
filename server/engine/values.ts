/**
 * Value helpers shared by every engine stage, named for their semantics
 * (there is more than one reasonable "equal" for YAML values).
 */

/**
 * Equal as Aptomi compares rendered parameters and discovery: structural
 * equality of JSON values where `null`, a missing key's `undefined` and an
 * empty map or list all count as "nothing" (YAML writes an empty parameter
 * in each of these ways, and Aptomi's comparison after decoding does not
 * tell them apart). Key order does not matter; list order does.
 */
export function paramsEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return (a ?? null) === (b ?? null) || (isNothing(a) && isNothing(b));
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!paramsEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  for (const k of ak) if (!(k in bo) || !paramsEqual(ao[k], bo[k])) return false;
  return true;
}

function isNothing(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'object' && Object.keys(v as object).length === 0);
}

/**
 * A reference to an object of the same kind family: `name` (in `namespace`)
 * or `ns/name`. Parsed here only, so every stage reads references alike.
 */
export function splitReference(ref: string, namespace: string): { namespace: string; name: string } {
  const i = ref.indexOf('/');
  return i < 0 ? { namespace, name: ref } : { namespace: ref.slice(0, i), name: ref.slice(i + 1) };
}

/** `ns/name` for a reference written relative to `namespace`. */
export function qualifiedReference(ref: string, namespace: string): string {
  const r = splitReference(ref, namespace);
  return `${r.namespace}/${r.name}`;
}

/**
 * Freeze a value and everything it holds, for values cached and handed to
 * many readers: one that changed it in place would throw instead of
 * changing what every later reader gets.
 */
export function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
  return v;
}
