/**
 * A new source plugs in without edits elsewhere: a toy source declared here
 * (one kind, one stage producing instances) flows through validation, the
 * engine's stages, the plan, the graphs and the GitOps renderer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { z } from 'zod';
import { parseRenderedFile, renderStep } from '../apply/gitops/render';
import { desiredGraph } from './graph';
import { ENGINE_STAGES, EngineSession, plan, runEngine, type EngineInput, type SourceStage } from './index';
import { deployName, instanceId } from './lang';
import { KindRegistry, SOURCE_MODELS, type Cluster } from './model/kinds';
import { defineSource, metadataIdentity } from './model/sources';
import { parseUsers } from './model/users';
import { loadObjects } from './model/validate';
import { instanceKey, type Instance } from './state';

// The toy source's provenance joins the union (declaration merging: no edit in state/).
declare module './state/types' {
  interface ProvenanceBySource {
    toy: { widget: string };
  }
}

const widgetSchema = z
  .object({
    apiVersion: z.literal('toy.example/v1'),
    kind: z.string(),
    metadata: z.object({ namespace: z.string(), name: z.string() }).strict(),
    cluster: z.string().describe('Cluster (in system) to deploy the widget to'),
    size: z.number().int().min(1).max(10),
  })
  .strict();
type Widget = z.output<typeof widgetSchema>;

const TOY = defineSource({
  name: 'toy',
  title: 'Toy',
  recognises: (doc) => doc.apiVersion === 'toy.example/v1',
  identify: metadataIdentity,
  kinds: { widget: { schema: widgetSchema, description: 'A widget: one ConfigMap of a given size', example: 'apiVersion: toy.example/v1\nkind: widget\nmetadata: {namespace: main, name: w}\ncluster: k8s\nsize: 1\n' } },
});

/** One instance per widget: a raw ConfigMap on the widget's cluster. */
const TOY_EXPAND: SourceStage = {
  source: 'toy',
  stage: 'expand',
  start(input) {
    const build = (objects: EngineInput['objects']) => {
      const instances: Instance[] = objects
        .filter((o) => o.kind === 'widget')
        .map((o) => {
          const w = o.spec as Widget;
          const target = { clusterNamespace: 'system', cluster: w.cluster, namespace: o.namespace };
          const key = instanceKey.forSource({ source: 'toy', clusterNamespace: 'system', cluster: w.cluster, k8sNamespace: o.namespace, namespace: o.namespace, path: [o.name], component: 'configmap' });
          return {
            key,
            deployName: deployName(key),
            instanceId: instanceId(key),
            namespace: o.namespace,
            owner: o.name,
            component: 'configmap',
            code: { type: 'raw', params: { manifest: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: widget-${o.name}\ndata:\n  size: "${w.size}"\n` } },
            discovery: {},
            labels: {},
            target,
            edges: [],
            dependsOn: [],
            claims: [`${o.namespace}/${o.name}`],
            provenance: { source: 'toy', widget: o.name },
          } satisfies Instance;
        })
        .sort((a, b) => (a.key < b.key ? -1 : 1));
      return { instances, claims: [], errors: [] };
    };
    let out = build(input.objects);
    return {
      output: () => out,
      update(change) {
        const widgets = new Map(input.objects.filter((o) => o.kind === 'widget').map((o) => [`${o.namespace}/${o.name}`, o]));
        for (const d of change.deletes) if (d.kind === 'widget') widgets.delete(`${d.namespace}/${d.name}`);
        for (const u of change.upserts) if (u.kind === 'widget') widgets.set(`${u.namespace}/${u.name}`, u);
        out = build([...widgets.values()]);
        return true;
      },
    };
  },
};

const REGISTRY = new KindRegistry([TOY, ...SOURCE_MODELS]);
const STAGES = [...ENGINE_STAGES, TOY_EXPAND];

const POLICY = `
- kind: cluster
  metadata: {namespace: system, name: k8s}
  type: kubernetes
  config: {defaultnamespace: default}
- kind: service
  metadata: {namespace: main, name: web}
  contexts: [{name: prod, allocation: {bundle: web}}]
- kind: bundle
  metadata: {namespace: main, name: web}
  components:
  - name: nginx
    code: {type: raw, params: {manifest: "apiVersion: v1\\nkind: Service\\nmetadata: {name: nginx}\\n"}}
- kind: rule
  metadata: {namespace: main, name: target}
  weight: 10
  actions: {change-labels: {set: {target: k8s}}}
- kind: claim
  metadata: {namespace: main, name: alice-web}
  user: alice
  service: web
---
apiVersion: toy.example/v1
kind: Widget
metadata: {namespace: main, name: gizmo}
cluster: k8s
size: 3
`;

test('a toy source flows through validation, the stages, the plan, the graphs and the GitOps render', () => {
  const loaded = loadObjects(POLICY, 'policy.yaml', REGISTRY);
  assert.deepEqual(loaded.diagnostics.filter((d) => d.severity !== 'info'), []);
  assert.deepEqual(loaded.objects.map((o) => o.kind).sort(), ['bundle', 'claim', 'cluster', 'rule', 'service', 'widget']);
  const users = parseUsers('- {name: alice, labels: {}}\n').users;
  const state = runEngine({ objects: loaded.objects, users }, {}, STAGES);

  // Both sources' instances meet in one desired state, sorted by key.
  const toy = state.instances.filter((i) => i.provenance.source === 'toy');
  assert.equal(toy.length, 1);
  assert.equal(toy[0]!.key, 'system#k8s#main#main#@toy#gizmo#configmap');
  assert.ok(state.instances.some((i) => i.provenance.source === 'aptomi' && i.component === 'nginx'));
  assert.deepEqual(state.instances.map((i) => i.key), state.instances.map((i) => i.key).sort());
  assert.deepEqual(state.claims.map((c) => [c.name, c.status]), [['alice-web', 'resolved']]);

  // The plan creates it in the section of its namespace.
  const clusters = loaded.objects.filter((o) => o.kind === 'cluster').map((o) => ({ namespace: o.namespace, name: o.name, spec: o.spec as Cluster }));
  const revision = plan({ before: null, after: state, clusters });
  const step = revision.steps.find((s) => s.key === toy[0]!.key);
  assert.ok(step, 'the toy instance has a plan step');
  assert.equal(step.action, 'create');
  assert.equal(step.owner, 'gizmo');
  assert.ok(revision.sections.some((s) => s.namespace === 'main' && s.keys.includes(toy[0]!.key)));

  // The graph draws it on its target, with its source.
  const graph = desiredGraph(state);
  const node = graph.nodes.find((n) => n.kind === 'instance' && n.key === toy[0]!.key);
  assert.ok(node && node.kind === 'instance');
  assert.equal(node.source, 'toy');
  // The one name an instance has everywhere (plan, events, graph): instanceKey.displayName.
  assert.equal(node.label, 'main · toy · gizmo · configmap');
  assert.equal(node.group, 'target:system/k8s/main');

  // The GitOps renderer writes its manifest with Keelson's labels.
  const rendered = renderStep(step);
  assert.equal(rendered.op, 'write');
  if (rendered.op !== 'write') return;
  const [cm] = parseRenderedFile(rendered.content) as { kind: string; metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> }[];
  assert.equal(cm?.kind, 'ConfigMap');
  assert.equal(cm?.metadata.name, 'widget-gizmo');
  assert.equal(cm?.data.size, '3');
  assert.equal(cm?.metadata.labels['app.kubernetes.io/managed-by'], 'keelson');
  assert.match(rendered.path, /^clusters\/system\.k8s\/main\//);
});

test('the engine session applies a change to every stage, and starts over when one cannot absorb it', () => {
  const loaded = loadObjects(POLICY, 'policy.yaml', REGISTRY);
  const users = parseUsers('- {name: alice, labels: {}}\n').users;
  const session = new EngineSession({ objects: loaded.objects, users }, {}, STAGES);
  const bigger = parse('apiVersion: toy.example/v1\nkind: widget\nmetadata: {namespace: main, name: gizmo}\ncluster: k8s\nsize: 7\n') as Widget;
  const claim = { kind: 'claim', namespace: 'main', name: 'alice-web-2', spec: { kind: 'claim', metadata: { namespace: 'main', name: 'alice-web-2' }, user: 'alice', service: 'web' } };
  const next = session.update({ upserts: [{ kind: 'widget', namespace: 'main', name: 'gizmo', spec: bigger }, claim], deletes: [] });
  assert.ok(next, 'a widget and a claim change are absorbed in place');
  const cm = next.instances.find((i) => i.provenance.source === 'toy');
  assert.match(String(cm?.code?.params.manifest), /size: "7"/);
  assert.deepEqual(next.claims.map((c) => c.name), ['alice-web', 'alice-web-2']);
  // The same change resolved from scratch gives the same state.
  const objects = [...loaded.objects.filter((o) => (o.kind as string) !== 'widget'), { kind: 'widget', namespace: 'main', name: 'gizmo', spec: bigger }, claim];
  assert.deepEqual(next, runEngine({ objects, users }, {}, STAGES));
  // A bundle change is not something Aptomi's stage absorbs: the caller starts over.
  const bundle = loaded.objects.find((o) => o.kind === 'bundle')!;
  assert.equal(session.update({ upserts: [bundle], deletes: [] }), null);
});
