import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { crc32, readZip, writeZip, ZipError } from './zip';

const enc = (s: string) => new TextEncoder().encode(s);
const zip = (files: Record<string, string | Uint8Array>) =>
  writeZip(
    Object.entries(files).map(([path, v]) => ({ path, bytes: typeof v === 'string' ? enc(v) : v })),
    (b) => deflateRawSync(b),
  );
const refused = (data: Uint8Array, re: RegExp, limits?: Parameters<typeof readZip>[1]) =>
  assert.throws(
    () => readZip(data, limits),
    (e: unknown) => e instanceof ZipError && re.test(e.message),
  );

describe('zip reader', () => {
  test('reads back what was written, in order, folders skipped', () => {
    const files = readZip(zip({ 'deployment/main.yaml': 'kind: claim\n', 'deployment/': '', 'lib/x.yaml': 'a: 1\n' }));
    assert.deepEqual(
      files.map((f) => [f.path, new TextDecoder().decode(f.bytes)]),
      [
        ['deployment/main.yaml', 'kind: claim\n'],
        ['lib/x.yaml', 'a: 1\n'],
      ],
    );
  });

  test('crc32 matches the standard check value', () => {
    assert.equal(crc32(enc('123456789')), 0xcbf43926);
  });

  test('refuses what is not a zip, paths that leave the bundle, and corrupt entries', () => {
    refused(enc('hello, not a zip at all, just text that goes on'), /not a zip archive/);
    for (const bad of ['../etc/passwd', '/abs.yaml', 'a/../../b', 'c:\\x', 'a\\b']) refused(zip({ [bad]: 'x' }), /could leave the bundle/);
    const good = zip({ 'a.yaml': 'value: 1\n' });
    // Flip one byte of the stored data: the checksum no longer matches, or it no longer inflates.
    const bad = Uint8Array.from(good);
    bad[30 + 'a.yaml'.length]! ^= 0xff;
    assert.throws(() => readZip(bad), ZipError);
  });

  test('limits: entry count, entry size, total size, and a bomb that lies about its size', () => {
    refused(zip({ a: 'x', b: 'y', c: 'z' }), /holds 3 entries; at most 2/, { maxEntries: 2, maxEntryBytes: 100, maxTotalBytes: 1000 });
    refused(zip({ a: 'x'.repeat(200) }), /at most 100 are accepted per file/, { maxEntries: 10, maxEntryBytes: 100, maxTotalBytes: 1000 });
    refused(zip({ a: 'x'.repeat(90), b: 'y'.repeat(90) }), /unpacks to over 150 bytes/, { maxEntries: 10, maxEntryBytes: 100, maxTotalBytes: 150 });
    // A bomb: 10 MB of zeros declared as 10 bytes (sizes patched in both headers).
    const bomb = Buffer.from(zip({ z: new Uint8Array(10 * 1024 * 1024) }));
    const dir = bomb.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bomb.writeUInt32LE(10, 22);
    bomb.writeUInt32LE(10, dir + 24);
    refused(bomb, /does not inflate to its declared 10 bytes/);
  });
});
