import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectAtLine } from './object-at-line';

const DOCS = `kind: bundle
metadata: {namespace: platform, name: web}
components: []
---
kind: service
metadata:
  namespace: platform
  name: web
contexts: []
`;

test('a line of a --- document names that document’s object', () => {
  assert.equal(objectAtLine(DOCS, 2), 'bundle platform/web');
  assert.equal(objectAtLine(DOCS, 3), 'bundle platform/web');
  assert.equal(objectAtLine(DOCS, 5), 'service platform/web');
  assert.equal(objectAtLine(DOCS, 9), 'service platform/web');
  assert.equal(objectAtLine(DOCS, 4), undefined, 'the separator is no object');
});

test('a line of a list item names that item’s object', () => {
  const list = `- kind: claim
  metadata: {namespace: main, name: c1}
  user: alice
- kind: claim
  metadata: {namespace: main, name: c2}
  servic: web
`;
  assert.equal(objectAtLine(list, 3), 'claim main/c1');
  assert.equal(objectAtLine(list, 6), 'claim main/c2');
});

test('an object without a name is named as far as it can be; broken YAML names nothing', () => {
  assert.equal(objectAtLine('kind: claim\nuser: alice\n', 2), 'claim ?/?');
  assert.equal(objectAtLine('kind: [claim\n', 1), undefined);
});
