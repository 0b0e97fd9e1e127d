/**
 * Golden tests for the DM expansion engine, driven by the corpus's case files
 * as data (corpus/dm/cases/*.yaml and the expandybird fixtures they name):
 * every case, Jinja or Python (run in the sandbox, server/dm-python), must
 * give DM's output or DM's error. Then the registry templates and examples,
 * the Python runner seam, and the limits.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createPythonSandbox } from '../../dm-python';
import { parse } from 'yaml';
import {
  collectReferences,
  expand,
  expandDeployment,
  usePythonRunner,
  useTemplateClock,
  useJinjaRenderer,
  extractWithJsonPath,
  findReferences,
  hasReference,
  normalizeImports,
  PYTHON_UNSUPPORTED,
  resolveWithinConfiguration,
  substituteReferences,
  validateProperties,
  type ExpandOptions,
  type ExpandResult,
  type Json,
  type JsonObject,
} from './index';

const CORPUS = join(process.cwd(), 'corpus/dm');
// One interpreter for the whole file: the cases are one tenant's, and Pyodide takes seconds to start.
// No case here is about the sandbox's own wall clock (the host's deadlines are tested through
// useTemplateClock and `deadline`): with it far away, a loaded machine cannot turn an output or
// steps refusal into a time one (it did beside stress-ng --cpu 4, at the default 10 s).
const sandbox = createPythonSandbox({ isolationKey: () => 'dm-golden', runMs: 600_000 });
// Jinja templates render with Jinja2 in that sandbox (the engine runs no interpreter of its own).
useJinjaRenderer(sandbox.jinja);
after(() => sandbox.close());
const read = (file: string) => readFileSync(file, 'utf8');
const readYaml = (file: string): any => parse(read(file));

/** DM's messages print Python 2 reprs (`u'x'`); ours are Python 3's. */
const py3 = (s: string) => s.replace(/\bu'/g, "'");

function errorText(r: ExpandResult): string {
  return r.errors.map((e) => e.message).join('\n');
}

function output(r: ExpandResult): unknown {
  return { config: r.config, layout: r.layout };
}

// ------------------------------------------------------------ expansion cases

interface ExpansionCase {
  id: string;
  src?: string;
  dir?: string;
  config?: string;
  config_inline?: string;
  imports?: Record<string, string>;
  env?: Record<string, string>;
  validate_schema?: boolean;
  outputs?: boolean;
  expect_file?: string;
  expect_output_inline?: string;
  expect_error?: string;
  expect_error_contains?: string[];
  expect?: string;
}

const expansionFile = readYaml(join(CORPUS, 'cases/expandybird-expansion-cases.yaml'));
const goDir: string = expansionFile.go_dir;
const expansionCases: ExpansionCase[] = [
  ...expansionFile.cases,
  ...expansionFile.go_cases.map((c: ExpansionCase) => ({ ...c, dir: goDir, src: 'go' })),
];

function loadCase(c: ExpansionCase): { config: string; imports: Record<string, { content: string; path: string }> } {
  const dir = join(CORPUS, c.dir ?? '.');
  const config = c.config_inline ?? read(join(dir, c.config!));
  const imports: Record<string, { content: string; path: string }> = {};
  for (const [name, file] of Object.entries(c.imports ?? {})) imports[name] = { content: read(join(dir, file)), path: file };
  return { config, imports };
}

/** DM's own switches for a case: schemas only where the case validates, `int` rejected, duplicate primitives allowed. */
function dmOptions(c: ExpansionCase): ExpandOptions {
  const env = c.src === 'go' ? { deployment: basename(c.config!, '.yaml'), project: basename(c.config!, '.yaml') } : c.env;
  return {
    ...(env ? { env } : {}),
    validateSchema: c.validate_schema ?? false,
    outputs: c.outputs ?? false,
    intAlias: false,
    uniquePrimitiveNames: false,
  };
}

const isPython = (c: ExpansionCase) => Object.keys(c.imports ?? {}).some((n) => n.endsWith('.py'));

function checkExpectation(c: ExpansionCase, r: ExpandResult): void {
  const dir = join(CORPUS, c.dir ?? '.');
  if (c.expect_error_contains || c.expect_error) {
    assert.ok(r.errors.length > 0, `${c.id}: expected an error`);
    for (const s of c.expect_error_contains ?? []) assert.ok(errorText(r).includes(py3(s)), `${c.id}: error lacks ${JSON.stringify(s)}:\n${errorText(r)}`);
    if (c.expect_error === 'ExpansionError') assert.match(errorText(r), /^ExpansionError: /);
    return;
  }
  assert.deepEqual(r.errors, [], `${c.id}: ${errorText(r)}`);
  if (c.expect_file) assert.deepEqual(output(r), readYaml(join(dir, c.expect_file)), c.id);
  if (c.expect_output_inline !== undefined) {
    const expected = c.expect_output_inline === '' ? { config: { resources: [] }, layout: { resources: [] } } : parse(c.expect_output_inline);
    assert.deepEqual(output(r), expected, c.id);
  }
}

describe('expandybird expansion cases (Jinja)', () => {
  const jinja = expansionCases.filter((c) => !isPython(c));
  test('the corpus holds the Jinja cases', () => assert.equal(jinja.length, 33, `${jinja.length} Jinja cases`));
  for (const c of jinja) {
    test(c.id, () => {
      const r = expand(loadCase(c), dmOptions(c));
      checkExpectation(c, r);
    });
  }
});

describe('expandybird expansion cases (Python, in the sandbox)', () => {
  const python = expansionCases.filter(isPython);
  test('the corpus holds the Python cases', () => assert.equal(python.length, 19, `${python.length} Python cases`));
  for (const c of python) {
    test(c.id, () => {
      const r = expand(loadCase(c), { ...dmOptions(c), runPython: sandbox.run });
      checkExpectation(c, r);
    });
  }
});

describe('expansion: Keelson decisions', () => {
  const byId = (id: string) => expansionCases.find((c) => c.id === id)!;

  test('duplicate primitive names in the flat configuration are rejected by default', () => {
    const c = byId('parent-child-same-name-ok');
    const r = expand(loadCase(c), { ...dmOptions(c), uniquePrimitiveNames: undefined });
    assert.equal(r.errors[0]?.code, 'duplicate_name');
    assert.match(errorText(r), /Resource name 'B' is used by more than one resource/);
  });

  test('`type: int` is an alias of integer by default; the other schema errors remain', () => {
    const c = byId('schema-itself-invalid');
    const r = expand(loadCase(c), { ...dmOptions(c), intAlias: true });
    assert.doesNotMatch(errorText(r), /'int' is not valid/);
    assert.match(errorText(r), /'maximum' is a dependency of 'exclusiveMaximum'/);
  });

  test('schema errors name the template and the resource', () => {
    const c = byId('schema-missing-required');
    const r = expand(loadCase(c), dmOptions(c));
    assert.equal(r.errors[0]!.code, 'properties');
    assert.equal(r.errors[0]!.resource, 'jinja_missing_required_resource_name (jinja_missing_required.jinja)');
    assert.deepEqual(r.errors[0]!.path, [{ name: 'jinja_missing_required_resource_name', type: 'jinja_missing_required.jinja' }]);
  });

  test('with no Python runner plugged in, a Python template fails with a clear message and nothing is expanded', () => {
    const c = byId('python-basic');
    const r = expand(loadCase(c), dmOptions(c));
    assert.equal(r.errors[0]?.code, 'python_unsupported');
    assert.ok(errorText(r).includes(PYTHON_UNSUPPORTED));
    assert.deepEqual(output(r), { config: { resources: [] }, layout: { resources: [] } });
  });

  test('expandDeployment marks each expansion apart (one interpreter each in the sandbox) and keeps results of the same input', () => {
    const seen: (number | undefined)[] = [];
    usePythonRunner((_s, c) => {
      seen.push(c.expansion);
      return { ok: true, value: { resources: [] } };
    });
    try {
      const input = { config: 'resources:\n- {name: a, type: t.py}\n- {name: b, type: t.py}\n', imports: { 't.py': 'x' } };
      expandDeployment(input, { project: 'p' });
      expandDeployment({ ...input, config: 'resources:\n- {name: c, type: t.py}\n' }, { project: 'p' });
      expandDeployment(input, { project: 'p' });
    } finally {
      usePythonRunner(undefined);
    }
    assert.equal(seen.length, 3, 'the third expansion is the first one again: kept, not run');
    assert.equal(seen[0], seen[1]);
    assert.notEqual(seen[1], seen[2]);
  });

  test('a pluggable Python runner gets the context and its output is expanded', () => {
    const c = byId('python-env');
    const seen: unknown[] = [];
    const r = expand(loadCase(c), {
      ...dmOptions(c),
      runPython: (source, context) => {
        seen.push({ source: source.length > 0, env: context.env, properties: context.properties });
        return { ok: true, value: { resources: [{ name: `vm-${context.env.project}`, type: 'compute.v1.instance' }] } };
      },
    });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.config.resources, [{ name: 'vm-my-project', type: 'compute.v1.instance' }]);
    assert.deepEqual((seen[0] as { env: unknown }).env, { project: 'my-project', name: 'python_template_with_env_name', type: 'python_template_with_env.py' });
  });

  test('a Python runner error is the template exception', () => {
    const c = byId('python-basic');
    const r = expand(loadCase(c), { ...dmOptions(c), runPython: () => ({ ok: false, message: 'KeyError: image' }) });
    assert.match(errorText(r), /ExpansionError: Exception in template 'python_template.py': KeyError: image/);
  });

  test('remaining references become ordering edges; mutual ones are reported as a cycle', () => {
    const c = byId('outputs-up-down');
    const r = expand(loadCase(c), dmOptions(c));
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.references.edges.map((e) => [e.from, e.to]), [['mixer-frontend-vm', 'workflow-backend-vm'], ['workflow-backend-vm', 'mixer-frontend-vm']]);
    assert.deepEqual(r.references.cycles, [['mixer-frontend-vm', 'workflow-backend-vm', 'mixer-frontend-vm']]);
    assert.equal(r.references.order, null);
  });

  test('a malformed reference fails the expansion', () => {
    const r = expand({ config: 'resources:\n- {name: web, type: Service, properties: {db: "$(ref.db"}}\n' });
    assert.equal(r.errors[0]?.code, 'reference');
    assert.match(errorText(r), /Malformed reference/);
  });

  test('a template output that names a missing path is an error', () => {
    const r = expand(
      { config: 'resources:\n- {name: t, type: t.jinja}\n- {name: p, type: X, properties: {a: "$(ref.t.nope)"}}\n', imports: { 't.jinja': 'resources: []\noutputs:\n- {name: ip, value: 1}\n' } },
    );
    assert.match(errorText(r), /No value found/);
  });

  test('outputs: [] leaves no outputs in the layout; a template output without value is refused, the configuration\'s own keeps none', () => {
    const t = (outputs: string) => ({ 't.jinja': `resources:\n- {name: x, type: T}\n${outputs}` });
    const empty = expand({ config: 'resources:\n- {name: r, type: t.jinja}\n', imports: t('outputs: []\n') });
    assert.deepEqual(empty.errors, []);
    assert.deepEqual(empty.layout.resources[0], { name: 'r', type: 't.jinja', resources: [{ name: 'x', type: 'T' }] });
    const noValue = expand({ config: 'resources:\n- {name: r, type: t.jinja}\n', imports: t('outputs:\n- {name: o}\n') });
    assert.match(errorText(noValue), /Output 'o' has no 'value'\. Resource: r \(t\.jinja\)/);
    assert.equal(noValue.config.resources.length, 0);
    const top = expand({ config: 'resources:\n- {name: a, type: T}\noutputs:\n- {name: o}\n' });
    assert.deepEqual(top.layout.outputs, [{ name: 'o' }]);
  });

  test('an output whose name is no text is refused, saying why', () => {
    const r = expand({ config: 'resources:\n- {name: r, type: t.jinja}\n', imports: { 't.jinja': 'resources: []\noutputs:\n- {name: 123, value: v}\n' } });
    assert.match(errorText(r), /Output name 123 is not text, so no \$\(ref\.NAME\.OUTPUT\) could name it\./);
  });

  test('resources: {} is no resources, in the configuration and in a template', () => {
    assert.deepEqual(expand({ config: 'resources: {}\n' }).errors, []);
    const r = expand({ config: 'resources:\n- {name: r, type: t.jinja}\n', imports: { 't.jinja': 'resources: {}\n' } });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.layout.resources, [{ name: 'r', type: 't.jinja' }]);
  });

  test('.inf and .nan, which JSON cannot carry, are refused naming the resource and where they sit', () => {
    const r = expand(
      { config: 'resources:\n- {name: r, type: t.jinja}\n', imports: { 't.jinja': 'resources:\n- name: x\n  type: T\n  properties: {deep: {list: [1, .nan]}}\n' } },
      { resolveReferences: true },
    );
    assert.equal(r.config.resources.length, 0);
    assert.match(errorText(r), /properties\.deep\.list\[1\] is \.nan, a number JSON cannot carry .* Resource: x/);
    const d = expand({ config: 'imports: [{path: t.jinja}]\nresources:\n- {name: r, type: t.jinja}\n', imports: { 't.jinja': 'resources:\n- {name: x, type: T}\n', 't.jinja.schema': 'properties:\n  limit: {default: -.inf}\n' } });
    assert.match(errorText(d), /properties\.limit is -\.inf/);
    assert.deepEqual(expand({ config: "resources:\n- {name: r, type: T, properties: {v: '.inf'}}\n" }).errors, [], 'quoted, it is text');
  });

  test('filling references in terminates when a value is NaN (NaN is not equal to itself)', () => {
    const done = resolveWithinConfiguration([{ name: 'a', properties: { v: Number.NaN, w: [Number.NaN] } }]);
    assert.ok(Number.isNaN((done[0]!.properties as JsonObject).v));
  });

  test('expansion is deterministic', () => {
    const c = byId('schema-defaults-jinja');
    const first = expand(loadCase(c), dmOptions(c));
    for (let i = 0; i < 20; i++) assert.deepEqual(expand(loadCase(c), dmOptions(c)), first);
  });
});

// ------------------------------------------------------------ schema cases

interface SchemaCase {
  id: string;
  schema_file?: string;
  schema_inline?: string;
  schema_name?: string;
  imports_present?: string[];
  properties: unknown;
  expect_properties?: unknown;
  expect_error?: { kind: 'schema' | 'properties'; count: number; contains: string[] };
}

describe('schema validation cases', () => {
  const file = readYaml(join(CORPUS, 'cases/schema-validation-cases.yaml'));
  const dir = join(CORPUS, file.dir);
  const cases: SchemaCase[] = file.cases;
  const byId = new Map(cases.map((c) => [c.id, c]));
  const sameAs = (v: unknown, field: 'properties' | 'expect_properties'): unknown =>
    typeof v === 'string' && v.startsWith('same as ') ? byId.get(v.slice('same as '.length))![field] : v;

  for (const c of cases) {
    test(c.id, () => {
      const imports: Record<string, string> = {};
      let schemaName = c.schema_name ?? 'schema';
      if (c.schema_file) { schemaName = c.schema_file; imports[schemaName] = read(join(dir, c.schema_file)); }
      if (c.schema_inline !== undefined) imports[schemaName] = c.schema_inline;
      for (const name of c.imports_present ?? []) if (!(name in imports)) imports[name] = '';
      const properties = sameAs(c.properties, 'properties') as JsonObject | null;
      const r = validateProperties(properties, schemaName, 'template.py', normalizeImports(imports), { intAlias: false });
      if (c.expect_error) {
        assert.equal(r.ok, false, `${c.id}: expected an error`);
        if (r.ok) return;
        assert.equal(r.code, c.expect_error.kind, r.message);
        assert.equal(r.errors.length, c.expect_error.count, r.message);
        for (const s of c.expect_error.contains) assert.ok(r.message.includes(py3(s)), `${c.id}: lacks ${JSON.stringify(s)}:\n${r.message}`);
        return;
      }
      assert.ok(r.ok, r.ok ? '' : r.message);
      const expected = c.expect_properties === 'unchanged' ? properties ?? {} : sameAs(c.expect_properties, 'expect_properties');
      assert.deepEqual(r.properties, expected);
    });
  }

  test('the caller\'s properties are not mutated by defaulting', () => {
    const props = { disks: [{ name: 'a' }] } as JsonObject;
    const r = validateProperties(props, 's', 't', normalizeImports({ s: read(join(dir, 'nested_defaults.py.schema')) }));
    assert.ok(r.ok);
    assert.deepEqual(props, { disks: [{ name: 'a' }] });
  });

  test('values holding a $(ref.) are not judged (PR 167)', () => {
    const r = validateProperties({ n: '$(ref.x.y)' }, 's', 't', normalizeImports({ s: 'properties:\n  n: {type: integer}\n' }));
    assert.ok(r.ok);
  });
});

// ------------------------------------------------------------ reference cases

describe('references filled in from the configuration', () => {
  const config = (a: string, b: string) => `resources:\n- name: a\n  type: v1.ConfigMap\n  properties: {x: 1, y: ${a}}\n- name: b\n  type: v1.ConfigMap\n  properties: {x: 2, y: ${b}}\n`;

  test('a filled-in reference still orders its referrer after its referee, as DM created them', () => {
    const r = expand({ config: config('$(ref.b.x)', 'plain'), imports: {} }, { resolveReferences: true });
    assert.deepEqual(r.errors, []);
    assert.equal((r.config.resources[0]!.properties as JsonObject).y, 2);
    assert.deepEqual(r.references.edges, [], 'nothing is left for the cluster');
    assert.deepEqual(r.references.ordering, [{ from: 'a', to: 'b', path: 'x' }]);
    assert.deepEqual(r.references.order, ['b', 'a']);
  });

  test('references that form a cycle are one, even where every value could be read off the configuration', () => {
    const r = expand({ config: config('$(ref.b.x)', '$(ref.a.x)'), imports: {} }, { resolveReferences: true });
    assert.deepEqual(r.references.cycles, [['a', 'b', 'a']]);
  });
});

describe('reference cases (PR 167)', () => {
  const file = readYaml(join(CORPUS, 'cases/references-cases.yaml'));

  for (const [i, c] of (file.has_reference as { input: string; expect?: boolean; expect_error?: string }[]).entries()) {
    test(`has_reference ${i}: ${c.input}`, () => {
      const r = hasReference(c.input);
      if (c.expect_error) { assert.equal(r.ok, false); if (!r.ok) assert.match(r.message, new RegExp(c.expect_error)); }
      else assert.deepEqual(r, { ok: true, value: c.expect });
    });
  }

  for (const [i, c] of (file.matcher as { input: string; refs?: string[][]; then_error?: string }[]).entries()) {
    test(`matcher ${i}: ${c.input}`, () => {
      const r = findReferences(c.input);
      if (c.then_error) {
        // The PR yields the good references and then fails; we fail the string as a whole.
        assert.equal(r.ok, false);
        if (!r.ok) assert.match(r.message, new RegExp(c.then_error));
        if (c.refs?.length) {
          const cut = c.input.indexOf(')') + 1;
          const head = findReferences(c.input.slice(0, cut));
          assert.deepEqual(head.ok && head.value.map((x) => [x.name, x.path]), c.refs);
        }
        return;
      }
      assert.ok(r.ok);
      assert.deepEqual(r.value.map((x) => [x.name, x.path]), c.refs);
    });
  }

  test('collect_all', () => {
    const r = collectReferences(file.collect_all.input);
    assert.ok(r.ok);
    assert.deepEqual(r.value.map((x) => [x.name, x.path]), file.collect_all.expect_refs);
  });

  for (const c of file.substitute as { id: string; outputs: Record<string, Json>; input: Json; expect?: Json; expect_error_contains?: string[] }[]) {
    test(`substitute ${c.id}`, () => {
      const r = substituteReferences(c.input, new Map(Object.entries(c.outputs)));
      if (c.expect_error_contains) {
        assert.equal(r.ok, false);
        if (!r.ok) for (const s of c.expect_error_contains) assert.ok(r.message.includes(s), r.message);
        return;
      }
      assert.deepEqual(r, { ok: true, value: c.expect });
    });
  }

  test('a whole-string reference keeps the JSON type; an embedded one is text', () => {
    const r = substituteReferences({ a: '$(ref.t.n)', b: 'port $(ref.t.n)', c: 'x $(ref.t.l)' }, new Map<string, Json>([['t', { n: 80, l: [1, 2] }]]));
    assert.deepEqual(r, { ok: true, value: { a: 80, b: 'port 80', c: 'x [1,2]' } });
  });

  for (const [i, c] of (file.jsonpath_extract as { obj: Json; path: string; expect?: Json; expect_error_contains?: string[]; expect_missing?: boolean }[]).entries()) {
    test(`jsonpath ${i}: ${c.path}`, () => {
      const r = extractWithJsonPath(c.obj, 'foo', c.path);
      if (c.expect_error_contains) {
        assert.equal(r.ok, false);
        if (!r.ok) for (const s of c.expect_error_contains) assert.ok(r.message.includes(s), r.message);
      } else if (c.expect_missing) {
        assert.equal(r.ok, false);
        if (!r.ok) assert.match(r.message, /No value found/);
      } else {
        assert.deepEqual(r, { ok: true, value: c.expect });
      }
    });
  }

  test('JSONPath filters', () => {
    const obj = { items: [{ price: 5, v: 'a' }, { price: 20, v: 'b' }] };
    assert.deepEqual(extractWithJsonPath(obj, 'x', 'items[?(@.price<10)].v'), { ok: true, value: ['a'] });
  });
});

// ------------------------------------------------------------ limits and cycles

describe('limits and cycles', () => {
  test('a template that expands into itself is a cycle, reported with its path', () => {
    const r = expand({ config: 'resources:\n- {name: top, type: self.jinja}\n', imports: { 'self.jinja': 'resources:\n- name: again\n  type: self.jinja\n' } });
    assert.equal(r.errors[0]?.code, 'template_cycle');
    assert.match(errorText(r), /Template cycle: self\.jinja \(top\) -> self\.jinja \(again\)/);
  });

  test('mutually recursive templates are a cycle', () => {
    const r = expand({
      config: 'resources:\n- {name: first, type: a.jinja}\n',
      imports: { 'a.jinja': 'resources:\n- {name: second, type: b.jinja}\n', 'b.jinja': 'resources:\n- {name: third, type: a.jinja}\n' },
    });
    assert.match(errorText(r), /Template cycle: a\.jinja \(first\) -> b\.jinja \(second\) -> a\.jinja \(third\)/);
  });

  test('nesting deeper than the depth limit fails', () => {
    const imports: Record<string, string> = {};
    for (let i = 0; i < 40; i++) imports[`t${i}.jinja`] = `resources:\n- {name: n${i + 1}, type: t${i + 1}.jinja}\n`;
    const r = expand({ config: 'resources:\n- {name: n0, type: t0.jinja}\n', imports }, { limits: { depth: 10 } });
    assert.equal(r.errors[0]?.code, 'limit');
    assert.match(errorText(r), /deeper than 10 levels/);
  });

  test('too many resources fail', () => {
    const r = expand(
      { config: 'resources:\n- {name: t, type: many.jinja}\n', imports: { 'many.jinja': 'resources:\n{% for i in range(50) %}- {name: r{{ i }}, type: X}\n{% endfor %}' } },
      { limits: { resources: 20 } },
    );
    assert.match(errorText(r), /more than 20 resources/);
  });

  test('a template that includes itself fails instead of overflowing', () => {
    const r = expand({ config: 'resources:\n- {name: t, type: inc.jinja}\n', imports: { 'inc.jinja': "resources: []\n{% include 'inc.jinja' %}" } });
    assert.equal(r.errors.length, 1);
    assert.match(errorText(r), /inc\.jinja/);
  });

  test('a huge range() and oversized sources and outputs fail with a limit', () => {
    const loop = expand({ config: 'resources:\n- {name: t, type: loop.jinja}\n', imports: { 'loop.jinja': '{% for i in range(1000000000) %}x{% endfor %}' } });
    assert.match(errorText(loop), /range\(\) of 1000000000 items is over the limit/);
    const big = expand({ config: 'resources:\n- {name: t, type: big.jinja}\n', imports: { 'big.jinja': 'resources: []\n' + '#'.repeat(200) } }, { limits: { templateSource: 100 } });
    assert.equal(big.errors[0]?.code, 'limit');
    const out = expand(
      { config: 'resources:\n- {name: t, type: out.jinja}\n', imports: { 'out.jinja': 'resources: []\n{% for i in range(100) %}# {{ i }} padding padding\n{% endfor %}' } },
      { limits: { templateOutput: 500 } },
    );
    assert.equal(out.errors[0]?.code, 'limit');
  });

  test('a template that is no Jinja and no Python is unsupported', () => {
    const r = expand({ config: 'resources:\n- {name: t, type: x.sh}\n', imports: { 'x.sh': 'echo' } });
    assert.equal(r.errors[0]?.code, 'unsupported_language');
  });
});



describe('templates cannot reach the server, nor hold it', () => {
  const render = (template: string) => expand({ config: 'imports: [t.jinja]\nresources: [{name: a, type: t.jinja}]\n', imports: { 't.jinja': template } });
  test("no way from a template value to Python's internals: Jinja2's sandbox refuses every attribute that starts with _", () => {
    for (const attack of [
      `{{ ''.__class__.__mro__[1].__subclasses__() }}`,
      `{{ range.__self__.__dict__ }}`,
      `{{ cycler.__init__.__globals__['os'] }}`,
      `{{ lipsum.__globals__['os'] }}`,
      `{{ env.__class__.__base__ }}`,
      `{{ ''.format.__self__.__class__.__base__.__subclasses__() }}`,
    ]) {
      const r = render(`resources:\n- {name: x, type: Service, properties: {v: "${attack.replace(/"/g, '\\"')}"}}\n`);
      assert.equal(r.errors.length, 1, attack);
      assert.match(r.errors[0]!.message, /Exception in template 't\.jinja': (SecurityError|UndefinedError): .*(unsafe|has no attribute '_)/, attack);
    }
  });

  test('nested loops are counted in full and stop at the budget, with a clear error', () => {
    const r = render(`{% for a in range(2000) %}{% for b in range(2000) %}{% endfor %}{% endfor %}resources: []\n`);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0]!.message, /Template 't\.jinja' ran out of steps: the expansion's templates may take 1000000 calls and loop items in all \(line 1\)/);
    assert.equal(r.errors[0]!.code, 'limit');
    assert.equal(r.errors[0]!.budget, 'steps');
    assert.deepEqual(render(`{% for a in range(100) %}{% for b in range(100) %}{% endfor %}{% endfor %}resources: []\n`).errors, []);
  });
});

describe('Jinja runs under one budget, counted as it runs', () => {
  const one = (template: string, options: ExpandOptions = {}) =>
    expand({ config: 'resources:\n- {name: a, type: t.jinja}\n', imports: { 't.jinja': `resources: []\n${template}` } }, options);
  const refusal = (r: ExpandResult) => {
    assert.equal(r.errors.length, 1, JSON.stringify(r.errors));
    return r.errors[0]!;
  };

  test('what would grow past the output limit is refused before it is built, naming the template, the budget and the line', () => {
    // Each of these, built first and checked after, would hold the sandbox for seconds and its memory for gigabytes.
    for (const template of [
      "{{ ''|center(1000000000) }}",
      "{{ 'x'.center(1000000000) }}",
      "{{ 'x'.ljust(1000000000) }}",
      "{{ 'x'.rjust(1000000000, '-') }}",
      "{{ '{:>1000000000}'.format(1) }}",
      "{{ '%1000000000d'|format(1) }}",
      "{{ '%1000000000d' % 1 }}",
      "{{ 'a\\nb'|indent(1000000000) }}",
      "{{ 'a' * 1000000000 }}",
      "{{ [1] * 1000000000 }}",
      "{{ 2 ** 1000000000 }}",
      "{{ ('x' * 100000)|replace('x', 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy') }}",
      "{{ ('x' * 100000).replace('', 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy') }}",
      "{{ range(100000)|join('-' * 100) }}",
      "{{ [1]|batch(1000000000, 'x') }}",
      "{{ [1]|slice(1000000000) }}",
      "{% set l = [1] %}{% for i in range(40) %}{{ l.extend(l) }}{% endfor %}",
      // Shared references: thirty levels of [l, l] are 2^30 leaves once printed.
      `{% set l = [1] %}${'{% set l = [l, l] %}'.repeat(30)}{{ l }}`,
      `{% set l = [1] %}${'{% set l = [l, l] %}'.repeat(30)}{{ l|join(',') }}`,
      `{% set l = [1] %}${'{% set l = [l, l] %}'.repeat(30)}{{ 'x' ~ l }}`,
    ]) {
      const e = refusal(one(template));
      assert.equal(e.code, 'limit', template);
      assert.equal(e.budget, 'output', template);
      assert.match(e.message, /^ExpansionError: Template 't\.jinja' would build .+ of \d+ characters or items, over the output limit of 4194304 \(line 2\)\. Resource: a \(t\.jinja\)$/, template);
    }
    assert.match(refusal(one('{{ range(1000000) }}')).message, /range\(\) of 1000000 items is over the limit of 100000/);
  });

  test('calls, filters and loop items count as they run: a template that never builds anything large still runs out', () => {
    const small = { limits: { templateSteps: 50_000 } };
    const steps = refusal(one('{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}', small));
    assert.equal(steps.budget, 'steps');
    assert.match(steps.message, /Template 't\.jinja' ran out of steps: the expansion's templates may take 50000 calls and loop items in all \(line 2\)/);
    // A list that grows while it is looped over.
    assert.equal(refusal(one('{% set l = [1] %}{% for x in l %}{{ l.append(x) }}{% endfor %}', small)).budget, 'steps');
    // A filter in a loop over data (no range) is a step each time.
    assert.equal(refusal(one("{% set s = 'x' * 10 %}{% set l = [s] * 100000 %}{% for t in l %}{{ t|upper|lower }}{% endfor %}", small)).budget, 'steps');
    // Include recursion ends as too deep, not as a crashed sandbox.
    const deep = refusal(expand({ config: 'resources:\n- {name: a, type: t.jinja}\n', imports: { 't.jinja': "resources: []\n{% include 't.jinja' %}" } }));
    assert.equal(deep.budget, 'depth');
  });

  test("one expansion's templates share the budget: many resources cannot each spend a full one", () => {
    const config = `resources:\n${Array.from({ length: 200 }, (_, i) => `- {name: r${i}, type: loop.jinja}`).join('\n')}\n`;
    // Each render alone is far inside the budget; all of them are not.
    const r = expand({ config, imports: { 'loop.jinja': 'resources: []\n{% for i in range(1000) %}{% endfor %}' } }, { limits: { templateSteps: 50_000 } });
    const e = refusal(r);
    assert.equal(e.budget, 'steps');
    assert.match(e.message, /Template 'loop\.jinja' ran out of steps/);
    // A second expansion of the same configuration has a budget of its own.
    assert.deepEqual(expand({ config: 'resources:\n- {name: r, type: loop.jinja}\n', imports: { 'loop.jinja': 'resources: []\n{% for i in range(1000) %}{% endfor %}' } }, { limits: { templateSteps: 50_000 } }).errors, []);
  });

  test("the host's deadline stops templates as they run, and that answer is not remembered", () => {
    // One millisecond of the host's time: far less than 900,000 loop items take in any interpreter.
    const e = refusal(one('{% for a in range(1000) %}{% for b in range(900) %}{% endfor %}{% endfor %}', { deadline: { now: () => 0, at: 1, ms: 1 } }));
    assert.equal(e.budget, 'time');
    assert.match(e.message, /Template 't\.jinja' ran out of time \(line 2\)/);
    // expandDeployment keeps answers, but not one a deadline gave.
    const input = { config: 'resources:\n- {name: a, type: t.jinja}\n', imports: { 't.jinja': 'resources: []\n{% for a in range(1000) %}{% endfor %}' } };
    let ms = 0;
    assert.equal(expandDeployment(input, { deployment: 'd', project: 'p' }, { deadline: { now: () => ms++, at: -1, ms: 1 } }).errors[0]?.budget, 'time');
    assert.deepEqual(expandDeployment(input, { deployment: 'd', project: 'p' }).errors, []);
  });

  test("the host grants the clock (useTemplateClock); the sandbox's time is its own, not counted twice", () => {
    let ms = 0;
    // (A configuration no other test expands: expandDeployment remembers what expanded.)
    const input = { config: 'resources:\n- {name: a, type: t.jinja}\n', imports: { 't.jinja': 'resources: []\n{% for clock in range(1000) %}{% endfor %}' } };
    // Each reading of this clock is 200 ms later than the one before: the 100 ms are gone before the template starts.
    useTemplateClock(() => (ms += 200), 100);
    try {
      const e = refusal(expandDeployment(input, { deployment: 'd', project: 'p' }));
      assert.equal(e.budget, 'time');
      assert.match(e.message, /the expansion's templates had 100 ms/);
    } finally {
      useTemplateClock(undefined);
    }
    // A Python template that takes ten seconds of the clock leaves the Jinja template it produces all of its time.
    ms = 0;
    const r = expand(
      { config: 'resources:\n- {name: p, type: p.py}\n', imports: { 'p.py': 'def GenerateConfig(c): pass', 't.jinja': 'resources: []\n{% for a in range(10) %}{% endfor %}' } },
      {
        deadline: { now: () => ms, at: 1000, ms: 1000 },
        runPython: () => {
          ms += 10_000;
          return { ok: true, value: { resources: [{ name: 'j', type: 't.jinja' }] } };
        },
      },
    );
    assert.deepEqual(r.errors, []);
  });

  test("JavaScript's methods are not Python's, and what is not Jinja2 syntax is refused", () => {
    for (const template of ["{{ 'x'.repeat(10) }}", "{{ 'x'.padStart(100) }}", "{{ [1].fill(0) }}", "{{ 'aaaa!'.match('(a+)+$') }}"]) {
      assert.match(refusal(one(template)).message, /UndefinedError: '\w+ object' has no attribute '\w+'/, template);
    }
    for (const template of ["{{ 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'|replace(r/(a+)+$/, 'x') }}", '{{ 1 === 1 }}', '{% if 1 %}{% elseif 2 %}{% endif %}', '{{ x|dump }}', '{{ x|tojson }}']) {
      assert.match(refusal(one(template)).message, /TemplateSyntaxError|TemplateAssertionError/, template);
    }
    assert.match(refusal(one("{{ ('x' * 100).split('') }}")).message, /ValueError: empty separator/);
  });

  // What Jinja2 templates write, rendered: the golden case testdata/dm/expand/jinja2-renders-as-jinja2.yaml.
  test('an undefined value in arithmetic or a comparison, or a division by zero, is an error, as in Jinja2', () => {
    for (const template of ['{{ missing + 1 }}', '{{ missing > 1 }}', '{{ 1 / 0 }}']) assert.equal(refusal(one(template)).code, 'template', template);
  });
});
