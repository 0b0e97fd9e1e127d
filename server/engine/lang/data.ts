/**
 * Plain-data helpers every layer shares: the engine's folders (this is its
 * lowest), the server and the console. One definition each, so "is this a
 * YAML mapping?" and "how is a field's path written?" have one answer.
 */

/**
 * A YAML/JSON mapping: a non-null object that is not an array. Values read
 * from YAML or JSON are plain objects; languages whose maps are something
 * else (Go templates' `Map`s, spiff's lambdas) narrow this further.
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `a.b[2].c`: a field's path as errors name it. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}
