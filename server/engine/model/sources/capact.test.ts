/**
 * Capact's objects through Keelson's loader: the corpus Hub loads as
 * written, each manifest named by path and revision; policies and actions
 * in Keelson's envelope are checked by the policy engine at their line.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadObjects } from '../validate';

const HUB = join(process.cwd(), 'corpus/capact/pkg/sdk/renderer/argo/testdata/hub');
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []));

describe('Capact objects in the loader', () => {
  test('every manifest of the corpus Hub loads as written, named path:revision in system', () => {
    const files = walk(HUB).sort();
    const loaded = files.map((f) => loadObjects(readFileSync(f, 'utf8'), f));
    const errors = loaded.flatMap((l) => l.diagnostics.filter((d) => d.severity === 'error'));
    assert.deepEqual(errors, []);
    const objects = loaded.flatMap((l) => l.objects);
    const byKind = (k: string) => objects.filter((o) => o.kind === k);
    assert.ok(byKind('implementation').length >= 20, String(byKind('implementation').length));
    assert.equal(byKind('typeinstance').length, 6);
    assert.ok(objects.every((o) => o.namespace === 'system'));
    assert.ok(byKind('implementation').some((o) => o.name === 'cap.implementation.bitnami.postgresql.install:0.1.0'));
    assert.ok(byKind('typeinstance').some((o) => o.name === 'c268d3f5-8834-434b-bea2-b677793611c5'));
  });

  test('a policy the engine cannot read is refused at its line, naming the field', () => {
    const r = loadObjects('kind: policy\nmetadata: {namespace: system, name: global}\ninterface:\n  rules: foo\n', 'p.yaml');
    assert.deepEqual(r.objects, []);
    const d = r.diagnostics.find((x) => x.severity === 'error')!;
    assert.equal(d.object, 'policy/system/global');
    assert.match(d.message, /interface\.rules/);
    assert.equal(d.line, 4);
  });

  test('a policy lives in system; an action may live in a tenant namespace', () => {
    const p = loadObjects('kind: policy\nmetadata: {namespace: main, name: global}\ninterface: {rules: []}\n');
    assert.match(p.diagnostics.find((d) => d.severity === 'error')!.message, /must be in the "system" namespace/);
    const a = loadObjects('kind: action\nmetadata: {namespace: main, name: db}\ninterface: {path: cap.interface.database.postgresql.install}\ntarget: k8s\n');
    assert.deepEqual(a.diagnostics, []);
    assert.deepEqual(a.objects.map((o) => [o.kind, o.namespace, o.name]), [['action', 'main', 'db']]);
  });

  test('an action names a Capact path and a semantic revision', () => {
    const r = loadObjects('kind: action\nmetadata: {namespace: main, name: db}\ninterface: {path: postgres, revision: latest}\ntarget: k8s\n', 'a.yaml');
    assert.deepEqual(
      r.diagnostics.map((d) => [d.path?.join('.'), d.line]),
      [
        ['interface.path', 3],
        ['interface.revision', 3],
      ],
    );
  });

  test('a Keelson-envelope TypeInstance and an OCF manifest without a usable path', () => {
    const ti = loadObjects('kind: typeinstance\nmetadata: {namespace: system, name: sa-1}\ntypeRef: {path: cap.type.gcp.auth.service-account, revision: 0.1.0}\nvalue: {}\n');
    assert.deepEqual(ti.diagnostics, []);
    assert.equal(ti.objects[0]!.name, 'sa-1');
    const bad = loadObjects('ocfVersion: 0.0.1\nrevision: 0.1.0\nkind: Implementation\nmetadata: {prefix: interface, name: x}\n', 'i.yaml');
    assert.match(bad.diagnostics.find((d) => d.severity === 'error')!.message, /Capact path/);
  });
});
