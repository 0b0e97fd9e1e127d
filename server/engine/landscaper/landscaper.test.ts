/**
 * Golden tests: the expectations in corpus/landscaper/derived/expected-outcomes.yaml
 * (transcribed from Landscaper's Go tests), read as data, over the copied fixtures.
 */
import assert from 'node:assert/strict';
import { removedInstallations, scopeGraph, withDelivery, type Removal, type ScopeGraph, type ScopeInstallation } from './scope-graph';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { dataObjectName, exportsOf, importsOf, installAll, parseYamlDocuments, type Filesystem, type InstallRun } from './index';

const CORPUS = join(process.cwd(), 'corpus/landscaper');
const expected = parse(readFileSync(join(CORPUS, 'derived/expected-outcomes.yaml'), 'utf8')) as Record<string, Record<string, unknown>[]>;

function dirFs(dir: string): Filesystem {
  const out: Filesystem = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile()) out[e.name] = readFileSync(join(dir, e.name), 'utf8');
    else if (e.isDirectory()) for (const [k, v] of Object.entries(dirFs(join(dir, e.name)))) out[`${e.name}/${k}`] = v;
  }
  return out;
}

/** The unit "state" fixtures are Go templates naming DataObjects by context and key. */
function expandState(text: string): string {
  return text.replace(/\{\{\s*dataObjectName\s+(?:""|\(\s*dataObjectContext\s+"[^"]*"\s+"([^"]*)"\s*\))\s+"([^"]*)"\s*\}\}/g, (_, inst: string | undefined, key: string) =>
    dataObjectName(inst ? `Inst.${inst}` : '', key),
  );
}

function stateObjects(dir: string): unknown[] {
  const abs = join(CORPUS, dir);
  return readdirSync(abs)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => parseYamlDocuments(expandState(readFileSync(join(abs, f), 'utf8'))));
}

/** The local registry: resource name → blueprint blob. */
const registry = (() => {
  const base = join(CORPUS, 'pkg/landscaper/installations/testdata/registry');
  const cd = parse(readFileSync(join(base, 'component-descriptor.yaml'), 'utf8')) as { component: { resources: { name: string; access: { filename: string } }[] } };
  const out: Record<string, Filesystem> = {};
  for (const r of cd.component.resources) {
    const dir = join(base, 'blobs', r.access.filename);
    if (existsSync(join(dir, 'blueprint.yaml'))) out[r.name] = dirFs(dir);
  }
  return out;
})();

const BASE_BLUEPRINT = 'cd://componentReferences/base-component/resources/blueprint';
const CLUSTER = { apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'Target', metadata: { name: 'my-cluster', namespace: 'example' }, spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster', config: { kubeconfig: 'apiVersion: v1' } } };

function yamlFile(path: string): unknown[] {
  return parseYamlDocuments(readFileSync(join(CORPUS, path), 'utf8'));
}

function root(run: InstallRun, name: string) {
  const r = run.installations.find((i) => i.name === name);
  assert.ok(r, `installation ${name} in the result`);
  return r;
}

describe('imports (imports/constructor_test.go)', () => {
  for (const c of expected.imports!) {
    const label = `${c.state} ${c.installation}`;
    test(label, () => {
      const r = importsOf({ objects: stateObjects(c.state as string), blueprints: registry }, c.installation as string);
      if (c.expectImports) {
        assert.ok(r.ok, JSON.stringify(r));
        // Target imports are whole Target objects; the corpus shows the spec subset.
        for (const [k, v] of Object.entries(c.expectImports as Record<string, unknown>)) {
          const got = r.imports[k] as Record<string, unknown>;
          if (typeof v === 'object' && v && 'spec' in v) assert.deepEqual(got.spec, (v as { spec: unknown }).spec, k);
          else assert.deepEqual(got, v, k);
        }
        assert.deepEqual(Object.keys(r.imports).sort(), Object.keys(c.expectImports as object).sort());
      }
      const want = c.renderImportExecutions as { ok: boolean; imports?: Record<string, unknown>; error?: string; condition?: unknown } | undefined;
      if (want) {
        assert.equal(r.ok, want.ok, JSON.stringify(r));
        if (r.ok) for (const [k, v] of Object.entries(want.imports ?? {})) assert.deepEqual(r.imports[k], v, k);
        else {
          assert.equal(r.error.message, want.error);
          assert.deepEqual(r.condition, want.condition);
        }
      }
    });
  }
});

describe('exports (exports/constructor_test.go)', () => {
  for (const [i, c] of expected.exports!.entries()) {
    test(`${c.state} ${c.installation} #${i}`, () => {
      const blueprints = { ...registry };
      let override = c.blueprintExportExecutionOverride as string | undefined;
      if (override === 'same as test1') override = expected.exports![0]!.blueprintExportExecutionOverride as string;
      if (override) {
        const bp = parse(blueprints.root!['blueprint.yaml']!) as Record<string, unknown>;
        bp.exportExecutions = [{ name: 'override', type: 'GoTemplate', template: override }];
        blueprints.root = { 'blueprint.yaml': stringify(bp) };
      }
      const r = exportsOf({ objects: stateObjects(c.state as string), blueprints }, c.installation as string);
      if (c.expectError) {
        assert.equal(r.ok, false);
        assert.ok(!r.ok && /no "exports" map/.test(r.error.message), JSON.stringify(r));
        return;
      }
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(r.dataObjects, c.expectDataObjects);
    });
  }
});

function dependencyRun(c: Record<string, unknown>): InstallRun {
  return installAll({
    objects: [...yamlFile(c.installation as string), CLUSTER],
    blueprints: {
      blueprint: dirFs(join(CORPUS, c.blueprintDir as string)),
      [BASE_BLUEPRINT]: dirFs(join(CORPUS, 'test/integration/testdata/dependencies/component-base/blueprint')),
    },
  });
}

describe('dependencies (test/integration/dependencies)', () => {
  for (const c of expected.dependencies!) {
    const want = c.expect as { phase: string; dataObjects?: Record<string, unknown> };
    test(`${c.installation} → ${want.phase}`, () => {
      const run = dependencyRun(c);
      const r = root(run, 'dependencies-root');
      assert.equal(r.phase, want.phase, JSON.stringify(r.errors));
      if (want.dataObjects) for (const [k, v] of Object.entries(want.dataObjects)) assert.equal(run.dataObjects[k], v, k);
    });
  }

  test('chain: the subinstallations run one after the other, A B C D', () => {
    const run = dependencyRun(expected.dependencies![0]!);
    assert.deepEqual(run.order, ['dependencies-root', ...[1, 2, 3, 4].map((n) => `dependencies-root/dependencies-sub${n}`)]);
    assert.deepEqual(run.installations.map((i) => [i.name, i.phase, i.exports.trackOut ?? i.exports.track]), [
      ['dependencies-root', 'Succeeded', 'ABCD'],
      ['dependencies-root/dependencies-sub1', 'Succeeded', 'A'],
      ['dependencies-root/dependencies-sub2', 'Succeeded', 'AB'],
      ['dependencies-root/dependencies-sub3', 'Succeeded', 'ABC'],
      ['dependencies-root/dependencies-sub4', 'Succeeded', 'ABCD'],
    ]);
    assert.deepEqual(
      root(run, 'dependencies-root').phases.map((p) => p.phase),
      ['Init', 'ObjectsCreated', 'Progressing', 'Completing', 'Succeeded'],
    );
    // Children's exports live in the root's scope, not in the namespace's.
    assert.equal(run.dataObjects['Inst.dependencies-root/track4'], 'ABCD');
    assert.equal(run.dataObjects.track4, undefined);
  });

  test('join: sub4 waits for sub1, sub2 and sub3', () => {
    const run = dependencyRun(expected.dependencies![1]!);
    assert.equal(run.order.at(-1), 'dependencies-root/dependencies-sub4');
  });

  test('cycle: the root fails with the cycle path sub2 → sub4 → sub3 → sub2', () => {
    const run = dependencyRun(expected.dependencies![2]!);
    const r = root(run, 'dependencies-root');
    assert.equal(r.phase, 'Failed');
    assert.deepEqual(r.errors.map((e) => [e.code, e.cycle]), [['cycle', ['dependencies-sub2', 'dependencies-sub4', 'dependencies-sub3', 'dependencies-sub2']]]);
    assert.equal(r.errors[0]!.message, 'the subinstallations have a cycle: dependencies-sub2 -{depends_on}-> dependencies-sub4 -{depends_on}-> dependencies-sub3 -{depends_on}-> dependencies-sub2');
    assert.equal(run.installations.length, 1, 'no subinstallation is created');
  });

  test('conflict: two siblings export track1', () => {
    const run = dependencyRun(expected.dependencies![3]!);
    const r = root(run, 'dependencies-root');
    assert.equal(r.phase, 'Failed');
    assert.deepEqual(r.errors[0]!.exportedBy, { key: 'track1', installations: ['dependencies-sub1', 'dependencies-sub2'] });
    assert.equal(r.errors[0]!.message, "the following exports are exported by multiple nested installations: 'track1' is exported by [dependencies-sub1, dependencies-sub2]");
  });
});

describe('import-export (test/integration/importexport)', () => {
  const blueprints = { blueprint: dirFs(join(CORPUS, 'test/integration/testdata/import-export/v0.1.0/blueprint')) };
  const objectsOf = (installation: string, withDataObject?: string) => {
    const dir = installation.slice(0, installation.lastIndexOf('/'));
    const files = readdirSync(join(CORPUS, dir)).filter((f) => f.startsWith('import-do-') && (!withDataObject || !/-(pos|neg)\.yaml$/.test(f) || f === withDataObject));
    return [...yamlFile(installation), ...files.flatMap((f) => yamlFile(`${dir}/${f}`)), CLUSTER];
  };

  // The corpus's successful cases: the blueprint renders a ConfigMap with Sprig's toYaml/nindent; the mock
  // deployer applies it in memory, and the exports read it back.
  for (const c of expected.importExport!.filter((x) => (x.expect as { phase: string }).phase === 'Succeeded')) {
    test(`${c.installation}${c.withDataObject ? ` with ${c.withDataObject}` : ''} → Succeeded`, () => {
      const run = installAll({ objects: objectsOf(c.installation as string, c.withDataObject as string | undefined), blueprints });
      const r = root(run, 'import-export-1');
      assert.equal(r.phase, 'Succeeded', JSON.stringify(r.errors));
      const want = (c.expect as { dataObjects?: Record<string, unknown> }).dataObjects;
      if (want) for (const [k, v] of Object.entries(want)) assert.deepEqual(run.dataObjects[k], v, k);
    });
  }

  test('installation-5 without its required import fails in Init', () => {
    const run = installAll({ objects: objectsOf('test/integration/testdata/import-export/installation-5/installation-neg.yaml'), blueprints });
    const r = root(run, 'import-export-1');
    assert.equal(r.phase, 'Failed');
    assert.equal(r.errors[0]!.message, 'blueprint defines import "configmapNameIn" of type data, which is not satisfied');
    assert.deepEqual(r.phases.map((p) => p.phase), ['Init', 'Failed']);
  });

  test('installation-6 with a non-string name fails its JSON schema', () => {
    const run = installAll({ objects: objectsOf('test/integration/testdata/import-export/installation-6/installation.yaml', 'import-do-name-neg.yaml'), blueprints });
    const r = root(run, 'import-export-1');
    assert.equal(r.phase, 'Failed');
    assert.equal(r.errors[0]!.code, 'import_schema');
    assert.equal(r.errors[0]!.message, 'imported datatype does not have the expected schema: import "configmapNameIn": (root): Invalid type. Expected: string, given: boolean');
  });
});

describe('import execution (test/integration/importexport/import_executions.go)', () => {
  const blueprints = { blueprint: dirFs(join(CORPUS, 'test/integration/testdata/import-execution/v0.1.0/blueprint')) };
  for (const c of expected.importExecution!) {
    const want = c.expect as { phase: string; lastErrorContains?: string; 'deployItemConfig.imps'?: Record<string, unknown> };
    test(`importDataMappings ${JSON.stringify(c.importDataMappingsAddedByTest)} → ${want.phase}`, () => {
      const [inst] = yamlFile(c.installation as string) as { spec: Record<string, unknown> }[];
      inst!.spec.importDataMappings = c.importDataMappingsAddedByTest;
      const run = installAll({ objects: [inst], blueprints });
      const r = root(run, 'import-execution-1');
      assert.equal(r.phase, want.phase, JSON.stringify(r.errors));
      if (want.lastErrorContains) assert.ok(r.errors.at(-1)!.message.includes(want.lastErrorContains), r.errors.at(-1)!.message);
      const imps = want['deployItemConfig.imps'];
      if (imps) {
        const got = (r.deployItems[0]!.config as { imps: Record<string, unknown> }).imps;
        const byKey = (l: unknown) => [...(l as { key: string }[])].sort((a, b) => a.key.localeCompare(b.key));
        assert.deepEqual({ ...got, mapToList: byKey(got.mapToList) }, { ...imps, mapToList: byKey(imps.mapToList) });
        assert.equal(r.deployItems[0]!.type, 'landscaper.gardener.cloud/mock');
      }
    });
  }
});

describe('scopes (seed: application and application2 in one namespace)', () => {
  const leaf = (exportName: string, value: string) => ({
    'blueprint.yaml': stringify({
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Blueprint',
      imports: [
        { name: 'cluster', targetType: 'kubernetes-cluster' },
        { name: 'in', type: 'data', required: false, schema: { type: 'string' } },
      ],
      exports: [{ name: exportName, type: 'data', schema: { type: 'string' } }],
      deployExecutions: [{ name: 'deploy', type: 'GoTemplate', template: `deployItems:\n- name: ${exportName}\n  type: landscaper.gardener.cloud/mock\n  target: {import: cluster}\n  config:\n    export:\n      ${exportName}: "${value}-{{ .imports.in }}-on-{{ .imports.cluster.metadata.name }}"\n` }],
      exportExecutions: [{ name: 'export', type: 'GoTemplate', template: `exports:\n  ${exportName}: {{ index .deployitems "${exportName}" "${exportName}" }}\n` }],
    }),
  });
  const application = {
    'blueprint.yaml': stringify({
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Blueprint',
      imports: [
        { name: 'cluster', targetType: 'landscaper.gardener.cloud/kubernetes-cluster' },
        { name: 'config', type: 'data', schema: { type: 'string' } },
      ],
      exports: [{ name: 'exports', type: 'data', schema: { type: 'string' } }],
      subinstallations: [
        { name: 'webui', blueprint: { ref: 'cd://componentReferences/webui/resources/blueprint' }, imports: { targets: [{ name: 'cluster', target: 'cluster' }], data: [{ name: 'in', dataRef: 'databaseaccess' }] }, exports: { data: [{ name: 'uiaccess', dataRef: 'uiaccess' }] } },
        { name: 'database', blueprint: { ref: 'cd://componentReferences/database/resources/blueprint' }, imports: { targets: [{ name: 'cluster', target: 'cluster' }], data: [{ name: 'in', dataRef: 'config' }] }, exports: { data: [{ name: 'databaseaccess', dataRef: 'databaseaccess' }] } },
      ],
      exportExecutions: [{ name: 'export', type: 'Spiff', template: { exports: { exports: '(( dataobjects.uiaccess ))' } } }],
    }),
  };
  const blueprints = {
    'my-application': application,
    'cd://componentReferences/database/resources/blueprint': leaf('databaseaccess', 'db'),
    'cd://componentReferences/webui/resources/blueprint': leaf('uiaccess', 'ui'),
  };
  const objects = [
    ...['cluster', 'cluster2'].map((name) => ({ ...CLUSTER, metadata: { name, namespace: 'default' } })),
    { apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'DataObject', metadata: { name: 'config' }, data: 'one' },
    { apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'DataObject', metadata: { name: 'config2' }, data: 'two' },
    ...[
      ['application', 'cluster', 'config', 'exports'],
      ['application2', 'cluster2', 'config2', 'exports2'],
    ].map(([name, cluster, config, exp]) => ({
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Installation',
      metadata: { name },
      spec: {
        blueprint: { ref: { resourceName: 'my-application' } },
        imports: { targets: [{ name: 'cluster', target: cluster }], data: [{ name: 'config', dataRef: config }] },
        exports: { data: [{ name: 'exports', dataRef: exp }] },
      },
    })),
  ];

  test('the same blueprint installed twice: two scopes, same local names, no collision', () => {
    const run = installAll({ objects, blueprints });
    assert.deepEqual(run.errors, []);
    assert.deepEqual(run.order, ['application', 'application/database', 'application/webui', 'application2', 'application2/database', 'application2/webui']);
    assert.deepEqual(
      run.installations.map((i) => [i.name, i.scope, i.phase]),
      [
        ['application', '', 'Succeeded'],
        ['application/database', 'Inst.application', 'Succeeded'],
        ['application/webui', 'Inst.application', 'Succeeded'],
        ['application2', '', 'Succeeded'],
        ['application2/database', 'Inst.application2', 'Succeeded'],
        ['application2/webui', 'Inst.application2', 'Succeeded'],
      ],
    );
    assert.equal(run.dataObjects.exports, 'ui-db-one-on-cluster-on-cluster');
    assert.equal(run.dataObjects.exports2, 'ui-db-two-on-cluster2-on-cluster2');
    assert.equal(run.dataObjects['Inst.application/databaseaccess'], 'db-one-on-cluster');
    assert.equal(run.dataObjects['Inst.application2/databaseaccess'], 'db-two-on-cluster2');
    const db = root(run, 'application2/database');
    assert.deepEqual(db.deployItems.map((d) => [d.name, d.type, d.phase, d.exports]), [['databaseaccess', 'landscaper.gardener.cloud/mock', 'Succeeded', { databaseaccess: 'db-two-on-cluster2' }]]);
  });

  test('the scope graph: a root scope, one nested scope per application, data flow as edges', () => {
    const g = scopeGraph(installAll({ objects, blueprints }), [{ namespace: 'default', dataObjects: { config: 'one', config2: 'two' }, targets: ['cluster', 'cluster2'] }]);
    assert.deepEqual(
      g.scopes.map((s) => [s.id, s.parent, s.installation]),
      [
        ['ns:default', null, null],
        ['scope:default/application', 'ns:default', 'default/application'],
        ['scope:default/application2', 'ns:default', 'default/application2'],
      ],
    );
    assert.deepEqual(
      g.installations.map((i) => [i.id, i.scope, i.opens, i.phase]),
      [
        ['default/application', 'ns:default', 'scope:default/application', 'Succeeded'],
        ['default/application/database', 'scope:default/application', null, 'Succeeded'],
        ['default/application/webui', 'scope:default/application', null, 'Succeeded'],
        ['default/application2', 'ns:default', 'scope:default/application2', 'Succeeded'],
        ['default/application2/database', 'scope:default/application2', null, 'Succeeded'],
        ['default/application2/webui', 'scope:default/application2', null, 'Succeeded'],
      ],
    );
    const obj = (id: string) => g.objects.find((o) => o.id === id)!;
    // The same local name in two scopes: two objects, two values.
    assert.deepEqual([obj('obj:scope:default/application:data:databaseaccess').value, obj('obj:scope:default/application2:data:databaseaccess').value], ['db-one-on-cluster', 'db-two-on-cluster2']);
    assert.equal(obj('obj:scope:default/application:data:databaseaccess').origin, 'exported');
    assert.deepEqual([obj('obj:scope:default/application:data:config').origin, obj('obj:scope:default/application:data:config').value], ['parent import', 'one']);
    assert.deepEqual([obj('obj:ns:default:data:config2').origin, obj('obj:ns:default:data:config2').value], ['declared', 'two']);
    assert.equal(obj('obj:ns:default:target:cluster').origin, 'declared');
    assert.equal(obj('obj:ns:default:data:exports').value, 'ui-db-one-on-cluster-on-cluster');
    const flow = (a: string, b: string) => g.edges.find((e) => e.source === a && e.target === b)?.label;
    assert.equal(flow('default/application/database', 'obj:scope:default/application:data:databaseaccess'), 'databaseaccess');
    assert.equal(flow('obj:scope:default/application:data:databaseaccess', 'default/application/webui'), 'in');
    assert.equal(flow('obj:ns:default:data:config', 'default/application'), 'config');
    assert.equal(flow('default/application', 'obj:ns:default:data:exports'), 'exports');
    assert.deepEqual(g.errors, []);
    assert.deepEqual(g.order.slice(0, 3), ['default/application', 'default/application/database', 'default/application/webui']);
  });

  test('the scope graph reports a cycle between roots with its path, and both stay Failed', () => {
    const cyclic = ['ping', 'pong'].map((name, i) => ({
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Installation',
      metadata: { name },
      spec: {
        blueprint: { ref: { resourceName: 'my-application' } },
        imports: { targets: [{ name: 'cluster', target: 'cluster' }], data: [{ name: 'config', dataRef: i === 0 ? 'pong-out' : 'ping-out' }] },
        exports: { data: [{ name: 'exports', dataRef: `${name}-out` }] },
      },
    }));
    const g = scopeGraph(installAll({ objects: [...objects.slice(0, 2), ...cyclic], blueprints }), [{ namespace: 'default', dataObjects: {}, targets: ['cluster'] }]);
    const cycle = g.errors.find((e) => e.code === 'cycle')!;
    assert.ok(cycle, JSON.stringify(g.errors));
    assert.match(cycle.message, /cycle/i);
    assert.deepEqual([...cycle.cycle!].sort(), ['ping', 'ping', 'pong'].sort());
    assert.deepEqual(g.installations.map((i) => i.phase), ['Failed', 'Failed']);
  });

  test('removed roots: InitDelete while waiting (naming importers), Deleting while applying, DeleteFailed when that failed', () => {
    const both = installAll({ objects, blueprints });
    const one = installAll({ objects: objects.filter((o) => o.metadata.name !== 'application2'), blueprints });
    const phases = (r: Removal) => removedInstallations(both, one, r).map((x) => [x.name, x.phase, x.phases.map((p) => p.phase).join('>')]);
    assert.deepEqual(phases('waiting'), [['application2', 'InitDelete', 'InitDelete']]);
    assert.deepEqual(phases('applying'), [['application2', 'Deleting', 'InitDelete>Deleting']]);
    assert.deepEqual(phases('failed'), [['application2', 'DeleteFailed', 'InitDelete>DeleteFailed']]);
    assert.deepEqual(removedInstallations(both, both, 'waiting'), [], 'nothing removed');
    const g = scopeGraph(one, [], removedInstallations(both, one, 'waiting'));
    assert.deepEqual(g.installations.filter((i) => i.removed).map((i) => [i.id, i.scope, i.opens]), [['default/application2', 'ns:default', null]]);
  });

  test('a root importing another root’s export runs after it', () => {
    const consumer = { apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'Installation', metadata: { name: 'aaa-consumer' }, spec: { blueprint: { ref: { resourceName: 'my-application' } }, imports: { targets: [{ name: 'cluster', target: 'cluster' }], data: [{ name: 'config', dataRef: 'exports' }] }, exports: { data: [{ name: 'exports', dataRef: 'exports3' }] } } };
    const run = installAll({ objects: [consumer, ...objects], blueprints });
    // Declared first, but it imports application's export: it runs right after application.
    assert.deepEqual(run.order.filter((n) => !n.includes('/')), ['application', 'aaa-consumer', 'application2']);
    assert.equal(run.dataObjects.exports3, 'ui-db-ui-db-one-on-cluster-on-cluster-on-cluster-on-cluster');
  });

  test('a missing import source fails the root in Init and names the object', () => {
    const run = installAll({ objects: objects.filter((o) => o.metadata.name !== 'config2'), blueprints });
    const r = root(run, 'application2');
    assert.equal(r.phase, 'Failed');
    assert.equal(r.errors[0]!.message, 'spec.imports.data[0].dataRef: unable to fetch data object "config2" (import "config") from context ""');
    assert.equal(root(run, 'application').phase, 'Succeeded');
  });

  test('a subinstallation import nobody provides is reported before anything runs', () => {
    const bp = parse(application['blueprint.yaml']) as { subinstallations: { imports: { data: { dataRef: string }[] } }[] };
    bp.subinstallations[0]!.imports.data[0]!.dataRef = 'nowhere';
    const run = installAll({ objects, blueprints: { ...blueprints, 'my-application': { 'blueprint.yaml': stringify(bp) } } });
    const r = root(run, 'application');
    assert.equal(r.phase, 'Failed');
    assert.equal(r.errors[0]!.message, 'subinstallation "webui": import not satisfied: data "nowhere" is neither a parent import nor a sibling export');
  });
});

describe('phases with delivery (withDelivery)', () => {
  const inst = (path: string, items: { name: string; key?: string }[], phase: ScopeInstallation['phase'] = 'Succeeded'): ScopeInstallation => ({
    id: `demo/${path}`,
    namespace: 'demo',
    path,
    name: path.split('/').at(-1)!,
    scope: 'ns:demo',
    opens: null,
    phase,
    phases: [{ phase, reason: phase === 'Failed' ? 'import missing' : 'exports written' }],
    imports: {},
    exports: {},
    errors: [],
    deployItems: items.map((i) => ({ name: i.name, type: i.key ? 'landscaper.gardener.cloud/helm' : 'landscaper.gardener.cloud/mock', phase: 'Succeeded', ...(i.key ? { key: i.key } : {}) })),
  });
  const graph = (...installations: ScopeInstallation[]): ScopeGraph => ({ scopes: [], installations, objects: [], edges: [], errors: [], order: installations.map((i) => i.id) });

  test('a parent takes the worst of its subinstallations; mock-only ones stay simulated; a run failure stays', () => {
    const g = withDelivery(graph(inst('root', []), inst('root/db', [{ name: 'pg', key: 'k-db' }]), inst('root/ui', [{ name: 'ui', key: 'k-ui' }, { name: 'probe' }]), inst('mock', [{ name: 'probe' }]), inst('broken', [], 'Failed')), {
      revision: { id: 7, status: 'applying', changes: new Set(['k-ui']) },
      states: new Map([['k-db', { status: 'applied', revisionId: 6, error: null }]]),
    });
    const by = (path: string) => g.installations.find((i) => i.path === path)!;
    assert.deepEqual([by('root/db').phase, by('root/ui').phase, by('root').phase], ['Succeeded', 'Progressing', 'Progressing']);
    assert.equal(by('root').phases.at(-1)!.reason, 'subinstallation ui: deploy item ui: revision 7 is being applied');
    assert.deepEqual(by('root/ui').deployItems.map((d) => [d.name, d.phase, d.phaseFrom]), [['ui', 'Progressing', 'applied'], ['probe', 'Succeeded', 'simulated']]);
    assert.deepEqual([by('mock').phase, by('mock').phaseFrom], ['Succeeded', 'simulated']);
    assert.deepEqual([by('broken').phase, by('broken').phases.at(-1)!.reason], ['Failed', 'import missing']);
  });
});
