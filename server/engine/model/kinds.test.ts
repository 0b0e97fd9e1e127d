import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { KINDS, KindRegistry, KNOWN_KINDS, SOURCE_MODELS } from './kinds';
import { defineSource, metadataIdentity } from './sources';
import { loadObjects } from './validate';

test('the kind registry: every built-in kind has one source, a schema, a description and a starting text that loads as is', () => {
  assert.deepEqual(
    [...KNOWN_KINDS],
    ['aclrule', 'action', 'attribute', 'blueprint', 'bundle', 'claim', 'cluster', 'context', 'dataobject', 'deployment', 'implementation', 'installation', 'interface', 'policy', 'rule', 'service', 'target', 'type', 'typeinstance'],
  );
  const capact = new Set(['action', 'attribute', 'implementation', 'interface', 'policy', 'type', 'typeinstance']);
  const landscaper = new Set(['blueprint', 'context', 'dataobject', 'installation', 'target']);
  for (const k of KNOWN_KINDS) {
    assert.equal(KINDS.sourceOfKind(k)?.name, capact.has(k) ? 'capact' : landscaper.has(k) ? 'landscaper' : k === 'deployment' ? 'dm' : 'aptomi', k);
    assert.ok(KINDS.description(k).length > 10, k);
    const example = loadObjects(KINDS.spec(k)!.example, `${k}.yaml`);
    assert.deepEqual(example.diagnostics.filter((d) => d.severity === 'error'), [], k);
    assert.deepEqual(example.objects.map((o) => o.kind), [k]);
  }
  assert.equal(KINDS.normalise('BUNDLE'), 'bundle');
  assert.deepEqual(SOURCE_MODELS.map((s) => s.name), ['landscaper', 'capact', 'dm', 'dm-configuration', 'aptomi']);
});

test('documents of other sources are recognised and named, not skipped as foreign or refused as unknown kinds', () => {
  // Landscaper's objects load as written, in their Kubernetes namespace.
  const installation = loadObjects(
    'apiVersion: landscaper.gardener.cloud/v1alpha1\nkind: Installation\nmetadata: {namespace: demo, name: application}\nspec: {blueprint: {ref: {resourceName: app}}}\n',
    'inst.yaml',
  );
  assert.deepEqual(installation.diagnostics, []);
  assert.deepEqual(installation.objects.map((o) => [o.kind, o.namespace, o.name]), [['installation', 'demo', 'application']]);

  // Capact's OCF manifests load as written, named by path and revision, in the system namespace.
  const ocf = loadObjects('ocfVersion: 0.0.1\nrevision: 0.1.0\nkind: Interface\nmetadata: {prefix: cap.interface.database.postgresql, name: install}\n');
  assert.deepEqual(ocf.diagnostics, []);
  assert.deepEqual(ocf.objects.map((o) => [o.kind, o.namespace, o.name]), [['interface', 'system', 'cap.interface.database.postgresql.install:0.1.0']]);
  const noRevision = loadObjects('ocfVersion: 0.0.1\nkind: Interface\nmetadata: {prefix: cap.interface.database.postgresql, name: install}\n');
  assert.deepEqual(noRevision.diagnostics.map((d) => [d.code, d.path]), [['schema', ['revision']]]);

  const dm = loadObjects('resources:\n- name: vm\n  type: compute.v1.instance\n');
  assert.equal(dm.diagnostics[0]?.code, 'unsupported_source');
  assert.match(dm.diagnostics[0]!.message, /Deployment Manager configuration/);

  // A Kubernetes manifest belongs to no source: skipped, as before.
  const k8s = loadObjects('apiVersion: v1\nkind: Service\nmetadata: {name: web}\n');
  assert.deepEqual(k8s.diagnostics.map((d) => [d.code, d.severity]), [['skipped', 'info']]);
});

test('a source is one declaration: a registry over it validates, identifies and describes its kinds', () => {
  const widget = z.object({ apiVersion: z.literal('toy.example/v1'), kind: z.string(), metadata: z.object({ namespace: z.string(), name: z.string() }).strict(), size: z.number().int() }).strict();
  const toy = defineSource({
    name: 'toy',
    title: 'Toy',
    recognises: (doc) => doc.apiVersion === 'toy.example/v1',
    identify: metadataIdentity,
    kinds: { widget: { schema: widget, description: 'A widget of some size', example: 'apiVersion: toy.example/v1\nkind: widget\nmetadata: {namespace: main, name: w}\nsize: 1\n' } },
  });
  const registry = new KindRegistry([toy, ...SOURCE_MODELS]);
  const ok = loadObjects('apiVersion: toy.example/v1\nkind: Widget\nmetadata: {namespace: main, name: w}\nsize: 3\n', 'w.yaml', registry);
  assert.deepEqual(ok.diagnostics, []);
  assert.deepEqual(ok.objects.map((o) => [o.kind, o.namespace, o.name]), [['widget', 'main', 'w']]);
  const bad = loadObjects('apiVersion: toy.example/v1\nkind: Widget\nmetadata: {namespace: main, name: w}\nsize: big\n', 'w.yaml', registry);
  assert.deepEqual(bad.diagnostics.map((d) => [d.code, d.path, d.line]), [['schema', ['size'], 4]]);
  // An Aptomi kind in a toy envelope is named as the other source's.
  const wrong = loadObjects('apiVersion: toy.example/v1\nkind: claim\nmetadata: {namespace: main, name: c}\n', 'c.yaml', registry);
  assert.match(wrong.diagnostics[0]!.message, /kind "claim" belongs to Aptomi, not to Toy documents; Toy kinds: widget/);
  assert.equal((registry.jsonSchema('widget').properties as Record<string, { enum?: string[] }>).kind?.enum?.[0], 'widget');
  // The "New object" text travels with the schema, and loads as is.
  const example = registry.jsonSchema('widget')['x-keelson-example'] as string;
  assert.deepEqual(loadObjects(example, 'new.yaml', registry).diagnostics, []);
  // The built-in registry does not know the toy kind.
  assert.equal(KINDS.normalise('widget'), undefined);
  // Two sources may not declare one kind.
  assert.throws(() => new KindRegistry([toy, defineSource({ ...toy, name: 'toy2' })]), /declared by both toy and toy2/);
});
