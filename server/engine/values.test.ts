import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paramsEqual, qualifiedReference, splitReference } from './values';

test('paramsEqual: null, missing and empty are one "nothing"; key order is free, list order is not', () => {
  assert.ok(paramsEqual({ a: null }, { a: {} }));
  assert.ok(paramsEqual({ a: undefined, b: 1 }, { b: 1, a: [] }));
  assert.ok(paramsEqual({ x: 1, y: [1, 2] }, { y: [1, 2], x: 1 }));
  assert.ok(!paramsEqual([1, 2], [2, 1]));
  assert.ok(!paramsEqual({ a: 0 }, { a: null }));
  assert.ok(!paramsEqual({ a: '' }, { a: null }));
  assert.ok(!paramsEqual({ a: 1 }, { a: 1, b: 2 }));
});

test('references: "name" is relative to the namespace, "ns/name" is absolute', () => {
  assert.deepEqual(splitReference('db', 'main'), { namespace: 'main', name: 'db' });
  assert.deepEqual(splitReference('platform/db', 'main'), { namespace: 'platform', name: 'db' });
  assert.equal(qualifiedReference('db', 'main'), 'main/db');
  assert.equal(qualifiedReference('platform/db', 'main'), 'platform/db');
});
