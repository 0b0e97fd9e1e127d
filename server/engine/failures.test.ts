/**
 * One failure model: whichever source a request comes from, its outcome's
 * failures are Diagnostics (a code of DIAGNOSTIC_CODES, the object and,
 * where the source knows it, the field), one per message the outcome shows,
 * in the same words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { EngineSession } from './index';
import { DIAGNOSTIC_CODES, formatDiagnostic } from './diagnostics';
import { loadObjects } from './model/validate';
import { compileTemplate, langDiagnostic } from './lang';
import { parseSpiffExpression, spiffDiagnostic } from './lang/spiff';
import { compileSelector, selectorDiagnostic } from './lang/selector';
import { plugTemplateSandbox } from '../dm-python';

plugTemplateSandbox({ python: false });

const LANDSCAPER = 'apiVersion: landscaper.gardener.cloud/v1alpha1';
// One bad request per source, each failing for a reason its own stage finds (none is refused at load).
const POLICY = `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes, config: {defaultnamespace: apps}}
- {kind: service, metadata: {namespace: main, name: web}, contexts: [{name: any, allocation: {bundle: web}}]}
- {kind: claim, metadata: {namespace: main, name: nobody}, user: ghost, service: web}
- kind: action
  metadata: {namespace: main, name: db}
  interface: {path: cap.interface.database.postgresql.install}
  target: k8s.data
---
${LANDSCAPER}
kind: Installation
metadata: {name: app, namespace: demo}
spec:
  blueprint: {ref: {resourceName: missing}}
---
${stringify({ kind: 'deployment', metadata: { namespace: 'shop', name: 'web' }, target: 'elsewhere', configuration: { resources: [{ name: 'cm', type: 'ConfigMap', properties: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } } }] } })}`;

test("every source's failed request carries its failures as Diagnostics: code, object, the same words", () => {
  const r = loadObjects(POLICY);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  const state = new EngineSession({ objects: r.objects, users: [] }).state();
  const failed = new Map(state.claims.filter((c) => c.status !== 'resolved').map((c) => [c.kind ?? 'claim', c]));
  assert.deepEqual([...failed.keys()].sort(), ['action', 'claim', 'deployment', 'installation'], 'one failed request per source');
  const objects: Record<string, string> = { claim: 'claim/main/nobody', action: 'action/main/db', installation: 'installation/demo/app', deployment: 'deployment/shop/web' };
  for (const [kind, c] of failed) {
    assert.ok(c.errors.length > 0, `${kind}: has errors`);
    assert.deepEqual(c.diagnostics?.map((d) => d.message), c.errors, `${kind}: one diagnostic per message, in the same words`);
    for (const d of c.diagnostics!) {
      assert.ok(Object.hasOwn(DIAGNOSTIC_CODES, d.code), `${kind}: code ${d.code} is in DIAGNOSTIC_CODES`);
      assert.equal(d.severity, 'error');
      assert.equal(d.object, objects[kind], `${kind}: names its object`);
    }
  }
  // Where the source knows the field, it says it.
  assert.deepEqual(failed.get('deployment')!.diagnostics![0]!.path, ['target']);
  assert.deepEqual(failed.get('action')!.diagnostics![0]!.path, ['interface']);
  // The CLI's one line for a failure found at resolve time: the object and field, as no file is known.
  assert.equal(formatDiagnostic(failed.get('deployment')!.diagnostics![0]!), 'deployment/shop/web target: target "elsewhere" is not a Keelson cluster');
  for (const e of state.errors) assert.ok(Object.hasOwn(DIAGNOSTIC_CODES, e.code) && e.severity === 'error', 'problems outside a request are Diagnostics too');
});

test('the languages’ errors convert to Diagnostics where they are made: same words, a table code, the position they knew', () => {
  const template = compileTemplate('line one\n{{ .Missing');
  assert.ok(!template.ok);
  const d = langDiagnostic(template.error, { object: 'service/main/web', path: ['contexts', 0] });
  assert.deepEqual([d.code, d.message, d.object, d.path, d.line], ['template', template.error.message, 'service/main/web', ['contexts', 0], template.error.line]);
  assert.equal(d.line, 2, 'the line inside the template');

  const spiff = parseSpiffExpression('1 +');
  assert.ok(!spiff.ok);
  assert.deepEqual([spiffDiagnostic(spiff.error).code, spiffDiagnostic(spiff.error).message], ['expression', spiff.error.message]);

  const selector = compileSelector(['$.nowhere.x']);
  assert.ok(!selector.ok);
  const s = selectorDiagnostic(selector.errors[0]!, { object: 'tenant/t', path: ['rules', 'selectEnvironmentService', 0, 'sel'] });
  assert.deepEqual([s.code, s.message, s.object], ['expression', selector.errors[0]!.message, 'tenant/t']);
});
