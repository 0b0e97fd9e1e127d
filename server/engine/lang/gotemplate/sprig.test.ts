/** Sprig's functions, where a dialect asks for them (Landscaper), and nowhere else (Aptomi). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileTemplate, renderTemplate, SPRIG_FUNCTIONS } from './index';

function render(src: string, data: unknown): string {
  const c = compileTemplate(src, { functions: SPRIG_FUNCTIONS });
  assert.ok(c.ok, c.ok ? '' : c.error.message);
  const r = renderTemplate(c.value, data);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value;
}

describe('Sprig functions', () => {
  const cases: [string, unknown, string][] = [
    ['data:{{ .m | toYaml | nindent 2 }}', { m: { b: 1, a: 'x' } }, 'data:\n  b: 1\n  a: x'],
    ['{{ .m | toJson }}', { m: { a: [1, true] } }, '{"a":[1,true]}'],
    ['{{ indent 3 "a\\nb" }}', {}, '   a\n   b'],
    ['{{ .s | quote }}', { s: 'say "hi"' }, '"say \\"hi\\""'],
    ['{{ upper .s }}-{{ lower .s }}-{{ trim "  x  " }}', { s: 'Ab' }, 'AB-ab-x'],
    ['{{ trimSuffix ".yaml" .f }} {{ trimPrefix "v" .v }}', { f: 'a.yaml', v: 'v1.2' }, 'a 1.2'],
    ['{{ replace "-" "_" .s }}', { s: 'a-b-c' }, 'a_b_c'],
    ['{{ if hasPrefix "cap." .p }}yes{{ end }}{{ if contains "x" .p }}x{{ end }}', { p: 'cap.y' }, 'yes'],
    ['{{ join "," (list "a" "b" 3) }}', {}, 'a,b,3'],
    ['{{ $d := dict "k" "v" "n" 2 }}{{ get $d "k" }}{{ if hasKey $d "n" }}+n{{ end }}', {}, 'v+n'],
    ['{{ keys .m | join "," }}', { m: { b: 1, a: 2 } }, 'a,b'],
    ['{{ if empty .x }}empty{{ end }}', { x: [] }, 'empty'],
    ['{{ b64enc "héllo" }}|{{ b64dec "aMOpbGxv" }}', {}, 'aMOpbGxv|héllo'],
  ];
  for (const [src, data, want] of cases) test(src, () => assert.equal(render(src, data), want));

  test('a wrong call is an error naming the function', () => {
    const c = compileTemplate('{{ nindent "x" .s }}', { functions: SPRIG_FUNCTIONS });
    assert.ok(c.ok);
    const r = renderTemplate(c.value, { s: 'a' });
    assert.ok(!r.ok);
    assert.match(r.error.message, /error calling nindent: nindent needs a count from 0 to 10000, got x/);
    const compiled = compileTemplate('{{ required "the name is required" .name }}', { functions: SPRIG_FUNCTIONS });
    assert.ok(compiled.ok);
    const req = renderTemplate(compiled.value, {});
    assert.ok(!req.ok);
    assert.match(req.error.message, /the name is required/);
  });

  test('without the dialect (Aptomi) they stay undefined', () => {
    const c = compileTemplate('{{ .m | toYaml }}');
    assert.ok(!c.ok);
    assert.match(c.error.message, /function "toYaml" not defined/);
  });

  test('the output limit holds for what they build', () => {
    const c = compileTemplate('{{ indent 10000 .s }}', { functions: SPRIG_FUNCTIONS, limits: { maxOutputLength: 1000 } });
    assert.ok(c.ok);
    const r = renderTemplate(c.value, { s: 'x' }, { limits: { maxOutputLength: 1000 } });
    assert.ok(!r.ok);
  });
});
