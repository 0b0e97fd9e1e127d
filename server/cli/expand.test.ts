/**
 * `keelson expand` on Deployment Manager's own files: the imports a
 * configuration lists (and its templates' schemas) are read beside it, the
 * output is DM's {config, layout}, and what cannot expand says why.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse } from 'yaml';
import { main } from './main';

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

const TEMPLATES = 'corpus/dm/deployment-manager/expandybird/test/templates';

describe('keelson expand', () => {
  test('imports are read beside the configuration; the output is DM’s expected result', async () => {
    const r = await cli('expand', `${TEMPLATES}/jinja_template_with_import.yaml`);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(parse(r.out), parse(readFileSync(`${TEMPLATES}/jinja_template_with_import_result.yaml`, 'utf8')));
  });

  test('a template’s schema comes along: defaults applied, missing required properties refused', async () => {
    const ok = await cli('expand', `${TEMPLATES}/jinja_defaults.yaml`, '--format', 'json', '--env', 'deployment=test-deployment', '--env', 'project=test-project');
    assert.equal(ok.code, 0, ok.err);
    assert.deepEqual(JSON.parse(ok.out), parse(readFileSync(`${TEMPLATES}/jinja_defaults_result.yaml`, 'utf8')));
    const missing = await cli('expand', `${TEMPLATES}/jinja_missing_required.yaml`);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /Invalid properties for 'jinja_missing_required\.jinja':\n'important' is a required property/);
  });

  test('the wordpress example expands', async () => {
    const r = await cli('expand', 'corpus/dm/deployment-manager/examples/wordpress/wordpress.yaml', '--format', 'json');
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as { config: { resources: { name: string }[] }; layout: { resources: { name: string; type: string }[] } };
    assert.ok(out.config.resources.some((x) => x.name === 'nfs'));
    assert.deepEqual(out.layout.resources.map((x) => [x.name, x.type]), [['wordpress', 'wordpress.jinja']]);
  });

  test('a Python template calling a Jinja one expands, its imports read beside it, to DM’s expected result', async () => {
    const py = await cli('expand', `${TEMPLATES}/python_and_jinja_template.yaml`);
    assert.equal(py.code, 0, py.err);
    assert.deepEqual(parse(py.out), parse(readFileSync(`${TEMPLATES}/python_and_jinja_template_result.yaml`, 'utf8')));
  });

  test('a type naming a template by URL or registry name stays a primitive, and the command says so (it does not fetch)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-expand-url-'));
    try {
      const config = join(dir, 'remote.yaml');
      writeFileSync(config, 'resources:\n- name: web\n  type: https://templates.example/web.jinja\n  properties: {port: 80}\n- name: db\n  type: github.com/acme/dm-templates/storage/postgres:v1\n');
      const r = await cli('expand', config, '--format', 'json');
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(JSON.parse(r.out).layout.resources.map((x: { type: string }) => x.type), ['https://templates.example/web.jinja', 'github.com/acme/dm-templates/storage/postgres:v1']);
      assert.match(r.err, /type 'https:\/\/templates\.example\/web\.jinja' refers to a template elsewhere, which keelson expand does not fetch/);
      assert.match(r.err, /type 'github\.com\/acme\/dm-templates\/storage\/postgres:v1' refers to a template elsewhere/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a missing import names the file; usage errors exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-expand-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'c.yaml'), 'imports: [nowhere.jinja]\nresources: [{name: a, type: nowhere.jinja}]\n');
    const missing = await cli('expand', join(dir, 'c.yaml'));
    assert.equal(missing.code, 1);
    assert.match(missing.err, /nowhere\.jinja: no such file/);
    assert.equal((await cli('expand')).code, 2);
    assert.equal((await cli('expand', join(dir, 'c.yaml'), '--format', 'xml')).code, 2);
  });

  test('references the configuration answers are filled in; an unknown name and a cycle exit 1, the cycle as its path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-expand-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const svc = '{name: backend, type: Service, properties: {apiVersion: v1, kind: Service, spec: {ports: [{port: 8080}]}}}';
    writeFileSync(join(dir, 'ok.yaml'), `resources:\n- ${svc}\n- {name: web, type: ConfigMap, properties: {data: {url: "http://backend:$(ref.backend.spec.ports[0].port)", ip: "$(ref.backend.spec.clusterIP)"}}}\n`);
    const ok = await cli('expand', join(dir, 'ok.yaml'), '--format', 'json');
    assert.equal(ok.code, 0, ok.err);
    // The port is in the configuration; the cluster IP only the cluster knows.
    assert.deepEqual(JSON.parse(ok.out).config.resources[1].properties.data, { url: 'http://backend:8080', ip: '$(ref.backend.spec.clusterIP)' });

    writeFileSync(join(dir, 'bad.yaml'), 'resources:\n- {name: a, type: ConfigMap, properties: {x: "$(ref.b.data.x)", y: "$(ref.nowhere.data.y)"}}\n- {name: b, type: ConfigMap, properties: {data: {x: "$(ref.a.x)"}}}\n');
    const bad = await cli('expand', join(dir, 'bad.yaml'));
    assert.equal(bad.code, 1);
    assert.equal(bad.out, '');
    assert.equal(bad.err, 'references form a cycle: a → b → a\nresource a refers to $(ref.nowhere.data.y), but nowhere is no resource of the expanded configuration\n');
  });
});
