/**
 * tRPC answers are written in one plain pass (wire.ts), in superjson's form:
 * whatever the console, the CLI and React Query read with superjson must
 * read back exactly as the service answered it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import superjson from 'superjson';
import { serialize, wire } from './wire';

// Answers as the services give them: plain objects and arrays of strings, finite numbers, booleans, null,
// undefined and Dates — with keys that need escaping in superjson's paths ('.', '\').
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a.b', 'x\\y', '.', '\\.', 'createdAt', '0'));
const leaf = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date({ noInvalidDate: true }),
);
const answer = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5 }).map((o) => Object.assign({}, o)),
})).value;

test('an answer is written exactly as superjson writes it, and reads back the same', () => {
  fc.assert(
    fc.property(answer, (v) => {
      assert.deepStrictEqual(serialize(v), superjson.serialize(v));
      assert.deepStrictEqual(wire.deserialize(serialize(v)), v);
    }),
    { numRuns: 2_000 },
  );
});

test('a revisions page: Dates at their paths, the rows as they were', () => {
  const at = new Date('2026-11-27T07:00:00.000Z');
  const page = [
    { id: 2, status: 'pending', createdAt: at, decidedAt: null, cost: { total: 1.5 } },
    { id: 1, status: 'applied', createdAt: new Date(at.getTime() - 1000), decidedAt: at, note: undefined },
  ];
  const written = serialize(page);
  assert.deepEqual(written.meta?.values, { '0.createdAt': ['Date'], '1.createdAt': ['Date'], '1.decidedAt': ['Date'], '1.note': ['undefined'] });
  assert.equal((written.json as { createdAt: string }[])[0]!.createdAt, '2026-11-27T07:00:00.000Z');
  assert.deepStrictEqual(superjson.deserialize(written as never), page);
  // Nothing to mark: no meta at all, as superjson writes it.
  assert.deepStrictEqual(serialize({ a: [1, 'x', null] }), { json: { a: [1, 'x', null] } });
});

test('what the plain pass cannot write goes through superjson whole', () => {
  for (const v of [{ m: new Map([[1, 2]]) }, { n: Number.NaN }, [Number.POSITIVE_INFINITY], { z: -0 }, { big: 10n }, { s: new Set([1]) }, new Date(Number.NaN)]) {
    assert.deepStrictEqual(serialize(v), superjson.serialize(v));
    assert.deepStrictEqual(superjson.deserialize(serialize(v) as never), v);
  }
});

test('a key superjson refuses (prototype pollution) is refused as superjson refuses it, never written onto a prototype', () => {
  for (const v of [JSON.parse('{"__proto__": {"polluted": true}}'), { constructor: 1 }, { a: [{ prototype: 'x' }] }]) {
    assert.throws(() => superjson.serialize(v), /prototype pollution/);
    assert.throws(() => serialize(v), /prototype pollution/);
  }
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
});
