/**
 * Hostile input at scale, property-based (fast-check): the YAML loader and
 * every language a policy can hold — Aptomi expressions (govaluate) and Go
 * templates, Axebow selectors, Landscaper's spiff, DM's Jinja — fed text
 * built from their own tokens and from mutated valid sources, and DM's Jinja
 * also from pieces that build large values or loop. Whatever comes in:
 * nothing throws, nothing runs past its limits, and a refusal is data with a
 * message (and, for syntax errors, a position). DM's Python templates meet
 * their hostile cases in server/dm-python/sandbox.test.ts.
 *
 * `npm test` tries a thousand inputs per language; `npm run
 * test:reliability` (KEELSON_FUZZ_RUNS) tries more and prints the counts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { expand } from '../engine/dm';
import { compileExpr, compileTemplate, evalExpr, renderTemplate } from '../engine/lang';
import { compileSelector, evaluateSelector } from '../engine/lang/selector';
import { evaluateSpiff, evaluateSpiffExpression } from '../engine/lang/spiff';
import { loadObjects } from '../engine/model/validate';
import { plugTemplateSandbox } from '../dm-python';

// DM's Jinja and Python templates render in the sandbox, as on every server thread that expands them.
plugTemplateSandbox();

const RUNS = Number(process.env.KEELSON_FUZZ_RUNS ?? 1000);
const tried: Record<string, { inputs: number; refused: number }> = {};

/**
 * Runs `fn`, which must not throw; counts refusals. That it ends is the budgets' work (each
 * language's steps, sizes and deadline): a hang fails the suite's own time limit, and no test
 * here times a call, so a loaded machine fails nothing.
 */
function survive<T>(language: string, fn: () => T, refused: (r: T) => boolean): T {
  const r = fn();
  const c = (tried[language] ??= { inputs: 0, refused: 0 });
  c.inputs++;
  if (refused(r)) c.refused++;
  return r;
}

/** Text from a language's own pieces, in any order: most of it nearly valid, all of it hostile. */
const tokens = (pieces: string[], maxLength = 40) => fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 4 })), { maxLength }).map((a) => a.join(''));

/** A valid source with a few characters inserted, deleted or replaced. */
const mutated = (source: string) =>
  fc.array(fc.tuple(fc.nat({ max: source.length }), fc.nat({ max: 3 }), fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 4 }).map((edits) => {
    let s = source;
    for (const [at, del, ins] of edits) {
      const i = Math.min(at, s.length);
      s = s.slice(0, i) + ins + s.slice(i + del);
    }
    return s;
  });

const VALID_POLICY = readFileSync(join(process.cwd(), 'corpus/aptomi/examples/twitter-analytics/policy/twitter_stats/twitter_stats.yaml'), 'utf8');

describe('hostile input, property-based', () => {
  test('the YAML loader: never throws; syntax errors carry a line and column; every diagnostic has a message', () => {
    const yamlish = tokens(['kind: ', 'claim', 'bundle', 'service', '\n', '  ', '- ', '{', '}', '[', ']', ': ', '&a ', '*a', '<<: *a', '!!str ', '!!binary ', '"', "'", '|', '>', '#', 'metadata:', '  name: x', '  namespace: main', '---\n', '...\n', '\t', '%YAML 1.1\n', '? ', 'user: alice', 'labels: {a: b}', '\u0000', '\ufeff'], 60);
    fc.assert(
      fc.property(fc.oneof(yamlish, mutated(VALID_POLICY)), (text) => {
        const r = survive('yaml loader', () => loadObjects(text), (x) => x.diagnostics.some((d) => d.severity === 'error'));
        for (const d of r.diagnostics) {
          assert.ok(d.message.length > 0, JSON.stringify(d));
          if (d.code === 'yaml_syntax') assert.ok((d.line ?? 0) >= 1 && (d.column ?? 0) >= 1, JSON.stringify(d));
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('Aptomi expressions (govaluate): compile and evaluate never throw; parse errors are data', () => {
    const exprish = tokens(['a', 'b', 'labels', '.', '==', '!=', '=~', '!~', '&&', '||', '!', '(', ')', '[', ']', "'x'", '"y"', '1', '2.5', '-', '+', '*', '/', '%', '**', '<', '>=', 'in', ',', 'true', 'false', 'nil', '?', ':', '??', '\\', ' ', "'(a+)+$'"]);
    fc.assert(
      fc.property(fc.oneof(exprish, mutated("labels.tier == 'gold' && (a =~ '^x+$' || b in ('p', 'q')) && !(c > 2)")), fc.dictionary(fc.constantFrom('a', 'b', 'c', 'labels'), fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.boolean())), (src, params) => {
        const compiled = survive('expressions', () => compileExpr(src), (x) => !x.ok);
        if (!compiled.ok) return void assert.ok(compiled.error.message.length > 0);
        const r = survive('expressions', () => evalExpr(compiled.value, params), (x) => !x.ok);
        if (!r.ok) assert.ok(r.error.message.length > 0);
      }),
      { numRuns: RUNS },
    );
  });

  test('Go templates: compile and render never throw; errors name a line', () => {
    const tmplish = tokens(['{{', '}}', '{{-', '-}}', '.Labels', '.Discovery', '.', 'range', 'end', 'if', 'else', 'with', 'define "t"', 'template "t" .', 'printf "%*d" 99999999 1', 'repeat 1000000 "x"', '$x := ', '$x', '|', 'index', 'len', 'html', 'js', 'toJson', '(', ')', '"s"', '1', 'nil', '\n', 'text ', 'block "b" .']);
    fc.assert(
      fc.property(fc.oneof(tmplish, mutated('{{- range $k, $v := .Labels }}{{ $k }}={{ printf "%q" $v | upper }}{{ if eq $k "a" }},{{ end }}{{ end -}}')), (src) => {
        const compiled = survive('go templates', () => compileTemplate(src), (x) => !x.ok);
        if (!compiled.ok) return void assert.ok(compiled.error.message.length > 0 && (compiled.error.line === undefined || compiled.error.line >= 1));
        const r = survive('go templates', () => renderTemplate(compiled.value, { Labels: { a: 'b', n: '3' }, Discovery: {} }), (x) => !x.ok);
        if (!r.ok) assert.ok(r.error.message.length > 0);
      }),
      { numRuns: RUNS },
    );
  });

  test('Axebow selectors: any JSON program compiles or is refused, and runs without throwing', () => {
    const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('$.service.meta', '$.tenant', 'and', 'or', 'not', 'eq', 'in', 'regex', 'gt', '(a+)+$', ''),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.constantFrom('and', 'or', 'not', 'eq', 'ne', 'in', 'regex', 'gt', 'lt', 'exists', 'path', 'value', 'all', 'any'), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(json, (program) => {
        const compiled = survive('selectors', () => compileSelector(program), (x) => !(x as { ok?: boolean }).ok);
        survive('selectors', () => evaluateSelector(program, { service: { meta: { tier: 'gold' } }, tenant: 'acme' } as never, false), () => false);
        assert.ok(compiled !== undefined);
      }),
      { numRuns: RUNS },
    );
  });

  test('Landscaper spiff: expressions and documents evaluate or are refused with where; nothing throws', () => {
    const spiffish = tokens(['(( ', ' ))', 'imports.', 'a', 'b', '.', '[', ']', '0', '"s"', '+', '-', '*', '/', '||', '&&', '!', '==', 'join(', 'split(', 'sum[', '|x,y|', '->', 'x', 'y', ')', ',', 'map[', 'lambda', 'exec(', '&temporary', '~', 'merge', 'stub(']);
    fc.assert(
      fc.property(fc.oneof(spiffish, mutated('join(",", map[imports.a|x|->x * 2]) || imports.b')), (src) => {
        const r = survive('spiff', () => evaluateSpiffExpression(src, { imports: { a: [1, 2, 3], b: 'x' } }), (x) => !x.ok);
        if (!r.ok) assert.ok(r.error.message.length > 0);
        const doc = survive('spiff', () => evaluateSpiff({ v: `((${src}))`, list: [`((${src}))`] }, { imports: { a: [1, 2], b: 'x' } }), (x) => !x.ok);
        if (!doc.ok) assert.ok(doc.error.message.length > 0);
      }),
      { numRuns: RUNS },
    );
  });

  test('DM Jinja templates: expansion never throws; a refusal is an ExpansionError naming the resource', () => {
    const jinjaish = tokens(['{{ ', ' }}', '{% ', ' %}', 'for x in range(10)', 'endfor', 'if ', 'endif', 'set y = ', 'properties', 'env', 'imports', "['name']", '.', '|', 'join', 'upper', '(', ')', '[', ']', '"s"', '1', '*', '9999999', 'range.constructor', '__class__', 'resources:\n', '- name: a\n', '  type: Service\n', 'macro m()', 'endmacro', 'm()', "import 'self.jinja' as s", '\n']);
    fc.assert(
      fc.property(fc.oneof(jinjaish, mutated("resources:\n{% for i in range(properties['n']) %}\n- name: {{ env['name'] }}-{{ i }}\n  type: Service\n  properties: {port: {{ 80 + i }}}\n{% endfor %}\n")), (src) => {
        const r = survive(
          'jinja',
          () => expand({ config: 'resources:\n- {name: t, type: t.jinja, properties: {n: 2}}\n', imports: { 't.jinja': src, 'self.jinja': src } }, { env: { deployment: 'd', project: 'p' } }),
          (x) => x.errors.length > 0,
        );
        for (const e of r.errors) assert.match(e.message, /^ExpansionError: /);
      }),
      { numRuns: RUNS },
    );
  });

  test('DM Jinja templates built to grow or to loop: each ends as a per-object error, a budget one naming the template and what ran out', () => {
    // Pieces that build large values or loop, joined at random after a seed string: what a user with no right to wait on the server sends.
    const growish = tokens([
      "{% set s = s ~ s %}", "{% set s = s + s %}", "{% set s = [s, s] %}", "{% set s = s * 1000 %}", "{% set l = l + l %}", "{% set l = l * 1000 %}",
      '{% for i in range(100000) %}', '{% for x in l %}', '{% endfor %}', '{{ s }}', '{{ l }}', '{{ s|tojson }}', '{{ l|join(s) }}',
      "{{ s|center(1000000000) }}", "{{ s.ljust(1000000000) }}", "{{ s|indent(1000000000) }}", "{{ s|replace('', s) }}", "{{ s.replace('x', s) }}",
      "{{ s.split('') }}", "{{ s|list }}", '{{ l.append(l) }}', '{{ l.extend(l) }}', "{{ '{:>999999999}'.format(s) }}", "{{ '%999999999s'|format(s) }}",
      '{{ l|batch(999999999, 1) }}', '{{ l|slice(999999999) }}', '{{ l|sort }}', "{% if 'zz' in s %}{% endif %}",
      '{% macro f(n) %}{{ f(n) }}{{ f(n) }}{% endmacro %}', '{{ f(1) }}', "{% include 't.jinja' %}{% include 't.jinja' %}",
    ], 12);
    const budgets = new Set<string>();
    fc.assert(
      fc.property(growish, (body) => {
        const src = `resources: []\n{% set s = 'xxxxxxxxxx' %}{% set l = range(1000)|list %}${body}`;
        const r = survive('jinja budgets', () => expand({ config: 'resources:\n- {name: t, type: t.jinja}\n', imports: { 't.jinja': src } }), (x) => x.errors.length > 0);
        for (const e of r.errors) {
          assert.match(e.message, /^ExpansionError: /);
          if (e.budget) {
            budgets.add(e.budget);
            assert.equal(e.code, 'limit');
            // Which budget a template meets first depends on the machine's speed (beside stress-ng a sort of 1,000,000 items meets the
            // sandbox's wall-clock limit before its step budget): any of them, named with the template, is the right answer.
            assert.match(e.message, /Template 't\.jinja' (ran out of (steps|time|memory)|ran over its time limit of [\d.]+ s|would build .+ over the output limit|range\(\) of \d+ items is over the limit|nests includes, imports or macro calls too deeply|used more than \d+ MB of memory)/);
          }
        }
      }),
      { numRuns: Math.max(50, Math.floor(RUNS / 5)) },
    );
    assert.ok(budgets.has('output'), `budgets seen: ${[...budgets].join(', ')}`);
  });

  test('figures', () => {
    let inputs = 0;
    let refused = 0;
    for (const [language, c] of Object.entries(tried)) {
      console.log(`figure hostile.${language.replace(/ /g, '_')} ${c.inputs} tried, ${c.refused} refused, 0 crashed`);
      inputs += c.inputs;
      refused += c.refused;
    }
    console.log(`figure hostile.total ${inputs} tried, ${refused} refused, 0 crashed, 0 hung`);
    assert.ok(inputs >= RUNS * 6);
  });
});
