import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDiagnostic } from '../diagnostics';
import { jsonSchemaForKind, KNOWN_KINDS } from './kinds';
import { parseUsers } from './users';
import { loadObjects } from './validate';

describe('loading objects', () => {
  test('one object, a list, and --- documents all load, with their start lines', () => {
    const one = loadObjects('kind: claim\nmetadata: {namespace: a, name: b}\nuser: u\nservice: s\n');
    assert.deepEqual(one.objects.map((o) => [o.kind, o.pos.line]), [['claim', 1]]);
    const list = loadObjects('- kind: claim\n  metadata: {namespace: a, name: b}\n  user: u\n  service: s\n- kind: claim\n  metadata: {namespace: a, name: c}\n  user: u\n  service: s\n');
    assert.deepEqual(list.objects.map((o) => [o.name, o.pos.line]), [['b', 1], ['c', 5]]);
    const docs = loadObjects('kind: claim\nmetadata: {namespace: a, name: b}\nuser: u\nservice: s\n---\n---\nkind: CLAIM\nmetadata: {namespace: a, name: c}\nuser: u\nservice: s\n');
    assert.deepEqual(docs.objects.map((o) => [o.kind, o.name, o.pos.line]), [['claim', 'b', 1], ['claim', 'c', 7]]);
    assert.deepEqual(docs.diagnostics, []);
  });

  test('a list item keeps its comments and becomes a stand-alone document', () => {
    const r = loadObjects('# about c\n- kind: claim  # inline\n  metadata: {namespace: a, name: c}\n  # before user\n  user: u\n  service: s\n');
    assert.equal(r.objects[0]!.text, '# about c\nkind: claim  # inline\nmetadata: {namespace: a, name: c}\n# before user\nuser: u\nservice: s\n');
  });

  test('comments after an object stay with it (a note at the end of the editor is a change)', () => {
    const doc = loadObjects('kind: claim\nmetadata: {namespace: a, name: b}\nuser: u\nservice: s\n\n# trailing note\n');
    assert.equal(doc.objects[0]!.text, 'kind: claim\nmetadata: {namespace: a, name: b}\nuser: u\nservice: s\n\n# trailing note\n');
    const list = loadObjects('- kind: claim\n  metadata: {namespace: a, name: b}\n  user: u\n  service: s\n  # tail of b\n# about c\n- kind: claim\n  metadata: {namespace: a, name: c}\n  user: u\n  service: s\n# end\n');
    assert.deepEqual(list.objects.map((o) => o.text), [
      'kind: claim\nmetadata: {namespace: a, name: b}\nuser: u\nservice: s\n# tail of b\n',
      '# about c\nkind: claim\nmetadata: {namespace: a, name: c}\nuser: u\nservice: s\n# end\n',
    ]);
  });

  test('labels become strings, as in Aptomi', () => {
    const r = loadObjects('kind: claim\nmetadata: {namespace: a, name: b}\nuser: u\nservice: s\nlabels: {replicas: 3, blog: true, name: x}\n');
    const claim = r.objects[0]!;
    assert.equal(claim.kind, 'claim');
    if (claim.kind === 'claim') assert.deepEqual(claim.spec.labels, { replicas: '3', blog: 'true', name: 'x' });
  });

  test('errors point at the field, with object and position', () => {
    const r = loadObjects(
      [
        'kind: bundle',
        'metadata: {namespace: main, name: web}',
        'components:',
        '  - name: a',
        '    code: {type: docker}',
        '  - name: b',
        '    service: s',
        '    code: {type: helm}',
        '  - name: c',
        '    code: {type: helm}',
        '    dependencies: [zz]',
      ].join('\n'),
      'web.yaml',
    );
    const lines = r.diagnostics.map(formatDiagnostic);
    assert.deepEqual(lines, [
      'web.yaml:5:18: components[0].code.type: must be one of "helm", "raw" (bundle/main/web)',
      'web.yaml:6:5: components[1]: a component has one of code, service or interface, not several (bundle/main/web)',
    ]);
    assert.equal(r.objects.length, 0);
  });

  test('bundle checks: unknown dependencies and dependency cycles', () => {
    const missing = loadObjects('kind: bundle\nmetadata: {namespace: m, name: b}\ncomponents:\n  - {name: a, code: {type: helm}, dependencies: [zz]}\n');
    assert.match(missing.diagnostics[0]!.message, /depends on "zz", which is not a component/);
    const cyc = loadObjects(
      'kind: bundle\nmetadata: {namespace: m, name: b}\ncomponents:\n  - {name: a, code: {type: helm}, dependencies: [b]}\n  - {name: b, code: {type: helm}, dependencies: [a]}\n',
    );
    assert.equal(cyc.diagnostics[0]!.code, 'cycle');
    assert.match(cyc.diagnostics[0]!.message, /a → b → a/);
  });

  test('expressions and templates are compiled when the policy is loaded', () => {
    const r = loadObjects(
      [
        '- kind: rule',
        '  metadata: {namespace: main, name: r}',
        '  weight: 1',
        '  criteria:',
        '    require-all:',
        "      - team == 'dev' &&",
        '  actions: {claim: reject}',
        '- kind: bundle',
        '  metadata: {namespace: main, name: b}',
        '  components:',
        "    - {name: c, code: {type: helm, params: {x: '{{ .Labels.a | upper }}'}}}",
      ].join('\n'),
      'p.yaml',
    );
    assert.deepEqual(r.diagnostics.map(formatDiagnostic), [
      "p.yaml:6:9: expression `team == 'dev' &&`: unexpected end of expression (rule/main/r)",
      // Column 64 is `upper` inside the quoted template (it was 48, the field's quote, before templates were located to their own column).
      'p.yaml:11:64: template "{{ .Labels.a | upper }}": function "upper" not defined (bundle/main/b)',
    ]);
  });

  test('clusters and ACL rules live in system', () => {
    const r = loadObjects('kind: cluster\nmetadata: {namespace: main, name: c}\ntype: kubernetes\n');
    assert.equal(r.diagnostics[0]!.code, 'namespace');
    assert.equal(r.diagnostics[0]!.line, 2);
  });

  test('foreign manifests (apiVersion) are skipped, not errors; a missing kind is an error', () => {
    const r = loadObjects('apiVersion: v1\nkind: Service\nmetadata: {name: x}\n---\nmetadata: {namespace: a, name: b}\n');
    assert.deepEqual(r.diagnostics.map((d) => [d.severity, d.code]), [['info', 'skipped'], ['error', 'missing_kind']]);
  });

  test('alias bombs are stopped', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]', 'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]', 'kind: claim'].join('\n');
    const r = loadObjects(bomb);
    assert.equal(r.objects.length, 0);
    assert.equal(r.diagnostics[0]!.code, 'yaml_syntax');
  });
});

describe('JSON Schemas for the editor', () => {
  test('one per kind, rejecting unknown fields, with the kind pinned', () => {
    // OCF manifests, Capact's TypeInstance exports and Landscaper's objects are taken as written (the Hub loader reads what it needs); every other kind is closed.
    const asWritten = new Set(['interface', 'implementation', 'type', 'attribute', 'typeinstance', 'installation', 'blueprint', 'dataobject', 'target', 'context']);
    for (const k of KNOWN_KINDS) {
      const s = jsonSchemaForKind(k) as { additionalProperties?: unknown; properties: Record<string, { enum?: string[] }>; $schema: string };
      if (!asWritten.has(k)) assert.equal(s.additionalProperties, false, k);
      assert.equal(s.properties.kind!.enum![0], k);
      assert.match(s.$schema, /draft-07/);
    }
    assert.deepEqual((jsonSchemaForKind('interface') as { properties: Record<string, { enum?: string[] }> }).properties.kind!.enum, ['interface', 'Interface']);
  });
});

describe('users files', () => {
  test('Aptomi users and secrets files merge by name, case-insensitively', () => {
    const r = parseUsers('- name: Alice\n  passwordhash: "$2a$10$x"\n  labels: {org: dev, deactivated: false}\n- user: alice\n  secrets: {token: t}\n');
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.users, [{ name: 'Alice', labels: { org: 'dev', deactivated: 'false' }, secrets: { token: 't' }, passwordHash: '$2a$10$x', domainAdmin: undefined }]);
  });
});
