/**
 * Tests for the Capact policy engine, driven by the corpus files as data
 * (corpus/capact/derived/*.yaml and the Hub fixtures they reference), plus
 * the Capact unit tests' error texts and the places where Keelson's
 * documented mode departs from Capact's code. Whole selections through the
 * select stage, over the same Hub, are golden cases in
 * testdata/capact/select/ (golden.test.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import {
  chooseImplementation,
  DEFAULT_POLICY_ORDER,
  explain,
  loadHub,
  lookupBackendByTypeRef,
  mergePolicies,
  parsePolicy,
  planRender,
  requiredTypeInstancesForRule,
  type Hub,
  type MergeMode,
  type Policy,
  type PolicyKind,
  type RenderedStep,
  type TypeInstanceBackendRef,
} from './index';

// The corpus is kept in the repository, as test data used as is.
const CORPUS = join(process.cwd(), 'corpus/capact');
const DERIVED = join(CORPUS, 'derived');
const HUB_DIR = join(CORPUS, 'pkg/sdk/renderer/argo/testdata/hub');
const POLICY_TESTDATA = join(CORPUS, 'pkg/engine/k8s/policy/testdata');

const readYaml = (file: string): any => parse(readFileSync(file, 'utf8'));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []))
    .sort();
}

/** The renderer tests' Hub: every fixture, with or without the Local Hub TypeInstances, matched by path as the fake Hub does. */
function fixtureHub(withTypeInstances: boolean): Hub {
  const docs = walk(HUB_DIR)
    .filter((f) => withTypeInstances || !f.includes('/typeinstance/'))
    .flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS()));
  const { hub, errors } = loadHub(docs, { implementsMatch: 'path' });
  assert.deepEqual(errors, []);
  return hub;
}

const at = (ref: { path: string; revision: string } | null | undefined) => (ref ? `${ref.path}@${ref.revision}` : null);

function stepsNamed(steps: RenderedStep[], key: string): RenderedStep[] {
  return steps.flatMap((s) => [...(s.name === key || s.action === key ? [s] : []), ...stepsNamed(s.steps, key)]);
}

function injectedAsMaps(injected: NonNullable<RenderedStep['choice']>['injected']) {
  return {
    requiredTypeInstances: Object.fromEntries(injected.requiredTypeInstances.map((t) => [t.alias, t.id])),
    additionalTypeInstances: Object.fromEntries(injected.additionalTypeInstances.map((t) => [t.name, t.id])),
    additionalParameters: Object.fromEntries(injected.additionalParameters.map((p) => [p.name, p.value])),
  };
}

function assertInjected(actual: NonNullable<RenderedStep['choice']>['injected'], expected: Record<string, Record<string, unknown>>, what: string) {
  const maps = injectedAsMaps(actual);
  for (const [kind, map] of Object.entries(expected)) assert.deepEqual(maps[kind as keyof typeof maps], map, `${what}: ${kind}`);
}

// ------------------------------------------------------------ render-cases

describe('render-cases.yaml (Capact renderer tests, capact-compat)', () => {
  const file = readYaml(join(DERIVED, 'render-cases.yaml'));
  const withTIs = fixtureHub(true);
  const withoutTIs = fixtureHub(false);
  for (const c of file.cases) {
    test(c.name, () => {
      const hub = /WITHOUT TypeInstances/.test(c.name) ? withoutTIs : withTIs;
      const maxDepth = Number(/maxDepth (\d+)/.exec(c.name)?.[1] ?? 50);
      const policy = file.policies[c.policy] as Policy;
      assert.ok(policy, `policy ${c.policy} exists`);
      const plan = planRender(hub, { global: policy }, { interface: { path: c.interface } }, { mode: 'capact-compat', maxDepth });
      const e = c.expect;
      if (e.error) {
        assert.equal(plan.ok, false);
        assert.deepEqual(
          plan.errors.map((x) => x.message),
          [e.error],
        );
        return;
      }
      assert.deepEqual(plan.errors, []);
      assert.equal(plan.ok, true);
      if (e.root) assert.equal(at(plan.root?.implementation), e.root);
      if (e.inject) assertInjected(plan.root!.injected, e.inject, 'root');
      for (const [key, expected] of Object.entries(e.steps ?? {})) {
        const found = stepsNamed(plan.steps, key);
        assert.ok(found.length > 0, `a step ${key} is rendered`);
        for (const s of found) {
          if (expected === 'skipped') assert.ok(s.skipped, `${key} is skipped`);
          else assert.equal(at(s.choice?.implementation), expected, `step ${s.name} (${s.action})`);
        }
      }
      for (const [key, expected] of Object.entries(e.stepInject ?? {})) {
        for (const s of stepsNamed(plan.steps, key)) assertInjected(s.choice!.injected, expected as Record<string, Record<string, unknown>>, `step ${key}`);
      }
    });
  }

  test('the same render cases pass in documented mode (only Global policies: the modes cannot differ)', () => {
    for (const c of file.cases.filter((x: any) => x.expect.root)) {
      const plan = planRender(withTIs, { global: file.policies[c.policy] }, { interface: { path: c.interface } }, { mode: 'documented', maxDepth: 50 });
      assert.equal(at(plan.root?.implementation), c.expect.root, c.name);
    }
  });

  test('Unmet policy constraints: why each other Implementation lost', () => {
    const choice = chooseImplementation(withTIs, file.policies.fallbackGlobal, { interface: { path: 'cap.interface.database.postgresql.install' } }, { mode: 'capact-compat' });
    assert.deepEqual(choice.rule && { key: choice.rule.key, oneOfIndex: choice.rule.oneOfIndex }, { key: 'cap.interface.database.postgresql.install:0.1.0', oneOfIndex: 2 });
    const rejected = Object.fromEntries(choice.rejected.map((r) => [`${r.path}@${r.revision}`, r.byOneOf.map((b) => b.constraint)]));
    assert.deepEqual(rejected, {
      'cap.implementation.aws.rds.postgresql.install@0.1.0': ['attributes', 'requirements', 'path'],
      'cap.implementation.bitnami.postgresql.install@0.2.0': ['attributes', 'attributes', 'requirements'],
      'cap.implementation.gcp.cloudsql.postgresql.install@0.1.0': ['attributes', 'attributes', 'path'],
      'cap.implementation.terraform.gcp.cloudsql.postgresql.install@0.1.0': ['attributes', 'attributes', 'path'],
    });
    const rds = choice.rejected.find((r) => r.path.includes('aws.rds'))!;
    assert.match(rds.byOneOf[1]!.reason, /alias "aws-credentials".*injects none/);
  });
});

// ------------------------------------------------------------- merge-cases

/**
 * Documented-mode expectations where they differ from the code's. The
 * corpus gives only capact-compat results; these follow the docs ("If there
 * are two TypeInstances with the same Type Reference, then the one from the
 * higher priority order policy is chosen"; typeInstance rules likewise).
 * Cases not listed here expect the same result in both modes.
 */
const DOCUMENTED_MERGE: Record<string, Policy> = {
  'typeInstance backend rules - action first then global for the same Types (LATER policy wins)': {
    typeInstance: {
      rules: [
        { typeRef: { path: 'cap.type.aws.auth.credentials', revision: '0.1.0' }, backend: { id: '00fd161c-01bd-47a6-9872-47490e11f996', description: 'Vault TI' } },
        { typeRef: { path: 'cap.type.aws.*' }, backend: { id: '31bb8355-10d7-49ce-a739-4554d8a40b63' } },
        { typeRef: { path: 'cap.*' }, backend: { id: 'a36ed738-dfe7-45ec-acd1-8e44e8db893b', description: 'Default Capact PostgreSQL backend' } },
      ],
    },
  },
  // order [GLOBAL, ACTION]: Global has the higher priority, so its TypeInstance A stays.
  'interface.default - same typeRef, order [GLOBAL, ACTION] -> ACTION (applied later) wins': {
    interface: { default: { inject: { requiredTypeInstances: [{ id: '1234-123-123', description: 'A', typeRef: { path: 'cap.type.aws.auth.credentials', revision: '0.1.0' } }] } } },
  },
  // order [ACTION, GLOBAL]: Action has the higher priority, so its TypeInstance B stays.
  'interface.default - same typeRef, order [ACTION, GLOBAL] -> GLOBAL (applied later) wins (test is named "Action has higher priority" but asserts this)': {
    interface: { default: { inject: { requiredTypeInstances: [{ id: '1111-2222-3333', description: 'B', typeRef: { path: 'cap.type.aws.auth.credentials', revision: '0.1.0' } }] } } },
  },
};

describe('merge-cases.yaml', () => {
  const file = readYaml(join(DERIVED, 'merge-cases.yaml'));
  for (const c of file.cases) {
    test(`capact-compat: ${c.name}`, () => {
      const merged = mergePolicies({ global: c.global, action: c.action }, { order: c.order as PolicyKind[], mode: 'capact-compat' });
      assert.deepEqual(merged, c.expected);
    });
    test(`documented: ${c.name}`, () => {
      const merged = mergePolicies({ global: c.global, action: c.action }, { order: c.order as PolicyKind[], mode: 'documented' });
      assert.deepEqual(merged, DOCUMENTED_MERGE[c.name] ?? c.expected);
    });
  }
  test('every documented-mode exception names a corpus case', () => {
    for (const name of Object.keys(DOCUMENTED_MERGE)) assert.ok(file.cases.some((c: any) => c.name === name), name);
  });

  for (const c of file.ruleVsDefault) {
    test(`rule vs default: ${c.name}`, () => {
      const policy: Policy = { interface: { default: { inject: { requiredTypeInstances: c.globalDefault } } } };
      const merged = mergePolicies({ global: policy }, { mode: 'capact-compat' });
      assert.deepEqual(requiredTypeInstancesForRule(merged, { implementationConstraints: {}, inject: { requiredTypeInstances: c.rule } }), c.expected);
    });
  }

  for (const mode of ['capact-compat', 'documented'] as MergeMode[]) {
    test(`nested Workflow-step policies (${mode}): the outer step's parameters win, pop restores`, () => {
      const { workflowPolicyTemplate, steps } = file.nestedWorkflow;
      const stack: Policy[] = [];
      for (const step of steps) {
        if (step.op === 'push') {
          const p = structuredClone(workflowPolicyTemplate);
          p.interface.rules[0].oneOf[0].inject.additionalParameters[0].value = step.value;
          stack.push(p);
        } else stack.pop();
        const merged = mergePolicies({ workflow: stack }, { mode });
        assert.deepEqual(merged.interface?.rules?.[0]?.oneOf[0]?.inject?.additionalParameters?.[0]?.value, step.expectedMergedValue);
      }
    });
  }

  test('capact-compat: identical oneOf items in one incoming rule are both appended; documented merges them', () => {
    const item = { implementationConstraints: { path: 'x' }, inject: { additionalParameters: [{ name: 'p', value: { a: 1 } }] } };
    const higher: Policy = { interface: { rules: [{ interface: { path: 'cap.interface.i' }, oneOf: [{ implementationConstraints: { path: 'y' } }] }] } };
    const lower: Policy = { interface: { rules: [{ interface: { path: 'cap.interface.i' }, oneOf: [item, item] }] } };
    assert.equal(mergePolicies({ action: higher, global: lower }, { mode: 'capact-compat' }).interface!.rules![0]!.oneOf.length, 3);
    assert.equal(mergePolicies({ action: higher, global: lower }, { mode: 'documented' }).interface!.rules![0]!.oneOf.length, 2);
  });

  test('capact-compat compares constraints structurally (requires: [] is not absent); documented does not', () => {
    const a: Policy = { interface: { rules: [{ interface: { path: 'cap.interface.i' }, oneOf: [{ implementationConstraints: { requires: [] } }] }] } };
    const b: Policy = { interface: { rules: [{ interface: { path: 'cap.interface.i' }, oneOf: [{ implementationConstraints: {} }] }] } };
    assert.equal(mergePolicies({ action: a, global: b }, { mode: 'capact-compat' }).interface!.rules![0]!.oneOf.length, 2);
    assert.equal(mergePolicies({ action: a, global: b }, { mode: 'documented' }).interface!.rules![0]!.oneOf.length, 1);
  });
});

// ---------------------------------------------------- backend-lookup-cases

describe('backend-lookup-cases.yaml', () => {
  const file = readYaml(join(DERIVED, 'backend-lookup-cases.yaml'));
  const byKey = new Map<string, TypeInstanceBackendRef>(Object.entries(file.byTypeRef.registered as Record<string, string>).map(([k, id]) => [k, { id }]));
  for (const mode of ['capact-compat', 'documented'] as MergeMode[]) {
    for (const c of file.byTypeRef.cases) {
      test(`${mode}: ${c.typeRef.path}:${c.typeRef.revision} -> ${c.found ? c.backend : 'default storage'}`, () => {
        const hit = lookupBackendByTypeRef(byKey, c.typeRef, mode);
        assert.equal(hit?.backend.id ?? null, c.found ? c.backend : null);
      });
    }
  }

  test('an exact-path rule without revision: never matched by Capact, matched in documented mode', () => {
    const keys = new Map([['cap.type.capactio.examples.message', { id: 'EXACT' }], ['cap.*', { id: 'ANY' }]]);
    const ref = { path: 'cap.type.capactio.examples.message', revision: '0.1.0' };
    assert.equal(lookupBackendByTypeRef(keys, ref, 'capact-compat')?.backend.id, 'ANY');
    assert.equal(lookupBackendByTypeRef(keys, ref, 'documented')?.backend.id, 'EXACT');
  });

  // The alias cases, end to end: an Implementation whose outputs name a backend alias gets the TypeInstance injected under it.
  const storageType = (name: string) => ({ kind: 'Type', revision: '0.1.0', metadata: { prefix: 'cap.type.test', name }, spec: { additionalRefs: ['cap.core.type.hub.storage'], jsonSchema: '{}' } });
  const aliasHub = loadHub([
    storageType('helm-storage'),
    storageType('secret-manager'),
    { id: file.byAlias.registered['helm-storage'], typeRef: { path: 'cap.type.test.helm-storage', revision: '0.1.0' } },
    { id: file.byAlias.registered['aws-secret-manager'], typeRef: { path: 'cap.type.test.secret-manager', revision: '0.1.0' } },
    { kind: 'Interface', revision: '0.1.0', metadata: { prefix: 'cap.interface.test', name: 'install' }, spec: { input: {}, output: { typeInstances: { message: { typeRef: { path: 'cap.type.capactio.examples.message', revision: '0.1.0' } } } } } },
    {
      kind: 'Implementation',
      revision: '0.1.0',
      metadata: { prefix: 'cap.implementation.test', name: 'install' },
      spec: {
        implements: [{ path: 'cap.interface.test.install', revision: '0.1.0' }],
        requires: { 'cap.type.test': { allOf: [{ name: 'helm-storage', revision: '0.1.0', alias: 'helm-storage' }, { name: 'secret-manager', revision: '0.1.0', alias: 'aws-secret-manager' }] } },
        additionalOutput: { typeInstances: { a: { typeRef: { path: 'cap.type.x', revision: '0.1.0' } }, b: { typeRef: { path: 'cap.type.y', revision: '0.1.0' } }, c: { typeRef: { path: 'cap.type.z', revision: '0.1.0' } } } },
        action: {
          args: {
            workflow: {
              templates: [
                {
                  name: 'main',
                  steps: [[{ name: 's', template: 't', 'capact-outputTypeInstances': [{ name: 'a', backend: 'helm-storage' }, { name: 'b', backend: 'aws-secret-manager' }, { name: 'c', backend: 'vault' }] }]],
                },
              ],
            },
          },
        },
      },
    },
  ]).hub;
  const aliasPolicy: Policy = {
    interface: {
      default: { inject: { requiredTypeInstances: Object.values(file.byAlias.registered as Record<string, string>).map((id) => ({ id })) } },
      rules: [{ interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: {} }] }],
    },
    typeInstance: { rules: [{ typeRef: { path: 'cap.type.capactio.examples.message', revision: '0.1.0' }, backend: { id: file.byAlias.registered['helm-storage'] } }] },
  };
  const choice = chooseImplementation(aliasHub, aliasPolicy, { interface: { path: 'cap.interface.test.install' } });
  for (const c of file.byAlias.cases) {
    test(`alias ${c.alias} -> ${c.found ? c.backend : 'not found'}`, () => {
      const name = { 'helm-storage': 'a', 'aws-secret-manager': 'b', vault: 'c' }[c.alias as string]!;
      const b = choice.backends.find((x) => x.name === name)!;
      assert.deepEqual(b.via, { kind: 'alias', alias: c.alias });
      assert.equal(b.backend?.id ?? null, c.found ? c.backend : null);
      if (!c.found) assert.ok(choice.errors.some((e) => e.message === `cannot find backend storage for specified "${c.alias}" alias`));
    });
  }
  test('outputs without an alias use the typeInstance rules (registered TypeRefs do not answer aliases)', () => {
    assert.deepEqual(choice.backends.find((x) => x.name === 'message'), {
      name: 'message',
      typeRef: { path: 'cap.type.capactio.examples.message', revision: '0.1.0' },
      backend: { id: file.byAlias.registered['helm-storage'] },
      via: { kind: 'typeRef', key: 'cap.type.capactio.examples.message:0.1.0' },
    });
  });
});

// ------------------------------------------------------- policy testdata

describe('policy testdata (valid.yaml / invalid.yaml)', () => {
  test('valid.yaml parses; typeRef under requiredTypeInstances is ignored', () => {
    const { policy, errors } = parsePolicy(readYaml(join(POLICY_TESTDATA, 'valid.yaml')));
    assert.deepEqual(errors, []);
    const rules = policy!.interface!.rules!;
    assert.deepEqual(
      rules.map((r) => [r.interface.path, r.interface.revision, r.oneOf.length]),
      [
        ['cap.interface.database.postgresql.install', '0.1.0', 3],
        ['cap.*', undefined, 1],
      ],
    );
    assert.deepEqual(rules[0]!.oneOf[0]!.inject, {
      requiredTypeInstances: [{ id: 'sample-uuid', description: 'Google Cloud Platform Service Account' }],
      additionalParameters: [{ name: 'additional-parameters', value: { snapshot: true } }],
      additionalTypeInstances: [{ name: 'sample-name', id: 'sample-uuid' }],
    });
    assert.deepEqual(rules[0]!.oneOf[2]!.implementationConstraints, { path: 'cap.implementation.bitnami.postgresql.install' });
  });

  test('invalid.yaml ("foo") is refused with a message', () => {
    const { policy, errors } = parsePolicy(readYaml(join(POLICY_TESTDATA, 'invalid.yaml')));
    assert.equal(policy, null);
    assert.equal(errors[0]?.code, 'invalid_policy');
    assert.match(errors[0]!.message, /policy must be a mapping/);
  });
});

// ------------------------------------------------ default global policy

describe('default-global-policy.yaml', () => {
  const file = readYaml(join(DERIVED, 'default-global-policy.yaml'));
  test('the chart order is the engine default', () => {
    assert.deepEqual(file.policyOrder.split(','), [...DEFAULT_POLICY_ORDER]);
  });
  test('PostgreSQL under the chart policy: oneOf[0] (requires Kubernetes) picks Bitnami 0.1.0', () => {
    const choice = chooseImplementation(fixtureHub(true), file.globalPolicy, { interface: { path: 'cap.interface.database.postgresql.install' } });
    assert.equal(at(choice.implementation), 'cap.implementation.bitnami.postgresql.install@0.1.0');
    assert.equal(choice.rule?.oneOfIndex, 0);
    assert.equal(choice.ok, true);
  });
});

// ------------------------------------------- Capact unit-test error texts

describe('injection errors (policy_enforced_client_test.go texts)', () => {
  const hub = fixtureHub(true);
  const implDoc = {
    kind: 'Implementation',
    revision: '0.1.0',
    metadata: { path: 'impl', prefix: 'x', name: 'impl' },
    spec: {
      implements: [{ path: 'cap.interface.test', revision: '0.1.0' }],
      additionalInput: {
        parameters: { foo: { typeRef: { path: 'cap.type.capactio.capact.validation.key-bool', revision: '0.1.0' } }, bar: { typeRef: { path: 'cap.type.capactio.capact.validation.key-string', revision: '0.1.0' } } },
        typeInstances: { database: { typeRef: { path: 'cap.type.database.postgresql.config', revision: '0.1.0' } } },
      },
    },
  };
  const withImpl = { ...hub, implementations: { ...hub.implementations, impl: loadHub([implDoc]).hub.implementations.impl! } };
  const choose = (inject: object) =>
    chooseImplementation(withImpl, { interface: { rules: [{ interface: { path: 'cap.interface.test' }, oneOf: [{ implementationConstraints: {}, inject }] }] } }, { interface: { path: 'cap.interface.test', revision: '0.1.0' } });

  test('invalid and unknown parameters', () => {
    const c = choose({ additionalParameters: [{ name: 'foo', value: { key: 'string' } }, { name: 'baz', value: { key: 'string' } }] });
    assert.equal(at(c.implementation), 'impl@0.1.0');
    assert.deepEqual(
      c.errors.map((e) => e.message),
      ['while validating additional input parameters schemas:\n- AdditionalParameters "baz":\n    * Unknown parameter. Cannot validate it against JSONSchema.\n- AdditionalParameters "foo":\n    * key: Invalid type. Expected: boolean, given: string'],
    );
    assert.deepEqual(c.injected.additionalParameters, []);
  });

  test('multiple valid parameters are injected', () => {
    const c = choose({ additionalParameters: [{ name: 'foo', value: { key: true } }, { name: 'bar', value: { key: 'string' } }] });
    assert.deepEqual(c.errors, []);
    assert.deepEqual(c.injected.additionalParameters, [
      { name: 'foo', value: { key: true } },
      { name: 'bar', value: { key: 'string' } },
    ]);
  });

  test('additional TypeInstance not declared by the Implementation', () => {
    // gcp-sa resolves to cap.type.gcp.auth.service-account:0.1.0, which "database" is not.
    const c = choose({ additionalTypeInstances: [{ name: 'not-existing', id: 'c268d3f5-8834-434b-bea2-b677793611c5' }, { name: 'database', id: 'c268d3f5-8834-434b-bea2-b677793611c5' }] });
    assert.deepEqual(
      c.errors.map((e) => e.message),
      [
        'while checking if additional TypeInstances from Policy are defined in Implementation manifest:\n' +
          '- AdditionalTypeInstance "database":\n    * cannot find such definition with exact name and Type reference "cap.type.gcp.auth.service-account:0.1.0" in Implementation "impl"\n' +
          '- AdditionalTypeInstance "not-existing":\n    * cannot find such definition with exact name and Type reference "cap.type.gcp.auth.service-account:0.1.0" in Implementation "impl"',
      ],
    );
  });

  test('inject database', () => {
    const c = choose({ additionalTypeInstances: [{ name: 'database', id: 'f2421415-b8a4-464b-be12-b617794411c5' }] });
    assert.deepEqual(c.errors, []);
    assert.deepEqual(c.injected.additionalTypeInstances, [{ name: 'database', id: 'f2421415-b8a4-464b-be12-b617794411c5', typeRef: { path: 'cap.type.database.postgresql.config', revision: '0.1.0' } }]);
  });

  test('an unknown required TypeInstance id', () => {
    const c = choose({ requiredTypeInstances: [{ id: 'my-uuid', description: 'My UUID' }] });
    assert.deepEqual(
      c.errors.map((e) => e.message),
      ['while validating Policy rule:\n- Metadata for "RequiredTypeInstance":\n    * missing Type reference for ID: "my-uuid", description: "My UUID"'],
    );
  });

  test('a backend TypeInstance whose Type is not a Hub storage', () => {
    const c = chooseImplementation(
      withImpl,
      { interface: { rules: [{ interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: {} }] }] }, typeInstance: { rules: [{ typeRef: { path: 'cap.*' }, backend: { id: 'c268d3f5-8834-434b-bea2-b677793611c5', description: 'GCP SA' } }] } },
      { interface: { path: 'cap.interface.test' } },
    );
    assert.deepEqual(
      c.errors.map((e) => e.message),
      ['while TypeInstance metadata validation after resolving TypeRefs:\n- Metadata for "BackendTypeInstance":\n    * Type reference ID: "c268d3f5-8834-434b-bea2-b677793611c5", description: "GCP SA" is not a Hub storage'],
    );
  });

  test('two injected TypeInstances landing on one alias', () => {
    const dup = loadHub([
      {
        kind: 'Implementation',
        revision: '0.1.0',
        metadata: { path: 'cap.implementation.dup' },
        spec: {
          implements: [{ path: 'cap.interface.dup', revision: '0.1.0' }],
          requires: { 'cap.type': { anyOf: [{ name: 'helm.release.storage', revision: '0.1.0', alias: 'storage' }, { name: 'helm.template.storage', revision: '0.1.0', alias: 'storage' }] } },
        },
      },
    ]).hub;
    const hubWithDup = { ...hub, implementations: { ...hub.implementations, ...dup.implementations } };
    const c = chooseImplementation(
      hubWithDup,
      { interface: { rules: [{ interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: {}, inject: { requiredTypeInstances: [{ id: 'a35a0c04-6153-4fe9-8d49-9ec35a0e86e' }, { id: 'b1fcdf4c-f3e3-4b90-ba37-f8ca40c620e2' }] } }] }] } },
      { interface: { path: 'cap.interface.dup' } },
    );
    assert.equal(at(c.implementation), 'cap.implementation.dup@0.1.0');
    assert.deepEqual(
      c.errors.map((e) => e.message),
      ['found duplicated alias "storage" entry under requires property'],
    );
  });
});

// --------------------------------------------------- lookup and filters

describe('rule lookup and filters', () => {
  const hub = fixtureHub(true);
  const PG = 'cap.interface.database.postgresql.install';

  test('no fallback: an exact rule whose oneOf allows nothing hides the cap.* rule', () => {
    const c = chooseImplementation(
      hub,
      {
        interface: {
          rules: [
            { interface: { path: PG, revision: '0.1.0' }, oneOf: [{ implementationConstraints: { path: 'does-not-exist' } }] },
            { interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: {} }] },
          ],
        },
      },
      { interface: { path: PG, revision: '0.1.0' } },
    );
    assert.equal(c.implementation, null);
    assert.equal(c.rule?.key, `${PG}:0.1.0`);
    assert.equal(c.rule?.oneOfIndex, null);
    assert.deepEqual(c.errors.map((e) => e.code), ['no_implementation']);
  });

  test('oneOf: [] denies; a path-only rule is found for any revision; prefix globs are not rule keys', () => {
    const deny = chooseImplementation(hub, { interface: { rules: [{ interface: { path: PG }, oneOf: [] }, { interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: {} }] }] } }, { interface: { path: PG } });
    assert.equal(deny.implementation, null);
    assert.ok(deny.rejected.every((r) => r.constraint === 'denied'));
    const glob = chooseImplementation(hub, { interface: { rules: [{ interface: { path: 'cap.interface.database.*' }, oneOf: [{ implementationConstraints: {} }] }] } }, { interface: { path: PG } });
    assert.equal(glob.implementation, null);
    assert.ok(glob.rejected.every((r) => r.constraint === 'no-rule'));
  });

  test('constraint paths are unanchored regular expressions', () => {
    const c = chooseImplementation(hub, { interface: { rules: [{ interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: { path: 'gcp' } }] }] } }, { interface: { path: PG } });
    // Both GCP variants match "gcp"; neither is injected its aliased service account, so both fail requirements.
    assert.equal(c.implementation, null);
    const injected = chooseImplementation(
      hub,
      { interface: { rules: [{ interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: { path: 'gcp' }, inject: { requiredTypeInstances: [{ id: 'c268d3f5-8834-434b-bea2-b677793611c5' }] } }] }] } },
      { interface: { path: PG } },
    );
    assert.deepEqual(injected.candidates.map((x) => x.path), ['cap.implementation.gcp.cloudsql.postgresql.install', 'cap.implementation.terraform.gcp.cloudsql.postgresql.install']);
  });

  test('a later rule with the same key replaces an earlier one', () => {
    const c = chooseImplementation(
      hub,
      {
        interface: {
          rules: [
            { interface: { path: 'cap.*' }, oneOf: [] },
            { interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: {} }] },
          ],
        },
      },
      { interface: { path: PG } },
    );
    assert.equal(at(c.implementation), 'cap.implementation.bitnami.postgresql.install@0.1.0');
    assert.equal(c.rule?.ruleIndex, 1);
  });

  test('explain: sentences for the console', () => {
    const c = chooseImplementation(hub, readYaml(join(DERIVED, 'render-cases.yaml')).policies.awsRdsGlobal, { interface: { path: PG } });
    const e = explain(c);
    assert.equal(e.outcome, 'chosen');
    assert.equal(e.summary, `${PG}:0.1.0 resolves to cap.implementation.aws.rds.postgresql.install:0.1.0`);
    assert.equal(e.candidates[0]?.status, 'chosen');
    assert.equal(e.candidates.length, 5);
    assert.deepEqual(e.injections, [
      'TypeInstance 517cf827-233c-4bf1-8fc9-48534424dd58 (cap.type.aws.auth.credentials:0.1.0) as "aws-credentials"',
      'additional parameters "additional-parameters": {"region":"eu-central-1"}',
    ]);
    assert.deepEqual(e.backends, ['postgresql is stored in the built-in Local Hub storage (no typeInstance rule matches)', 'rds-instance is stored in the built-in Local Hub storage (no typeInstance rule matches)']);
  });
});

// ------------------------------------- documented vs capact-compat, end to end

describe('memoised lookups stay per Hub and per policy', () => {
  const iface = { ocfVersion: '0.0.1', kind: 'Interface', revision: '0.1.0', metadata: { prefix: 'cap.interface.memo', name: 'install' }, spec: {} };
  const impl = (name: string) => ({
    ocfVersion: '0.0.1',
    kind: 'Implementation',
    revision: '0.1.0',
    metadata: { prefix: 'cap.implementation.memo', name },
    spec: { implements: [{ path: 'cap.interface.memo.install', revision: '0.1.0' }], requires: {}, imports: [], action: {} },
  });
  const creds = { id: 'ti-memo', typeRef: { path: 'cap.type.memo.creds', revision: '0.1.0' }, latestResourceVersion: { resourceVersion: 1, spec: { value: {} } } };
  const request = { interface: { path: 'cap.interface.memo.install' } };

  test('one policy object against two Hubs: each resolves its TypeInstance ids against its own', () => {
    const policy = {
      interface: { rules: [{ interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: {}, inject: { requiredTypeInstances: [{ id: 'ti-memo', description: 'creds' }] } }] }] },
    } as Policy;
    const withCreds = loadHub([iface, impl('a'), creds]).hub;
    const without = loadHub([iface, impl('a')]).hub;
    assert.equal(chooseImplementation(withCreds, policy, request).errors.length, 0);
    assert.match(chooseImplementation(without, policy, request).errors[0]?.message ?? '', /missing Type reference for ID: "ti-memo"/);
    // And back: the first Hub's answer did not change.
    assert.equal(chooseImplementation(withCreds, policy, request).errors.length, 0);
  });

  test('two policies over one Hub: each has its own rule lookup and path patterns', () => {
    const hub = loadHub([iface, impl('a'), impl('b')]).hub;
    const only = (name: string) => ({ interface: { rules: [{ interface: { path: 'cap.interface.memo.install' }, oneOf: [{ implementationConstraints: { path: `memo\\.${name}$` } }] }] } }) as Policy;
    assert.equal(chooseImplementation(hub, only('a'), request).implementation?.path, 'cap.implementation.memo.a');
    assert.equal(chooseImplementation(hub, only('b'), request).implementation?.path, 'cap.implementation.memo.b');
  });
});
