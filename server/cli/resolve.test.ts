import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { rmSync } from 'node:fs';
import { parse } from 'yaml';
import { main } from './main';

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

const EX = 'corpus/aptomi/examples';
const TWITTER = [`${EX}/twitter-analytics/policy`, `${EX}/twitter-analytics/policy/clusters/clusters.yaml.template`];

describe('keelson resolve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-resolve-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('prints the desired state contract as JSON', async () => {
    const r = await cli('resolve', ...TWITTER, '--users', `${EX}/common/users.yaml`);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    assert.deepEqual(Object.keys(out), ['claims', 'instances', 'installations', 'errors']);
    assert.deepEqual(out.claims.map((c: { name: string; status: string }) => `${c.name}:${c.status}`), ['alice_dev:resolved', 'bob_dev:resolved', 'carol_dev:rejected', 'prod:resolved']);
    assert.equal(out.instances.length, 29);
    const zk = out.instances.find((i: { key: string }) => i.key === 'system#k8s-example#east#platform#zookeeper#platform#zookeeper');
    assert.deepEqual(Object.keys(zk), ['key', 'namespace', 'service', 'context', 'bundle', 'component', 'deployName', 'instanceId', 'code', 'discovery', 'labels', 'target', 'dependsOn', 'claims']);
    assert.equal(zk.deployName, 'a-ja659fj220954');
    assert.deepEqual(zk.target, { cluster: 'k8s-example', clusterNamespace: 'system', namespace: 'east' });
    assert.deepEqual(zk.claims, ['social/alice_dev', 'social/bob_dev', 'social/prod']);
    assert.equal(out.claims[0].trace, undefined, 'no traces unless asked');
  });

  test('--format yaml and --trace', async () => {
    const r = await cli('resolve', ...TWITTER, '--users', `${EX}/common/users.yaml`, '--format', 'yaml', '--trace');
    assert.equal(r.code, 0, r.err);
    const out = parse(r.out);
    const carol = out.claims.find((c: { name: string }) => c.name === 'carol_dev');
    assert.ok(carol.trace.some((s: { kind: string; message: string }) => s.kind === 'rule' && s.message.includes('system/no_access_for_mobile_dev_users')));
  });

  test('users files found among the paths are used when --users is not given', async () => {
    const r = await cli('resolve', `${EX}/twitter-analytics/policy`, `${EX}/twitter-analytics/policy/clusters/clusters.yaml.template`, `${EX}/common`);
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).claims.filter((c: { status: string }) => c.status === 'resolved').length, 3);
  });

  test('reference errors fail only their claims; schema errors fail the run', async () => {
    const file = join(dir, 'p.yaml');
    writeFileSync(file, '- {kind: claim, metadata: {namespace: main, name: c}, user: ghost, service: nowhere}\n');
    const ok = await cli('resolve', file);
    assert.equal(ok.code, 0);
    assert.match(JSON.parse(ok.out).claims[0].errors[0], /non-existing user 'ghost'/);
    writeFileSync(file, '- {kind: claim, metadata: {namespace: main, name: c}, user: ghost, servise: nowhere}\n');
    const bad = await cli('resolve', file);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /p\.yaml:1:\d+: unknown field "servise"/);
    assert.equal(bad.out, '');
  });

  test('usage errors exit 2', async () => {
    assert.equal((await cli('resolve')).code, 2);
    assert.equal((await cli('resolve', EX, '--format', 'xml')).code, 2);
  });
});
