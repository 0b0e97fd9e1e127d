import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadObjects } from '@/server/engine/model/validate';
import { isYamlFile, isZipFile, joinImportedFiles, planImport } from './import-files';

const CORPUS_BLUEPRINT = join(process.cwd(), 'corpus/landscaper/test/integration/testdata/import-export/v0.1.0/blueprint');
/** A folder as the browser's folder picker hands it over: paths under the folder's name. */
function folder(dir: string, as: string) {
  return readdirSync(dir).map((f) => ({ path: `${as}/${f}`, text: readFileSync(join(dir, f), 'utf8') }));
}

describe('import: files', () => {
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

  test('.yaml and .yml files are read as objects, zips are opened, nothing else is', () => {
    assert.deepEqual(['a.yaml', 'B.YML', 'c.zip', 'blueprint', 'x.json'].map(isYamlFile), [true, true, false, false, false]);
    assert.deepEqual(['c.zip', 'D.ZIP', 'c.zip.yaml'].map(isZipFile), [true, true, false]);
  });
});

describe('import: folders', () => {
  test("a Landscaper blueprint folder becomes one Blueprint named after its folder, its executions its files; it loads without a problem", () => {
    const plan = planImport(
      [
        ...folder(CORPUS_BLUEPRINT, 'shop/application'),
        { path: 'shop/config.yaml', text: 'apiVersion: landscaper.gardener.cloud/v1alpha1\nkind: DataObject\nmetadata: {name: config, namespace: demo}\ndata: x\n' },
      ],
      { namespace: 'demo' },
    );
    assert.deepEqual(plan.taken, ['shop/config.yaml', 'shop/application/ (blueprint application, 2 files)']);
    assert.deepEqual(plan.skipped, []);
    assert.deepEqual(plan.problems, []);
    const { objects, diagnostics } = loadObjects(plan.text);
    assert.deepEqual(diagnostics.filter((d) => d.severity === 'error'), []);
    assert.deepEqual(objects.map((o) => `${o.kind} ${o.namespace}/${o.name}`).sort(), ['blueprint demo/application', 'dataobject demo/config']);
    const bp = objects.find((o) => o.kind === 'blueprint')!.spec as unknown as { files: Record<string, string>; imports: { name: string }[] };
    // The execution templates are the blueprint's files, word for word, not objects of their own.
    assert.deepEqual(Object.keys(bp.files).sort(), ['deploy-execution.yaml', 'export-execution.yaml']);
    assert.equal(bp.files['deploy-execution.yaml'], readFileSync(join(CORPUS_BLUEPRINT, 'deploy-execution.yaml'), 'utf8'));
    assert.deepEqual(bp.imports.map((i) => i.name), ['cluster', 'configmapNameIn', 'configmapNamespaceIn', 'configmapDataIn']);
  });

  test('a file belongs to the nearest blueprint above it; a blueprint folder inside another is its own blueprint', () => {
    const bp = (name: string) => `apiVersion: landscaper.gardener.cloud/v1alpha1\nkind: Blueprint\n# ${name}\nimports: []\n`;
    const plan = planImport([
      { path: 'root/blueprint.yaml', text: bp('root') },
      { path: 'root/templates/deploy.yaml', text: 'deployItems: []\n' },
      { path: 'root/Sub_Blueprint/blueprint.yaml', text: bp('sub') },
      { path: 'root/Sub_Blueprint/schema.json', text: '{}' },
    ]);
    const { objects } = loadObjects(plan.text);
    const files = Object.fromEntries(objects.map((o) => [o.name, Object.keys((o.spec as { files?: object }).files ?? {})]));
    assert.deepEqual(files, { root: ['templates/deploy.yaml'], 'sub-blueprint': ['schema.json'] });
  });

  test("a blueprint's own name and namespace are kept; a folder's other files are listed as not taken; editor and zip leftovers are not mentioned", () => {
    const plan = planImport(
      [
        { path: 'x/blueprint.yaml', text: 'kind: Blueprint\nmetadata: {name: named, namespace: other}\nimports: []\n' },
        { path: 'README.md', text: '# hi' },
        { path: '.git/config', text: '[core]' },
        { path: 'x/__MACOSX/._blueprint.yaml', text: '' },
      ],
      { namespace: 'demo' },
    );
    assert.deepEqual(plan.skipped, ['README.md']);
    const { objects } = loadObjects(plan.text);
    assert.deepEqual(objects.map((o) => `${o.namespace}/${o.name}`), ['other/named']);
  });

  test("without a namespace offered (a domain admin's editor), a blueprint takes the one every other imported object names", () => {
    const bp = { path: 'x/app/blueprint.yaml', text: 'apiVersion: landscaper.gardener.cloud/v1alpha1\nkind: Blueprint\nimports: []\n' };
    const obj = (ns: string) => ({ path: `x/${ns}.yaml`, text: `apiVersion: landscaper.gardener.cloud/v1alpha1\nkind: DataObject\nmetadata: {name: c, namespace: ${ns}}\ndata: 1\n` });
    const named = (entries: { path: string; text: string }[]) => loadObjects(planImport(entries).text).objects.filter((o) => o.kind === 'blueprint').map((o) => o.namespace);
    assert.deepEqual(named([bp, obj('garden')]), ['garden']);
    // Two namespaces: no guess; the blueprint is where a Landscaper object without one is (Kubernetes' "default").
    assert.deepEqual(named([bp, obj('garden'), obj('platform')]), ['default']);
    // The namespace the editor offers wins.
    assert.deepEqual(loadObjects(planImport([bp, obj('garden')], { namespace: 'platform' }).text).objects.find((o) => o.kind === 'blueprint')?.namespace, 'platform');
  });

  test('a blueprint.yaml that is not YAML is named with its line, and the rest is still imported', () => {
    const plan = planImport([
      { path: 'bad/blueprint.yaml', text: 'imports:\n  - name: a\n   bad: [\n' },
      { path: 'ok.yaml', text: 'kind: claim\n' },
    ]);
    assert.equal(plan.problems.length, 1);
    assert.match(plan.problems[0]!, /^bad\/blueprint\.yaml: .*line 3/);
    assert.equal(plan.text, 'kind: claim\n');
  });
});
