import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compileTemplate,
  compileTemplateCached,
  renderParamTree,
  renderTemplate,
  type CompiledTemplate,
  type TemplateCache,
} from './index';
import type { LangError } from '../result';
import { HOSTILE_TEMPLATES } from '../../../testing/hostile-engine';

type Outcome = string | { error: LangError['code'] };

function render(src: string, data: unknown): Outcome {
  const c = compileTemplate(src);
  if (!c.ok) return { error: c.error.code };
  const r = renderTemplate(c.value, data);
  return r.ok ? r.value : { error: r.error.code };
}

function check(table: [string, Outcome][], data: unknown): void {
  for (const [src, want] of table) assert.deepEqual(render(src, data), want, src);
}

const PARSE = { error: 'template_parse_error' } as const;
const EXEC = { error: 'template_exec_error' } as const;
const NO_VALUE = { error: 'template_no_value' } as const;
const LIMIT = { error: 'template_limit' } as const;

function compiled(src: string): CompiledTemplate {
  const c = compileTemplate(src);
  assert.ok(c.ok, c.ok ? '' : c.error.message);
  return c.value;
}

test("Aptomi's template table behaves the same", () => {
  const data = {
    Labels: { tagname: 'tagvalue' },
    User: { Labels: { team: 'platform_services' } },
  };
  check(
    [
      ['test-{{.User.Labels.team}}-{{.Labels.tagname}}', 'test-platform_services-tagvalue'],
      ['val-{{ default "abc" .Labels.tagname }}', 'val-tagvalue'],
      ['val-{{ default "abc" .Labels.missinglabel }}', 'val-abc'],
      ['val-{{ default .Labels.tagname }}', 'val-tagvalue'],
      ['val-{{ default .Labels.missinglabel }}', 'val-'],
      ['test-{{.User.MissingField}}-{{.MissingObject}}', NO_VALUE],
      ['test-{{.User.Labels.missinglabel}}', NO_VALUE],
      ['{{ default }}', NO_VALUE],
      ['{{ default "a" "b" "c" }}', NO_VALUE],
      ['{{ bs }}', PARSE],
      ['{{ index a a a a a }}', PARSE],
      ['{{ hello', PARSE],
    ],
    data,
  );
});

test('discovery templates from the Aptomi examples', () => {
  const data = {
    Labels: { message_stream: 'realtime', appKey: 'k' },
    User: { Name: 'Alice' },
    Target: { Namespace: 'east' },
    Discovery: {
      Instance: 'a-tn3tk8irlek3m',
      InstanceId: '1184152539',
      Bundle: { Instance: 'a-x', InstanceId: '42' },
      analytics_pipeline: { kafka: { kafka: { url: 'kafka-a-1-0.kafka-a-1.east:9092' } } },
    },
  };
  check(
    [
      [
        'kafka-{{ .Discovery.Instance }}-0.kafka-{{ .Discovery.Instance }}.{{ .Target.Namespace }}:9092',
        'kafka-a-tn3tk8irlek3m-0.kafka-a-tn3tk8irlek3m.east:9092',
      ],
      ['{{ if eq .Labels.message_stream "realtime" }}tweepub{{ else }}tweepub-fake{{ end }}', 'tweepub'],
      ['{{ default .Labels.appKey }}|{{ default .Labels.appSecret }}', 'k|'],
      ['{{ .Discovery.analytics_pipeline.kafka.kafka.url }}', 'kafka-a-1-0.kafka-a-1.east:9092'],
      ['/twitter-{{ .Discovery.Bundle.InstanceId }}/results', '/twitter-42/results'],
      ['Twitter Stats {{ .User.Name }} ({{ .Discovery.Instance }})', 'Twitter Stats Alice (a-tn3tk8irlek3m)'],
      // A component reading discovery that is not there yet renders <no value>.
      ['{{ .Discovery.zookeeper.zookeeper.url }}', NO_VALUE],
    ],
    data,
  );
  check(
    [['{{ if eq .Labels.message_stream "realtime" }}tweepub{{ else }}tweepub-fake{{ end }}', 'tweepub-fake']],
    { Labels: { message_stream: 'dev' } },
  );
});

test('text, trimming, comments, literals', () => {
  check(
    [
      ['plain text', 'plain text'],
      ['', ''],
      ['a  {{- "b" -}}  c', 'abc'],
      ['a\n  {{- "b" }}\n', 'ab\n'],
      ['{{-3}}', '-3'], // no space after the dash: a negative number
      ['x{{/* a comment */}}y', 'xy'],
      ['x {{- /* trimmed comment */ -}} y', 'xy'],
      ['{{ "tab\\there" }}|{{ `raw\\n` }}', 'tab\there|raw\\n'],
      ['{{ "\\u00e9\\x41\\101" }}', 'éAA'],
      ["{{ 'a' }} {{ 1.5 }} {{ 1e3 }} {{ 0x1F }} {{ 0o17 }} {{ 017 }} {{ 1_000 }} {{ true }}", '97 1.5 1000 31 15 15 1000 true'],
      ['{{ "}}" }}', '}}'],
      ['{{\n  "multi-line action"\n}}', 'multi-line action'],
    ],
    {},
  );
});

test('fields, variables and pipelines', () => {
  const data = { a: { b: { c: 'deep' } }, list: ['x', 'y'], s: 'str', n: 5, nil: null };
  check(
    [
      ['{{ .a.b.c }}', 'deep'],
      ['{{ $.a.b.c }}', 'deep'],
      ['{{ (.a.b).c }}', 'deep'],
      ['{{ $x := .a.b }}{{ $x.c }}', 'deep'],
      ['{{ $x := 1 }}{{ $x = 2 }}{{ $x }}', '2'],
      ['{{ with $x := .a }}{{ $x.b.c }}{{ end }}', 'deep'],
      ['{{ .s | printf "%s!" }}', 'str!'],
      ['{{ .n | printf "%d-%d" 1 }}', '1-5'],
      ['{{ "a" | printf "%s%s" "b" | printf "[%s]" }}', '[ba]'],
      ['{{ .list }} {{ .a }}', '[x y] map[b:map[c:deep]]'],
      ['{{ .missing.deeper.still }}', NO_VALUE],
      ['{{ .nil }}', NO_VALUE], // Go prints <no value> for a nil map entry too
      ['{{ .nil.x }}', EXEC], // nil pointer evaluating interface {}.x
      ['{{ .s.x }}', EXEC], // can't evaluate field x in type string
      ['{{ .a "arg" }}', EXEC], // a is not a method but has arguments
      ['{{ "x" | .s }}', EXEC],
      ['{{ 1 2 }}', EXEC], // can't give argument to non-function
      ['{{ nil }}', EXEC],
      ['{{ $undefined }}', PARSE],
      ['{{ $y = 1 }}', PARSE],
      ['{{ "a" | "b" }}', PARSE], // non executable command in pipeline stage 2
      ['{{ .s | }}', PARSE],
      ['{{ "a".x }}', PARSE],
      ['{{ .s,.n }}', PARSE],
    ],
    data,
  );
});

test('if / else if / else, with, and truthiness', () => {
  const data = { t: true, f: false, zero: 0, one: 1, empty: '', s: 'x', list: [], full: [1], map: {}, obj: { k: 1 } };
  check(
    [
      ['{{ if .t }}yes{{ end }}', 'yes'],
      ['{{ if .f }}yes{{ else }}no{{ end }}', 'no'],
      ['{{ if .f }}1{{ else if .zero }}2{{ else if .s }}3{{ else }}4{{ end }}', '3'],
      ['{{ if .missing }}yes{{ else }}no{{ end }}', 'no'],
      ['{{ if .empty }}a{{ end }}{{ if .list }}b{{ end }}{{ if .map }}c{{ end }}{{ if .zero }}d{{ end }}', ''],
      ['{{ if .one }}a{{ end }}{{ if .full }}b{{ end }}{{ if .obj }}c{{ end }}', 'abc'],
      ['{{ with .s }}[{{ . }}]{{ end }}', '[x]'],
      ['{{ with .empty }}x{{ else }}empty{{ end }}', 'empty'],
      ['{{ with .missing }}x{{ else with .obj }}{{ .k }}{{ end }}', '1'],
      ['{{ if .t }}{{ $v := "in" }}{{ $v }}{{ end }}', 'in'],
      ['{{ if .t }}{{ $v := "in" }}{{ end }}{{ $v }}', PARSE], // scoped to the if
      ['{{ if .t }}unterminated', PARSE],
      ['{{ end }}', PARSE],
      ['{{ else }}', PARSE],
      ['{{ if .t }}a{{ else }}b{{ else }}c{{ end }}', PARSE],
      ['{{ range .full }}{{ else if .t }}{{ end }}', PARSE],
      ['{{ if }}{{ end }}', PARSE],
    ],
    data,
  );
});

test('range over slices, maps (sorted keys) and integers', () => {
  const data = { list: ['a', 'b', 'c'], m: { zeta: 1, alpha: 2, mid: 3 }, empty: [], s: 'str', n: 3 };
  check(
    [
      ['{{ range .list }}{{ . }}{{ end }}', 'abc'],
      ['{{ range $i, $v := .list }}{{ $i }}={{ $v }};{{ end }}', '0=a;1=b;2=c;'],
      ['{{ range $v := .list }}<{{ $v }}>{{ end }}', '<a><b><c>'],
      ['{{ range $k, $v := .m }}{{ $k }}={{ $v }} {{ end }}', 'alpha=2 mid=3 zeta=1 '],
      ['{{ range .m }}{{ . }}{{ end }}', '231'],
      ['{{ range .empty }}x{{ else }}none{{ end }}', 'none'],
      ['{{ range .missing }}x{{ else }}none{{ end }}', 'none'],
      ['{{ range .n }}{{ . }}{{ end }}', '012'],
      ['{{ range $i, $v := .list }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ $v }}{{ end }}', 'ac'],
      ['{{ range $i, $v := .list }}{{ if eq $i 1 }}{{ break }}{{ end }}{{ $v }}{{ end }}', 'a'],
      ['{{ range .list }}{{ $.s }}{{ end }}', 'strstrstr'],
      ['{{ range .s }}x{{ end }}', EXEC], // range can't iterate over str
      ['{{ break }}', PARSE],
      ['{{ range $a, $b, $c := .list }}{{ end }}', PARSE],
      ['{{ $a, $b := .list }}', PARSE],
    ],
    data,
  );
});

test('builtin functions follow Go semantics', () => {
  const data = { n: 5, s: 'héllo', list: ['a', 'b'], m: { k: 'v' }, t: true, f: false };
  check(
    [
      ['{{ eq .n 5 }} {{ eq .s "x" "héllo" }} {{ ne .n 4 }}', 'true true true'],
      ['{{ eq .missing "x" }} {{ ne .missing "x" }}', 'false true'], // nil compares unequal
      ['{{ eq .s 1 }}', EXEC], // incompatible types for comparison
      ['{{ eq .list .list }}', EXEC], // non-comparable types
      ['{{ eq .n }}', EXEC], // missing argument for comparison
      ['{{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1 2 }}', 'true true true false'],
      ['{{ lt .t .f }}', EXEC], // bools are not ordered
      ['{{ lt .missing 1 }}', EXEC],
      ['{{ and 1 0 2 }} {{ and 1 2 }} {{ or 0 "" "z" }} {{ or 0 "" }}', '0 2 z '],
      ['{{ and .f (index .list 99) }}', 'false'], // and short-circuits
      ['{{ not .f }} {{ not "x" }}', 'true false'],
      ['{{ not }}', EXEC], // wrong number of args
      ['{{ len .s }} {{ len .list }} {{ len .m }}', '6 2 1'], // len counts UTF-8 bytes
      ['{{ len .n }}', EXEC],
      ['{{ len .missing }}', EXEC],
      ['{{ index .list 1 }} {{ index .m "k" }} {{ index "abc" 1 }}', 'b v 98'],
      ['{{ index .list 5 }}', EXEC], // index out of range
      ['{{ index .m "absent" }}', NO_VALUE],
      ['{{ index .missing 0 }}', EXEC], // index of untyped nil
      ['{{ print "a" 1 2 "b" }}|{{ println "x" 1 }}', 'a1 2b|x 1\n'],
      ['{{ printf "%s=%05.1f|%-3d|%q|%v|%x" "pi" 3.14159 7 "q" .list 255 }}', 'pi=003.1|7  |"q"|[a b]|ff'],
      ['{{ printf "%d" "str" }}', '%!d(string=str)'],
      ['{{ printf "%s" .missing }}', '%!s(<nil>)'],
      ['{{ printf 5 }}', EXEC],
      ['{{ default "d" "" }} {{ default "d" .f }} {{ default "d" 0 }} {{ default "d" .list }}', 'd d 0 [a b]'],
      ['{{ .missing | default "piped" }}', 'piped'],
      ['{{ upper .s }}', PARSE], // no sprig
      ['{{ html .s }}', PARSE],
    ],
    data,
  );
});

test('errors carry the position of the failing action', () => {
  const c = compileTemplate('line one\n  {{ .a }} {{ lt 1 "x" }}');
  assert.ok(c.ok);
  const r = renderTemplate(c.value, { a: 1 });
  assert.ok(!r.ok);
  assert.equal(r.error.code, 'template_exec_error');
  assert.equal(r.error.line, 2);
  assert.equal(r.error.column, 15);
  assert.match(r.error.message, /executing at <lt>: error calling lt: incompatible types for comparison/);

  const p = compileTemplate('ok\n{{ if .x }}\n{{ upper . }}\n{{ end }}');
  assert.ok(!p.ok);
  assert.deepEqual([p.error.code, p.error.line, p.error.column], ['template_parse_error', 3, 4]);
  assert.match(p.error.message, /function "upper" not defined/);
});

test('<no value> in the output is an error naming the template and the action', () => {
  const r = renderTemplate(compiled('kafka-{{ .Discovery.Instance }}'), { Discovery: {} }, { name: 'kafka url' });
  assert.ok(!r.ok);
  assert.equal(r.error.code, 'template_no_value');
  assert.equal(r.error.column, 10); // the pipeline `.Discovery.Instance`
  assert.match(r.error.message, /^template "kafka url" rendered "<no value>": <\.Discovery\.Instance> has no value$/);

  // Aptomi's check is on the output text, so a value containing it fails too.
  const literal = renderTemplate(compiled('{{ .x }}'), { x: 'a <no value> b' });
  assert.ok(!literal.ok);
  assert.equal(literal.error.code, 'template_no_value');
});

test('define, template and block are rejected', () => {
  for (const src of ['{{ define "x" }}{{ end }}', '{{ template "x" }}', '{{ block "x" . }}{{ end }}']) {
    assert.deepEqual(render(src, {}), PARSE, src);
  }
});

test('renderParamTree renders only string leaves and reports the failing path', () => {
  const data = { Discovery: { Instance: 'a-1' }, Labels: { replicas: '3' } };
  const tree = {
    chartName: 'kafka-{{ .Discovery.Instance }}',
    replicas: 5,
    enabled: true,
    nothing: null,
    nested: { list: ['{{ .Labels.replicas }}', 7] },
  };
  const r = renderParamTree(tree, data);
  assert.deepEqual(r, {
    ok: true,
    value: { chartName: 'kafka-a-1', replicas: 5, enabled: true, nothing: null, nested: { list: ['3', 7] } },
  });

  const bad = renderParamTree({ kafka: { addresses: { zookeeper: 'ok', kafka: '{{ .Discovery.kafka.url }}' } } }, data);
  assert.ok(!bad.ok);
  assert.equal(bad.error.code, 'template_no_value');
  assert.equal(bad.error.path, 'kafka.addresses.kafka');
  assert.match(bad.error.message, /^kafka\.addresses\.kafka: template/);

  const badList = renderParamTree({ hosts: ['a', 'b', '{{ upper . }}'] }, data);
  assert.ok(!badList.ok);
  assert.equal(badList.error.code, 'template_parse_error');
  assert.equal(badList.error.path, 'hosts[2]');
});

test('compiled templates are cached by source, errors included', () => {
  const cache: TemplateCache & { size: number } = new Map();
  const tree = { a: '{{ .x }}', b: '{{ .x }}', c: ['{{ .x }}'], d: '{{ bad' };
  renderParamTree(tree, { x: 1 }, cache);
  assert.equal(cache.size, 2);
  const first = compileTemplateCached('{{ .x }}', cache);
  assert.equal(compileTemplateCached('{{ .x }}', cache), first);
});

test('hostile templates are stopped with template_limit', () => {
  // How fast each is stopped is the `limits` benchmark's figure (limits.hostile_template.ms), not an assertion here.
  for (const t of HOSTILE_TEMPLATES) assert.deepEqual(render(t.source, t.data()), LIMIT, t.what);
  // Moderate data is fine.
  assert.equal(render('{{ range . }}{{ . }}{{ end }}', [1, 2, 3]), '123');
});

test('cyclic data (possible through YAML aliases) fails instead of hanging', () => {
  const cyclic: Record<string, unknown> = { name: 'x' };
  cyclic.self = cyclic;
  assert.deepEqual(render('{{ .self.self.self.name }}', cyclic), 'x');
  assert.deepEqual(render('{{ . }}', cyclic), LIMIT);
  assert.deepEqual(render('{{ printf "%v" . }}', cyclic), LIMIT);

  const tree: Record<string, unknown> = { a: '{{ .name }}' };
  tree.loop = tree;
  const r = renderParamTree(tree, cyclic);
  assert.ok(!r.ok);
  assert.equal(r.error.code, 'template_limit');
  assert.match(r.error.path ?? '', /^loop\.loop\./);
});
