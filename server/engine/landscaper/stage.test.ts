/**
 * Landscaper installations in the pipeline: deploy items become instances
 * (helm from an OCI chart reference, raw from manifests), one blueprint
 * installed twice gives two scopes and two sets of instances, a cycle or a
 * target that is no Keelson cluster is the installation's error, and a
 * change is followed in place.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EngineSession } from '../index';
import { loadObjects } from '../model/validate';

function load(yaml: string) {
  const r = loadObjects(yaml);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  return r.objects;
}

const API = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
const BASE = `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
---
${API}
kind: Target
metadata: {name: k8s, namespace: demo}
spec: {type: landscaper.gardener.cloud/kubernetes-cluster, config: {}}
---
${API}
kind: Blueprint
metadata: {name: web, namespace: demo}
imports:
  - {name: cluster, targetType: landscaper.gardener.cloud/kubernetes-cluster}
  - {name: replicas, type: data, schema: {type: integer}}
deployExecutions:
  - name: deploy
    type: GoTemplate
    template: |
      deployItems:
        - name: nginx
          type: landscaper.gardener.cloud/helm
          target: {import: cluster}
          config:
            chart: {ref: "eu.gcr.io/charts/ingress-nginx:v0.1.0"}
            namespace: web
            values: {replicaCount: {{ .imports.replicas }}}
        - name: note
          type: landscaper.gardener.cloud/kubernetes-manifest
          target: {import: cluster}
          config:
            manifests:
              - policy: manage
                manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: note}, data: {replicas: "{{ .imports.replicas }}"}}
---
${API}
kind: DataObject
metadata: {name: replicas, namespace: demo}
data: 2
`;
const install = (name: string) => `---
${API}
kind: Installation
metadata: {name: ${name}, namespace: demo}
spec:
  blueprint: {ref: {resourceName: web}}
  imports:
    targets: [{name: cluster, target: k8s}]
    data: [{name: replicas, dataRef: replicas}]
`;

describe('Landscaper installations in the pipeline', () => {
  test('deploy items become helm and raw instances; one blueprint twice is two scopes', () => {
    const s = new EngineSession({ objects: load(BASE + install('application') + install('application2')), users: [] }).state();
    const mine = s.instances.filter((i) => i.provenance.source === 'landscaper');
    assert.deepEqual(mine.map((i) => i.key), [
      'system#k8s#apps#demo#@landscaper#application#note',
      'system#k8s#apps#demo#@landscaper#application2#note',
      'system#k8s#web#demo#@landscaper#application#nginx',
      'system#k8s#web#demo#@landscaper#application2#nginx',
    ]);
    const nginx = mine.find((i) => i.component === 'nginx')!;
    assert.deepEqual(nginx.code, { type: 'helm', params: { replicaCount: 2, chartRepo: 'oci://eu.gcr.io/charts', chartName: 'ingress-nginx', chartVersion: 'v0.1.0' } });
    assert.match((mine.find((i) => i.component === 'note')!.code!.params as { manifest: string }).manifest, /kind: ConfigMap[\s\S]*replicas: "2"/);
    const outcome = s.claims.find((c) => c.name === 'application')!;
    assert.equal(outcome.kind, 'installation');
    assert.equal(outcome.status, 'resolved', outcome.errors.join('\n'));
    assert.deepEqual(nginx.provenance, { source: 'landscaper', installation: ['application'], deployItem: 'nginx' });
  });

  test('a target that is no Keelson cluster is the installation’s error; a change is followed in place', () => {
    const objects = load(BASE.replace('metadata: {name: k8s, namespace: demo}', 'metadata: {name: elsewhere, namespace: demo}') + install('application').replace('target: k8s', 'target: elsewhere'));
    const session = new EngineSession({ objects, users: [] });
    const bad = session.state().claims.find((c) => c.name === 'application')!;
    assert.equal(bad.status, 'error');
    assert.match(bad.errors.join('\n'), /deploy item nginx: its target "elsewhere" is not a Keelson cluster/);
    const [fixed] = load(`${API}\nkind: DataObject\nmetadata: {name: replicas, namespace: demo}\ndata: 5\n`);
    const next = session.update({ upserts: [fixed!], deletes: [] });
    assert.ok(next);
    assert.equal(next.claims.find((c) => c.name === 'application')!.status, 'error', 'still no cluster');
  });

  test('`operation: reconcile` on a root: the revision that adds it re-applies that root’s deploy items, and only then', async () => {
    const { planRevision } = await import('../plan');
    const state = (yaml: string) => new EngineSession({ objects: load(yaml), users: [] }).state();
    const plain = BASE + install('application') + install('application2');
    const annotated = plain.replace('metadata: {name: application, namespace: demo}', 'metadata: {name: application, namespace: demo, annotations: {landscaper.gardener.cloud/operation: reconcile}}');
    const [before, after] = [state(plain), state(annotated)];
    const p = planRevision({ before, after, clusters: [] });
    assert.deepEqual(p.steps.map((x) => [x.action, x.key, x.reconcileAt, x.restartedAt]).sort(), [
      ['update', 'system#k8s#apps#demo#@landscaper#application#note', 'reconcile', undefined],
      ['update', 'system#k8s#web#demo#@landscaper#application#nginx', 'reconcile', undefined],
    ]);
    assert.match(p.actions[0]!.notes!.join(' '), /reconcile requested \(reconcile\)/);
    // Kept on the next change: nothing to do again. Taken off: nothing either.
    assert.equal(planRevision({ before: after, after: state(annotated), clusters: [] }).noop, true);
    assert.equal(planRevision({ before: after, after: state(plain), clusters: [] }).steps.length, 0);
  });

  test('an automaticReconcile the job loop could not follow is refused at save, at its line', () => {
    const r = loadObjects(`${API}\nkind: Installation\nmetadata: {name: a, namespace: demo}\nspec:\n  blueprint: {ref: {resourceName: web}}\n  automaticReconcile:\n    succeededReconcile: {interval: 24h}\n    failedReconcile: {interval: soon, numberOfReconciles: 3}\n`);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.severity, d.line, d.message]),
      [['error', 8, 'spec.automaticReconcile.failedReconcile.interval "soon" is not a duration such as 5m or 24h']],
    );
  });

  test('Landscaper objects are named as Kubernetes names', () => {
    const ok = loadObjects(`${API}\nkind: Installation\nmetadata: {name: Bad_Name}\nspec: {blueprint: {}}\n`, 'i.yaml');
    assert.match(ok.diagnostics.find((d) => d.severity === 'error')!.message, /Kubernetes name/);
  });

  test('a Target without a namespace: the installation’s error names its field and where the Target went', () => {
    // Without metadata.namespace the Target is in "default", and the root in "demo" does not see it.
    const objects = load(BASE.replace('metadata: {name: k8s, namespace: demo}', 'metadata: {name: k8s}') + install('application'));
    const outcome = new EngineSession({ objects, users: [] }).state().claims.find((c) => c.name === 'application')!;
    assert.equal(outcome.status, 'error');
    const message =
      'installation application: spec.imports.targets[0].target: unable to fetch target "k8s" (import "cluster") from context "" in namespace "demo": a Target "k8s" is in namespace "default" (without metadata.namespace it is in "default"); set its metadata.namespace to "demo"';
    assert.deepEqual(outcome.errors, [message]);
    assert.deepEqual(outcome.diagnostics, [{ code: 'invalid_reference', severity: 'error', message, object: 'installation/demo/application', path: ['spec', 'imports', 'targets', 0, 'target'] }]);
  });
});
