import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isYamlFile, joinImportedFiles } from './import-files';

test('imported files become --- documents in the order picked, each file as written', () => {
  const text = joinImportedFiles([
    { name: 'a.yaml', text: '# bundle a\nkind: bundle\nmetadata: {namespace: main, name: a}\n' },
    { name: 'b.yaml', text: '---\n- kind: claim\n  metadata: {namespace: main, name: c1}\n---\nkind: claim\nmetadata: {namespace: main, name: c2}' },
    { name: 'empty.yaml', text: '\n\n' },
  ]);
  assert.equal(
    text,
    '# bundle a\nkind: bundle\nmetadata: {namespace: main, name: a}\n---\n- kind: claim\n  metadata: {namespace: main, name: c1}\n---\nkind: claim\nmetadata: {namespace: main, name: c2}\n',
  );
});

test('a byte-order mark does not become part of the first key', () => {
  assert.equal(joinImportedFiles([{ name: 'a.yml', text: '\uFEFFkind: claim\n' }]), 'kind: claim\n');
});

test('only .yaml and .yml files are taken', () => {
  assert.deepEqual(['a.yaml', 'B.YML', 'c.zip', 'blueprint', 'x.json'].map(isYamlFile), [true, true, false, false, false]);
});
