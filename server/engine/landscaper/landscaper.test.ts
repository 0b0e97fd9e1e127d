/**
 * The expectations in corpus/landscaper/derived/expected-outcomes.yaml
 * (transcribed from Landscaper's Go tests), read as data, over the copied
 * fixtures: imports, exports and import executions here; whole install runs
 * are golden cases (testdata/landscaper/install/, golden.test.ts), held to
 * the same expectations below. Then the scope graph and delivery phases.
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

/**
 * The install goldens over the corpus (testdata/landscaper/install/corpus-*.yaml)
 * hold the whole run; Landscaper's own expectations for the same fixtures
 * (expected-outcomes.yaml: dependencies, importExport) hold them to what
 * Landscaper does, so regenerating a golden cannot quietly drift from it.
 */
describe('install goldens agree with Landscaper (dependencies, import-export)', () => {
  const dir = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../testdata/landscaper/install');
  const goldens = readdirSync(dir)
    .filter((f) => f.startsWith('corpus-'))
    .map((f) => ({ file: f, ...(parse(readFileSync(join(dir, f), 'utf8')) as { objects: { $docs?: string }[]; want: GoldenRun }) }));
  for (const c of [...expected.dependencies!, ...expected.importExport!]) {
    const installation = `corpus/landscaper/${c.installation as string}`;
    const want = c.expect as { phase: string; dataObjects?: Record<string, unknown> };
    test(`${c.installation}${c.withDataObject ? ` with ${c.withDataObject}` : ''} → ${want.phase}`, () => {
      const found = goldens.filter((g) => g.objects[0]?.$docs === installation && (!c.withDataObject || g.objects.some((o) => o.$docs?.endsWith(`/${c.withDataObject as string}`))));
      assert.equal(found.length, 1, `one golden case runs ${installation}`);
      const g = found[0]!;
      const rootName = g.want.order[0]!;
      assert.match(g.want.installations[rootName]!.phases.at(-1)!, new RegExp(`^${want.phase}\\b`), g.file);
      for (const [k, v] of Object.entries(want.dataObjects ?? {})) assert.deepEqual(g.want.dataObjects[k], v, `${g.file}: ${k}`);
    });
  }
});

interface GoldenRun {
  order: string[];
  installations: Record<string, { phases: string[] }>;
  dataObjects: Record<string, unknown>;
}

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

describe('the scope graph (seed: application and application2 in one namespace)', () => {
  // The install goldens' fixture (testdata/landscaper/install/scopes-*.yaml hold what installAll gives for it).
  const FIXTURE = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../testdata/fixtures/landscaper/scopes');
  const blueprints = {
    'my-application': dirFs(join(FIXTURE, 'application')),
    'cd://componentReferences/database/resources/blueprint': dirFs(join(FIXTURE, 'database')),
    'cd://componentReferences/webui/resources/blueprint': dirFs(join(FIXTURE, 'webui')),
  };
  const objects = parseYamlDocuments(readFileSync(join(FIXTURE, 'objects.yaml'), 'utf8')) as { metadata: { name: string } }[];

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
