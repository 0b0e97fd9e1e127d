/**
 * DM read YAML with PyYAML's safe_load: the cases below are PyYAML's own
 * resolver and constructor rules (resolver.py, constructor.py), each value
 * as DM's expansion gave it (checked with shared/tools/dm-oracle).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadObjects } from '../model/validate';
import { expand } from './index';
import { parseYaml } from './config';
import { isWholeFloat, pyyamlScalar } from './pyyaml';
import { clone } from './schema';
import { plugTemplateSandbox } from '../../dm-python';

// Jinja templates render with Jinja2 in the sandbox, as on every server thread that expands them.
plugTemplateSandbox({ python: false });

describe('DM reads YAML as PyYAML did', () => {
  test('y and n stay text in the configuration, a template\'s output and a schema; yes/on are booleans', () => {
    const r = expand(
      {
        config: 'imports: [{path: t.jinja}]\nresources:\n- name: a\n  type: ConfigMap\n  properties: {y: 5, n: n, on: yes}\n- name: b\n  type: t.jinja\n  properties: {flag: Y}\n',
        imports: {
          't.jinja': 'resources:\n- name: out\n  type: ConfigMap\n  properties: {given: {{ properties["flag"] }}, n: y, off: On, dflt: {{ properties["d"] }}}\n',
          't.jinja.schema': 'properties:\n  d:\n    default: n\n',
        },
      },
      { env: { deployment: 'd', project: 'p' } },
    );
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.config.resources[0]!.properties, { y: 5, n: 'n', true: true });
    assert.deepEqual(r.config.resources[1]!.properties, { given: 'Y', n: 'y', false: true, dflt: 'n' });
  });

  test("a deployment object's configuration reads as DM read it, the rest of its file as YAML 1.2", () => {
    const text = [
      'kind: deployment',
      'metadata: {namespace: main, name: flags}',
      'target: k8s',
      'configuration:',
      '  resources:',
      '  - {name: m, type: ConfigMap, properties: {enabled: yes, short: y, mode: 0644, off: 1e3}}',
    ].join('\n');
    const loaded = loadObjects(text, 'flags.yaml');
    assert.deepEqual(loaded.diagnostics.filter((d) => d.severity === 'error'), []);
    const spec = loaded.objects[0]!.spec as { configuration: { resources: { properties: unknown }[] } };
    assert.deepEqual(spec.configuration.resources[0]!.properties, { enabled: true, short: 'y', mode: 420, false: '1e3' });
  });

  test('scalars resolve by PyYAML\'s implicit resolvers', () => {
    const cases: [string, unknown][] = [
      // bool: three spellings of yes/no/true/false/on/off; not y/n, not mixed case
      ['yes', true], ['Yes', true], ['YES', true], ['No', false], ['on', true], ['OFF', false], ['True', true], ['FALSE', false],
      ['y', 'y'], ['N', 'N'], ['yEs', 'yEs'], ['tRUE', 'tRUE'],
      // null
      ['~', null], ['null', null], ['Null', null], ['NULL', null], ['', null], ['nULL', 'nULL'],
      // int: octal with a leading 0 (not 0o), hex, binary, base 60, underscores
      ['017', 15], ['0o17', '0o17'], ['0x1F', 31], ['-0b11', -3], ['1_000', 1000], ['190:20:30', 685230], ['+12', 12], ['09', '09'], ['0', 0],
      // float: needs a dot; signed .5 is text; base 60
      ['1.5', 1.5], ['1e3', '1e3'], ['1.0e+3', 1000], ['1.0e3', '1.0e3'], ['.5', 0.5], ['+.5', '+.5'], ['190:20:30.15', 685230.15], ['-.inf', -Infinity],
      // timestamps, as Python's isoformat(' ') of what PyYAML built
      ['2001-12-14', '2001-12-14'], ['2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.100000-05:00'], ['2001-12-15T02:59:43.1Z', '2001-12-15 02:59:43.100000+00:00'],
      ['0.1.2', '0.1.2'], ['1:2:3:x', '1:2:3:x'],
    ];
    for (const [text, want] of cases) assert.deepEqual(pyyamlScalar(text), want, JSON.stringify(text));
    assert.ok(Number.isNaN(pyyamlScalar('.NaN')));
  });

  test('a float with a whole value (10.0) is marked where it sits, through merges and copies; 10 is not', () => {
    const parsed = parseYaml('base: &b {f: 1.0}\nm: {<<: *b, g: 2.0, i: 2, e: 1.0e+3}\nl: [3.0, 3, !!float 4]\n', 'test');
    assert.ok(parsed.ok);
    const v = clone(parsed.value!) as { m: object; l: object };
    assert.deepEqual(['f', 'g', 'i', 'e'].map((k) => isWholeFloat(v.m, k)), [true, true, false, true]);
    assert.deepEqual([0, 1, 2].map((i) => isWholeFloat(v.l, i)), [true, false, true]);
  });

  test('an integer a JSON number cannot hold exactly is refused with its line; one it can (2^60) is kept', () => {
    const r = expand({ config: 'resources:\n- name: a\n  type: T\n  properties: {big: 9007199254740993, ok: 1152921504606846976, neg: -9007199254740992}\n' }, { env: {} });
    assert.match(r.errors[0]!.message, /the integer 9007199254740993 cannot be carried exactly .*; quote it to keep it as text\n {2}in "template", line 4, column 21/);
    assert.deepEqual(pyyamlScalar('1152921504606846976'), 2 ** 60);
    assert.deepEqual(pyyamlScalar('-9007199254740992'), -(2 ** 53));
    assert.throws(() => pyyamlScalar('0x20000000000001'), /the integer 9007199254740993 cannot be carried exactly/);
  });

  test('a value PyYAML could not construct is an error with its line, and nothing expands', () => {
    const r = expand({ config: 'resources:\n- name: a\n  type: ConfigMap\n  properties:\n    when: 2001-02-30\n' }, { env: {} });
    assert.equal(r.config.resources.length, 0);
    assert.match(r.errors[0]!.message, /day is out of range for month\n {2}in "template", line 5, column 11/);
  });
});
