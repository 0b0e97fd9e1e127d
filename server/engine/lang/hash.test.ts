import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { deployName, fnv1a32, fnv1a64, instanceId } from './hash';
import { resolutionKey } from '../../testing/hostile-engine';

test('instance ids and deploy names match Aptomi', () => {
  const table: [string, string, string][] = [
    ['system#k8s-example#east#social#twitter_stats#realtime#root', '1184152539', 'a-tn3tk8irlek3m'],
    ['system#k8s-example#east#platform#zookeeper#platform#zookeeper', '3753878194', 'a-ja659fj220954'],
  ];
  for (const [key, id, name] of table) {
    assert.equal(instanceId(key), id, key);
    assert.equal(deployName(key), name, key);
  }
  assert.equal(deployName('system#cluster1#k8ns#main#service1#ctx1#comp1'), 'a-gb3t3voub0l5s');
});

test('every instance of the golden Aptomi example output', () => {
  const file = fileURLToPath(new URL('../../../corpus/aptomi/derived/expected-examples.yaml', import.meta.url));
  const golden = parse(readFileSync(file, 'utf8')) as Record<
    string,
    { instances?: Record<string, { deployName: string; instanceId: number }> }
  >;
  let checked = 0;
  for (const scenario of Object.values(golden)) {
    for (const [key, inst] of Object.entries(scenario.instances ?? {})) {
      assert.equal(deployName(key), inst.deployName, key);
      assert.equal(instanceId(key), String(inst.instanceId), key);
      checked++;
    }
  }
  assert.ok(checked >= 66, `checked ${checked} instances`);
});

test('FNV-1a reference vectors', () => {
  assert.equal(fnv1a32(''), 0x811c9dc5);
  assert.equal(fnv1a32('a'), 0xe40c292c);
  assert.equal(fnv1a32('foobar'), 0xbf9cf968);
  assert.equal(fnv1a64(''), 0xcbf29ce484222325n);
  assert.equal(fnv1a64('a'), 0xaf63dc4c8601ec8cn);
  assert.equal(fnv1a64('foobar'), 0x85944171f73967e8n);
});

test('non-ASCII keys hash their UTF-8 bytes', () => {
  const reference = (s: string): bigint => {
    let h = 0xcbf29ce484222325n;
    for (const b of new TextEncoder().encode(s)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
    return h;
  };
  for (const key of ['ns#clüster#k8s#svc#ctx#comp', 'ключ', '🙂#x', 'lone\ud800surrogate']) {
    assert.equal(fnv1a64(key), reference(key), key);
  }
  // "é" is the two bytes C3 A9 in UTF-8, not the single UTF-16 unit E9.
  const fnv32OfBytes = (bytes: number[]) => bytes.reduce((h, b) => Math.imul(h ^ b, 0x01000193) >>> 0, 0x811c9dc5);
  assert.equal(fnv1a32('é'), fnv32OfBytes([0xc3, 0xa9]));
  assert.notEqual(fnv1a32('é'), fnv32OfBytes([0xe9]));
});

test('the keys of a 20,000-claim resolution hash to distinct, well-formed ids and names', () => {
  // How fast is the `limits` benchmark's figure (limits.hash_20k.ms), not an assertion here.
  const ids = new Set<string>();
  const names = new Set<string>();
  for (let i = 0; i < 20_000; i++) {
    const key = resolutionKey(i);
    ids.add(instanceId(key));
    names.add(deployName(key));
  }
  assert.equal(ids.size, 20_000);
  assert.equal(names.size, 20_000);
  for (const id of ids) assert.match(id, /^\d+$/);
  for (const name of names) assert.match(name, /^a-[0-9a-v]{13}$/);
});
