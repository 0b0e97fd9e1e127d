/**
 * Deployment Manager deployments in the pipeline: a configuration's
 * Kubernetes primitives become raw instances on the deployment's cluster
 * (named after their resource when the template left the name out), remaining
 * references order them, other primitive types deploy nothing and are said
 * so, and what does not expand is refused at save with DM's words.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { EngineSession } from '../index';
import { loadObjects } from '../model/validate';
import { plugTemplateSandbox } from '../../dm-python';

// DM's Jinja templates render in the sandbox, as on every server thread that expands them (Python is left unplugged here).
plugTemplateSandbox({ python: false });

const CLUSTER = '- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}\n---\n';
const deployment = (configuration: unknown, imports: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  stringify({ kind: 'deployment', metadata: { namespace: 'shop', name: 'web' }, target: 'k8s', configuration, ...(Object.keys(imports).length ? { imports } : {}), ...extra });

const FRONTEND = `resources:
- name: {{ env['name'] }}-svc
  type: Service
  properties:
    apiVersion: v1
    kind: Service
    spec: {ports: [{port: {{ properties['port'] }}}]}
- name: {{ env['name'] }}-db-client
  type: v1.ConfigMap
  properties:
    apiVersion: v1
    kind: ConfigMap
    data: {db: $(ref.db.metadata.name)}
`;

function state(yaml: string) {
  const r = loadObjects(yaml);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  return new EngineSession({ objects: r.objects, users: [] }).state();
}

describe('Deployment Manager deployments in the pipeline', () => {
  const config = {
    imports: ['frontend.jinja'],
    resources: [
      { name: 'front', type: 'frontend.jinja', properties: { port: 8080 } },
      { name: 'db', type: 'Pod', properties: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db' }, spec: { containers: [{ name: 'pg', image: 'postgres' }] } } },
      { name: 'vm', type: 'compute.v1.instance', properties: { zone: 'x' } },
    ],
  };

  test('Kubernetes primitives become raw instances named after their resources; references order them; other types deploy nothing', () => {
    const s = state(CLUSTER + deployment(config, { 'frontend.jinja': FRONTEND }));
    const mine = s.instances.filter((i) => i.provenance.source === 'dm');
    assert.deepEqual(mine.map((i) => i.key), [
      'system#k8s#apps#shop#@dm#web#db',
      'system#k8s#apps#shop#@dm#web#front#front-db-client',
      'system#k8s#apps#shop#@dm#web#front#front-svc',
    ]);
    const svc = mine.find((i) => i.component === 'front-svc')!;
    assert.deepEqual(parse((svc.code!.params as { manifest: string }).manifest), { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 8080 }] }, metadata: { name: 'front-svc' } });
    assert.deepEqual(svc.provenance, { source: 'dm', deployment: 'web', layout: ['front', 'front-svc'] });
    const client = mine.find((i) => i.component === 'front-db-client')!;
    assert.deepEqual(client.dependsOn, ['system#k8s#apps#shop#@dm#web#db'], 'the ConfigMap waits for the Pod it refers to');
    const outcome = s.claims.find((c) => c.name === 'web')!;
    assert.equal(outcome.kind, 'deployment');
    assert.equal(outcome.status, 'resolved', outcome.errors.join('\n'));
    assert.ok(outcome.trace!.some((t) => /primitive vm \(compute\.v1\.instance\) is no Kubernetes object/.test(t.message)));
  });

  test('the wordpress example loads as a deployment (its files inline) and expands', () => {
    const dir = 'corpus/dm/deployment-manager/examples/wordpress';
    const cfg = parse(readFileSync(`${dir}/wordpress.yaml`, 'utf8'));
    const s = state(CLUSTER + deployment(cfg, { 'wordpress.jinja': readFileSync(`${dir}/wordpress.jinja`, 'utf8'), 'wordpress.jinja.schema': readFileSync(`${dir}/wordpress.jinja.schema`, 'utf8') }));
    const outcome = s.claims.find((c) => c.name === 'web')!;
    assert.equal(outcome.status, 'resolved', outcome.errors.join('\n'));
    assert.ok(outcome.trace!.some((t) => /primitive nfs \(github\.com\/kubernetes\/application-dm-templates\/storage\/nfs:v1\)/.test(t.message)));
  });

  test('what does not expand is refused at save with DM’s words; a target that is no cluster is the deployment’s error', () => {
    const broken = loadObjects(CLUSTER + deployment({ imports: ['t.jinja'], resources: [{ name: 'a', type: 't.jinja' }] }, { 't.jinja': 'resources: {{ nope(' }));
    const err = broken.diagnostics.find((d) => d.severity === 'error')!;
    assert.equal(err.object, 'deployment/shop/web');
    assert.match(err.message, /^ExpansionError: /);
    // A save does not wait for a Python interpreter: what comes before the template (its schema) is checked, the template runs when the deployment resolves.
    const pyFiles = { 't.py': 'def GenerateConfig(c):\n  return {}\n', 't.py.schema': 'required: [image]\nproperties: {image: {type: string}}\n' };
    const pyBad = loadObjects(CLUSTER + deployment({ imports: ['t.py'], resources: [{ name: 'a', type: 't.py', properties: {} }] }, pyFiles));
    assert.match(pyBad.diagnostics.find((d) => d.severity === 'error')!.message, /'image' is a required property/);
    const pyGood = CLUSTER + deployment({ imports: ['t.py'], resources: [{ name: 'a', type: 't.py', properties: { image: 'x' } }] }, pyFiles);
    assert.deepEqual(loadObjects(pyGood).diagnostics.filter((d) => d.severity === 'error'), []);
    // With no Python runner plugged in (this pure test plugs none) the deployment resolves to that error.
    assert.match(state(pyGood).claims.find((c) => c.name === 'web')!.errors.join('\n'), /Python templates are not supported yet: 't\.py'/);
    const s = state(CLUSTER + deployment(config, { 'frontend.jinja': FRONTEND }, { target: 'elsewhere' }));
    assert.deepEqual(s.claims.find((c) => c.name === 'web')!.errors, ['target "elsewhere" is not a Keelson cluster']);
    assert.equal(s.instances.filter((i) => i.provenance.source === 'dm').length, 0);
  });

  test('a bare configuration is pointed at the deployment envelope', () => {
    const r = loadObjects('resources:\n- {name: a, type: Service}\n');
    assert.equal(r.objects.length, 0);
    assert.match(r.diagnostics[0]!.message, /wrap it in a deployment object/);
  });
});
