import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { entryPath, readZip } from './zip';

test('a zip is read into its text files, by path, in order', () => {
  const zip = zipSync({ 'app/blueprint.yaml': strToU8('kind: Blueprint\n'), 'app/': new Uint8Array(), 'a.yaml': strToU8('kind: claim\n') });
  const r = readZip('x.zip', zip);
  assert.equal(r.problem, undefined);
  assert.deepEqual(r.entries, [
    { path: 'a.yaml', text: 'kind: claim\n' },
    { path: 'app/blueprint.yaml', text: 'kind: Blueprint\n' },
  ]);
});

test('binary files and paths that climb out of the zip are skipped by name, not read', () => {
  const zip = zipSync({ 'logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]), '../evil.yaml': strToU8('kind: claim\n'), 'ok.yaml': strToU8('a: 1\n') });
  const r = readZip('x.zip', zip);
  assert.deepEqual(r.entries.map((e) => e.path), ['ok.yaml']);
  assert.deepEqual(r.skipped.sort(), ['../evil.yaml (a path outside the zip)', 'logo.png (not text)']);
  assert.equal(entryPath('a/./b//c.yaml'), 'a/b/c.yaml');
  assert.equal(entryPath('/abs/x.yaml'), 'abs/x.yaml');
});

test('a zip that unpacks past the limit is refused whole, before it is unpacked', () => {
  // 64 KiB of zeros packs into a few hundred bytes: small to send, large to open.
  const zip = zipSync({ 'a.yaml': new Uint8Array(64 * 1024), 'b.yaml': strToU8('kind: claim\n') });
  assert.ok(zip.length < 2048);
  const r = readZip('bomb.zip', zip, { bytes: 32 * 1024, files: 10 });
  assert.deepEqual(r.entries, []);
  assert.equal(r.problem, 'bomb.zip was not imported: it unpacks to more than 32 KiB');
});

test('a zip of more files than an import holds is refused whole', () => {
  const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}.yaml`, strToU8('a: 1\n')]));
  const r = readZip('many.zip', zipSync(files), { bytes: 1 << 20, files: 4 });
  assert.deepEqual(r.entries, []);
  assert.equal(r.problem, 'many.zip was not imported: it holds more than 4 files');
});

test('a file that is not a zip says so', () => {
  const r = readZip('notes.zip', new TextEncoder().encode('just text, not a zip'));
  assert.deepEqual(r.entries, []);
  assert.match(r.problem!, /^notes\.zip could not be read as a zip/);
});
