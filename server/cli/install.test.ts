/**
 * `keelson install` on the Landscaper corpus: the chain runs A B C D, a
 * cycle fails naming its path, and the seed's application installed twice
 * into one namespace gets two scopes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { main } from './main';

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

const DEPS = 'corpus/landscaper/test/integration/testdata/dependencies';
const BASE = `cd://componentReferences/base-component/resources/blueprint=${DEPS}/component-base/blueprint`;

describe('keelson install', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-install-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const target = join(dir, 'target.yaml');
  writeFileSync(target, stringify({ apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'Target', metadata: { name: 'my-cluster', namespace: 'example' }, spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster', config: { kubeconfig: 'apiVersion: v1' } } }));

  test('the chain runs its subinstallations one after another and exports ABCD', async () => {
    const r = await cli('install', `${DEPS}/installation-chain/installation.yaml`, target, '--blueprint', `blueprint=${DEPS}/component-chain/blueprint`, '--blueprint', BASE);
    assert.equal(r.code, 0, r.err + r.out);
    const out = JSON.parse(r.out);
    assert.deepEqual(out.order, ['dependencies-root', ...[1, 2, 3, 4].map((n) => `dependencies-root/dependencies-sub${n}`)]);
    assert.equal(out.installations[0].phase, 'Succeeded');
    assert.equal(out.dataObjects['Inst.dependencies-root/track4'], 'ABCD');
  });

  test('a cycle fails the root with the cycle path, exit 1', async () => {
    const r = await cli('install', `${DEPS}/installation-cycle/installation.yaml`, target, '--blueprint', `blueprint=${DEPS}/component-cycle/blueprint`, '--blueprint', BASE);
    assert.equal(r.code, 1);
    const root = JSON.parse(r.out).installations[0];
    assert.equal(root.phase, 'Failed');
    assert.match(root.errors[0], /the subinstallations have a cycle: dependencies-sub2 -\{depends_on\}-> dependencies-sub4 -\{depends_on\}-> dependencies-sub3 -\{depends_on\}-> dependencies-sub2/);
  });

  test('a folder holding blueprint.yaml is a blueprint, known by its folder name', async () => {
    const bp = join(dir, 'leaf');
    mkdirSync(bp);
    writeFileSync(
      join(bp, 'blueprint.yaml'),
      stringify({
        apiVersion: 'landscaper.gardener.cloud/v1alpha1',
        kind: 'Blueprint',
        imports: [{ name: 'config', type: 'data', schema: { type: 'string' } }],
        exports: [{ name: 'out', type: 'data', schema: { type: 'string' } }],
        exportExecutions: [{ name: 'export', type: 'GoTemplate', template: 'exports:\n  out: "got-{{ .imports.config }}"\n' }],
      }),
    );
    const objects = join(dir, 'objects.yaml');
    writeFileSync(
      objects,
      [
        { apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'DataObject', metadata: { name: 'config', namespace: 'demo' }, data: 'one' },
        ...['application', 'application2'].map((name) => ({
          apiVersion: 'landscaper.gardener.cloud/v1alpha1',
          kind: 'Installation',
          metadata: { name, namespace: 'demo' },
          spec: { blueprint: { ref: { resourceName: 'leaf' } }, imports: { data: [{ name: 'config', dataRef: 'config' }] }, exports: { data: [{ name: 'out', dataRef: `${name}-out` }] } },
        })),
      ]
        .map((o) => stringify(o))
        .join('---\n'),
    );
    const r = await cli('install', objects, bp, '--format', 'json');
    assert.equal(r.code, 0, r.err + r.out);
    const out = JSON.parse(r.out);
    assert.deepEqual(out.installations.map((i: { name: string; phase: string }) => [i.name, i.phase]), [
      ['application', 'Succeeded'],
      ['application2', 'Succeeded'],
    ]);
    assert.equal(out.dataObjects['application-out'], 'got-one');
    assert.equal(out.dataObjects['application2-out'], 'got-one');
  });

  test('two subinstallations named child under different parents open scopes of their own', async () => {
    const API = 'landscaper.gardener.cloud/v1alpha1';
    const folder = (name: string, blueprint: Record<string, unknown>) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'blueprint.yaml'), stringify({ apiVersion: API, kind: 'Blueprint', ...blueprint }));
      return join(dir, name);
    };
    const child = folder('child', {
      imports: [{ name: 'x', type: 'data', schema: { type: 'string' } }],
      exports: [{ name: 'out', type: 'data', schema: { type: 'string' } }],
      exportExecutions: [{ name: 'export', type: 'GoTemplate', template: 'exports:\n  out: "got-{{ .imports.x }}"\n' }],
    });
    const parent = folder('parent', {
      imports: [{ name: 'v', type: 'data', schema: { type: 'string' } }],
      exports: [{ name: 'out', type: 'data', schema: { type: 'string' } }],
      subinstallations: [{ name: 'child', blueprint: { ref: { resourceName: 'child' } }, imports: { data: [{ name: 'x', dataRef: 'v' }] }, exports: { data: [{ name: 'out', dataRef: 'childout' }] } }],
      exportExecutions: [{ name: 'export', type: 'GoTemplate', template: 'exports:\n  out: "{{ .dataobjects.childout }}"\n' }],
    });
    const objects = join(dir, 'parents.yaml');
    writeFileSync(
      objects,
      ['p1', 'p2']
        .flatMap((name, i) => [
          { apiVersion: API, kind: 'DataObject', metadata: { name: `${name}-v`, namespace: 'demo' }, data: ['one', 'two'][i] },
          { apiVersion: API, kind: 'Installation', metadata: { name, namespace: 'demo' }, spec: { blueprint: { ref: { resourceName: 'parent' } }, imports: { data: [{ name: 'v', dataRef: `${name}-v` }] }, exports: { data: [{ name: 'out', dataRef: `${name}-out` }] } } },
        ])
        .map((o) => stringify(o))
        .join('---\n'),
    );
    const r = await cli('install', objects, parent, child);
    assert.equal(r.code, 0, r.err + r.out);
    const out = JSON.parse(r.out);
    // Each child writes its import into the context it opens: one per parent, named by the whole path.
    assert.deepEqual(
      out.installations.map((i: { name: string; scope: string }) => [i.name, i.scope]),
      [
        ['p1', ''],
        ['p1/child', 'Inst.p1'],
        ['p2', ''],
        ['p2/child', 'Inst.p2'],
      ],
    );
    assert.equal(out.dataObjects['Inst.p1/child/x'], 'one');
    assert.equal(out.dataObjects['Inst.p2/child/x'], 'two');
    assert.equal(out.dataObjects['Inst.child/x'], undefined);
    assert.deepEqual([out.dataObjects['p1-out'], out.dataObjects['p2-out']], ['got-one', 'got-two']);
  });

  test('usage and input errors', async () => {
    assert.equal((await cli('install')).code, 2);
    assert.match((await cli('install', target, '--blueprint', 'nodir')).err, /--blueprint takes NAME=DIR/);
    const missing = await cli('install', target, '--blueprint', `x=${dir}/nowhere`);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /no blueprint\.yaml/);
  });
});
