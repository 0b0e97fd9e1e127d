/**
 * How tRPC answers are written: superjson's wire form (the console, the
 * CLI and React Query's hydration read it with superjson), produced in one
 * plain pass over the answer.
 *
 * Why not superjson.serialize itself: it walks every value with its path
 * and records each object's identity (to restore shared references), so
 * answers of a few hundred rows cost tens of milliseconds of the request
 * thread. Under the load test's mix it was 11.8 s of 75 s of that thread —
 * more than any service — and every other request queued behind it.
 *
 * Our answers are zod-checked plain data: objects, arrays, strings, finite
 * numbers, booleans, null, undefined and Dates. This pass writes those as
 * superjson does (a Date as its ISO string with a `Date` mark at its path,
 * undefined as null with an `undefined` mark); shared references are not
 * recorded (equal values arrive, not the same object — nothing here relies
 * on identity). Anything else (a Map, a BigInt, NaN, -0, a class instance,
 * a key superjson refuses such as `__proto__`) sends the whole answer
 * through superjson, so the form — or the refusal — is always superjson's.
 * Requests are read with superjson.
 */
import superjson from 'superjson';

type Marks = Record<string, [string]>;

/** Thrown inside the pass when a value needs superjson. */
const NEEDS_SUPERJSON = Symbol('needs superjson');

/** superjson's path syntax: segments joined by '.', with '\' and '.' in a key escaped. */
const escapeKey = (key: string) => (key.includes('.') || key.includes('\\') ? key.replace(/\\/g, '\\\\').replace(/\./g, '\\.') : key);

export function serialize(value: unknown): { json: unknown; meta?: { values: Marks | [string]; v: 1 } } {
  const marks: Marks = {};
  let rootMark: string | undefined;
  const path: string[] = [];
  const mark = (type: string) => {
    if (path.length === 0) rootMark = type;
    else marks[path.map(escapeKey).join('.')] = [type];
  };
  const walk = (v: unknown): unknown => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        if (!Number.isFinite(v) || Object.is(v, -0)) throw NEEDS_SUPERJSON;
        return v;
      case 'undefined':
        mark('undefined');
        return null;
      case 'object':
        break;
      default:
        throw NEEDS_SUPERJSON;
    }
    if (v === null) return null;
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) {
        path.push(String(i));
        out[i] = walk(v[i]);
        path.pop();
      }
      return out;
    }
    if (v instanceof Date) {
      if (Number.isNaN(v.getTime())) throw NEEDS_SUPERJSON;
      mark('Date');
      return v.toISOString();
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) throw NEEDS_SUPERJSON;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      // superjson refuses these keys (prototype pollution): so does the answer, exactly as superjson would.
      if (k === '__proto__' || k === 'constructor' || k === 'prototype') throw NEEDS_SUPERJSON;
      path.push(k);
      out[k] = walk((v as Record<string, unknown>)[k]);
      path.pop();
    }
    return out;
  };
  let json: unknown;
  try {
    json = walk(value);
  } catch (e) {
    if (e === NEEDS_SUPERJSON) return superjson.serialize(value) as ReturnType<typeof serialize>;
    throw e;
  }
  if (rootMark !== undefined) return { json, meta: { values: [rootMark], v: 1 } };
  for (const _ in marks) return { json, meta: { values: marks, v: 1 } };
  return { json };
}

/** tRPC's transformer: answers written by `serialize`, requests read with superjson. */
export const wire = {
  serialize,
  deserialize: (data: unknown) => superjson.deserialize(data as Parameters<typeof superjson.deserialize>[0]),
};
