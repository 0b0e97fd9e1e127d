/**
 * Cost and quota: helm parameters, raw manifests, cluster defaults and
 * prices, marks, currencies; and the cluster kind's schema for them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { jsonSchemaForKind, type Cluster } from '../model/kinds';
import { loadObjects } from '../model/validate';
import type { DesiredState, Instance, InstanceCode } from '../resolve';
import { CostCalculator, planRevision } from './index';
import { clustersOf, load, resolveYaml, user } from '../../testing/policy-state';

const Mi = 1024 ** 2;
const Gi = 1024 ** 3;

const helm = (params: Record<string, unknown>): InstanceCode => ({ type: 'helm', params });
const raw = (manifest: unknown): InstanceCode => ({ type: 'raw', params: { manifest } });

describe('helm parameters', () => {
  const calc = new CostCalculator();
  const defaults = { cpuMillis: 100, memoryBytes: 128 * Mi, storageBytes: 1 * Gi, replicas: 1 };
  const r = (params: Record<string, unknown>, d = defaults) => {
    const x = calc.resources(helm(params), d);
    return [x.cpuMillis, x.memoryBytes, x.storageBytes, x.notes];
  };

  test('replicas × resources.requests, persistence.size per replica', () => {
    assert.deepEqual(r({ replicas: 3, resources: { requests: { cpu: '250m', memory: '512Mi' } }, persistence: { size: '10Gi' } }), [750, 1536 * Mi, 30 * Gi, []]);
  });
  test('replicaCount (templated to a string), resources.{cpu,memory}, requests.storage', () => {
    assert.deepEqual(r({ replicaCount: '2', resources: { cpu: '0.5', memory: '1Gi', requests: { storage: '2Gi' } } }), [1000, 2 * Gi, 4 * Gi, []]);
  });
  test('limits stand in for missing requests, as in Kubernetes', () => {
    assert.deepEqual(r({ resources: { limits: { cpu: 1, memory: '1Gi' } } }), [1000, Gi, Gi, []]);
  });
  test('nothing stated: the cluster defaults; none either: 0 (replicas 1)', () => {
    assert.deepEqual(r({ chartName: 'x' }), [100, 128 * Mi, Gi, []]);
    assert.deepEqual(r({ chartName: 'x' }, {} as typeof defaults), [0, 0, 0, []]);
    assert.deepEqual(r({ replicas: 4 }, { replicas: 2 } as typeof defaults), [0, 0, 0, []]);
  });
  test('persistence disabled means no storage; zero replicas cost nothing', () => {
    assert.deepEqual(r({ persistence: { enabled: false, size: '5Gi' } })[2], 0);
    assert.deepEqual(r({ replicas: 0, resources: { cpu: 1 } }).slice(0, 3), [0, 0, 0]);
  });
  test('unreadable values cost 0 and are noted', () => {
    const [cpu, memory, , notes] = r({ replicas: 'three', resources: { requests: { cpu: 'lots', memory: '1GB' } } });
    assert.equal(cpu, 0);
    assert.equal(memory, 0);
    assert.deepEqual((notes as string[]).map((n) => n.split(':')[0]), ['replicas "three" is not a whole number', 'cpu', 'memory']);
  });
});

describe('raw manifests', () => {
  const calc = new CostCalculator();
  const defaults = { cpuMillis: 100, memoryBytes: 128 * Mi, storageBytes: 7 * Gi };

  test('every costed kind (testdata/fixtures/plan/stateful-manifest.yaml)', () => {
    const text = readFileSync(join(process.cwd(), 'server/engine/testdata/fixtures/plan/stateful-manifest.yaml'), 'utf8');
    const x = calc.resources(raw(text), defaults);
    // StatefulSet 1500m/960Mi/33Gi + PVC 5Gi + DaemonSet 100m/50Mi + Pod defaults 100m/128Mi + Deployment 2000m/2Gi.
    assert.deepEqual([x.cpuMillis, x.memoryBytes, x.storageBytes, x.notes], [3700, 3186 * Mi, 38 * Gi, []]);
  });

  test('junk YAML costs 0 for that document and is noted; the rest still counts', () => {
    const text = 'kind: Pod\nspec: {containers: [{resources: {requests: {cpu: 1}}}]}\n---\nkind: [unclosed\n---\n: : :\n';
    const x = calc.resources(raw(text), {});
    assert.equal(x.cpuMillis, 1000);
    assert.ok(x.notes.length >= 1 && x.notes.every((n) => /is not valid YAML/.test(n)), x.notes.join('\n'));
    assert.deepEqual(calc.resources(raw(42), {}).notes, ['raw manifest is not text: costed as 0']);
    assert.deepEqual(calc.resources({ type: 'raw', params: {} }, {}).notes, ['raw code has no manifest: costed as 0']);
    const bad = calc.resources(raw('kind: Deployment\nspec: {replicas: two, template: {spec: {containers: [{resources: {requests: {cpu: 7x}}}]}}}'), {});
    assert.equal(bad.cpuMillis, 0);
    assert.equal(bad.notes.length, 2);
  });

  test('storage defaults do not apply to raw manifests (they name their volumes)', () => {
    const x = calc.resources(raw('kind: Deployment\nspec: {template: {spec: {containers: [{}]}}}'), defaults);
    assert.deepEqual([x.cpuMillis, x.memoryBytes, x.storageBytes], [100, 128 * Mi, 0]);
  });
});

/** A desired state with code instances on given targets (cost only looks at code and target). */
function state(instances: { key: string; cluster: string; ns?: string; code: InstanceCode | null; labels?: Record<string, string> }[]): DesiredState {
  return {
    claims: [],
    errors: [],
    instances: instances.map(
      (i): Instance => ({
        key: i.key,
        deployName: `a-${i.key}`,
        instanceId: '1',
        namespace: 'main',
        owner: 's',
        component: i.key,
        code: i.code,
        discovery: {},
        labels: i.labels ?? {},
        target: { clusterNamespace: 'system', cluster: i.cluster, namespace: i.ns ?? 'default' },
        edges: [],
        dependsOn: [],
        claims: ['main/c'],
        provenance: { source: 'aptomi', service: 's', context: 'c', allocationKeys: [], bundle: 'b', claimDepth: { 'main/c': 0 } },
      }),
    ),
  };
}
const cluster = (name: string, spec: Partial<Cluster>) => ({ namespace: 'system', name, spec: { kind: 'cluster', metadata: { namespace: 'system', name }, type: 'kubernetes', ...spec } as Cluster });

describe('revision cost and quota', () => {
  const pricing = { currency: 'EUR', vcpu: 30, memory: 5, storage: 0.2 };
  const big = helm({ replicas: 2, resources: { requests: { cpu: 2, memory: '4Gi' } }, persistence: { size: '50Gi' } });
  const small = helm({ resources: { requests: { cpu: '500m', memory: '1Gi' } } });

  test('prices, deltas and per-target totals', () => {
    const before = state([{ key: 'a', cluster: 'k1', code: small }, { key: 'r', cluster: 'k1', code: null }]);
    const after = state([{ key: 'a', cluster: 'k1', code: small }, { key: 'b', cluster: 'k1', ns: 'other', code: big }]);
    const p = planRevision({ before, after, clusters: [cluster('k1', { pricing })] });
    assert.deepEqual(p.cost.targets.map((t) => [t.namespace, t.after.cpuMillis, t.after.monthly, t.delta.monthly]), [
      ['default', 500, 20, 0], // 0.5 × 30 + 1 × 5
      ['other', 4000, 180, 180], // 4 × 30 + 8 × 5 + 100 × 0.2
    ]);
    assert.deepEqual(p.cost.total.before, { cpuMillis: 500, memoryBytes: Gi, storageBytes: 0, instances: 1, monthly: 20 });
    assert.deepEqual(p.cost.total.delta, { cpuMillis: 4000, memoryBytes: 8 * Gi, storageBytes: 100 * Gi, instances: 1, monthly: 180 });
    assert.equal(p.cost.currency, 'EUR');
  });

  test('resilience r counts every pod set as at least r + 1 replicas (Axebow: n = max(scale, r + 1)), and says so', () => {
    const deployment = (replicas: number) => ({
      type: 'raw' as const,
      params: { manifest: `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: ${replicas}\n  template:\n    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}\n` },
    });
    const cpu = (code: InstanceCode, labels: Record<string, string>) => {
      const p = planRevision({ before: null, after: state([{ key: 'a', cluster: 'k1', code, labels }]), clusters: [cluster('k1', { pricing })] });
      return [p.cost.total.after.cpuMillis, p.cost.notes.filter((n) => /resilience/.test(n.note)).length];
    };
    assert.deepEqual(cpu(small, {}), [500, 0]);
    assert.deepEqual(cpu(small, { resilience: '2' }), [1500, 1], 'helm: 1 replica raised to 3');
    assert.deepEqual(cpu(big, { resilience: '1' }), [4000, 0], 'helm: 2 replicas already meet resilience 1');
    assert.deepEqual(cpu(deployment(1), { resilience: '3' }), [400, 1], 'raw: 1 replica raised to 4');
    assert.deepEqual(cpu(deployment(5), { resilience: '3' }), [500, 0], 'raw: 5 replicas kept');
    assert.deepEqual(cpu(small, { resilience: 'lots' }), [500, 0], 'not a whole number: ignored');
  });

  test('an unpriced or unknown cluster costs no money but still counts resources', () => {
    const p = planRevision({ before: null, after: state([{ key: 'a', cluster: 'nowhere', code: big }]), clusters: [cluster('k1', { pricing: { ...pricing, currency: 'USD' } })] });
    assert.equal(p.cost.total.after.monthly, 0);
    assert.equal(p.cost.total.after.cpuMillis, 4000);
    assert.equal(p.cost.currency, 'USD', 'the only priced cluster names the currency');
  });

  test('several currencies: per-target prices, no money total', () => {
    const p = planRevision({
      before: null,
      after: state([{ key: 'a', cluster: 'eu', code: small }, { key: 'b', cluster: 'us', code: small }]),
      clusters: [cluster('eu', { pricing }), cluster('us', { pricing: { ...pricing, currency: 'USD' } })],
    });
    assert.equal(p.cost.currency, 'mixed');
    assert.deepEqual(p.cost.targets.map((t) => [t.cluster, t.currency, t.after.monthly]), [['eu', 'EUR', 20], ['us', 'USD', 20]]);
    assert.equal(p.cost.total.after.monthly, 0);
    assert.equal(p.cost.total.after.cpuMillis, 1000);
    assert.match(p.cost.notes.at(-1)!.note, /several currencies \(EUR, USD\)/);
  });

  test('quota: only dimensions with a mark; ok is after ≤ mark; sections flag only checks made worse', () => {
    const marks = { vcpu: '4', memory: '6Gi', instances: 1 };
    const before = state([{ key: 'a', cluster: 'k1', code: small }]);
    const after = state([{ key: 'a', cluster: 'k1', code: small }, { key: 'b', cluster: 'k1', code: big }]);
    const p = planRevision({ before, after, clusters: [cluster('k1', { marks }), cluster('k2', { marks: { storage: 1 } })] });
    assert.deepEqual(
      p.quota.map((q) => [q.cluster, q.dimension, q.mark, q.before, q.after, q.ok]),
      [
        ['k1', 'vcpu', 4, 0.5, 4.5, false],
        ['k1', 'memory', 6 * Gi, Gi, 9 * Gi, false],
        ['k1', 'instances', 1, 1, 2, false],
        ['k2', 'storage', 1, 0, 0, true],
      ],
    );
    assert.equal(p.sections[0]!.overMarks, true);
    // Shrinking while still over: the checks fail, but this revision does not make them worse.
    const shrink = planRevision({ before: after, after: state([{ key: 'a', cluster: 'k1', code: big }, { key: 'b', cluster: 'k1', code: big }]), clusters: [cluster('k1', { marks })] });
    assert.ok(shrink.quota.some((q) => !q.ok));
    assert.equal(shrink.sections[0]!.overMarks, true, 'a grew from 0.5 to 4 vCPU');
    const down = planRevision({ before: after, after: before, clusters: [cluster('k1', { marks: { vcpu: '0.1' } })] });
    assert.deepEqual(down.quota.map((q) => [q.ok, q.before, q.after]), [[false, 4.5, 0.5]]);
    assert.deepEqual(down.sections.map((s) => s.overMarks), [false]);
    // Within marks: nothing flagged.
    const fine = planRevision({ before: null, after: before, clusters: [cluster('k1', { marks: { vcpu: 8, memory: 8 * Gi } })] });
    assert.ok(fine.quota.every((q) => q.ok));
    assert.deepEqual(fine.sections.map((s) => s.overMarks), [false]);
  });

  test('cluster defaults feed resolved helm instances end to end', () => {
    const yaml = `
- kind: cluster
  metadata: {namespace: system, name: c1}
  type: kubernetes
  config: {defaultnamespace: apps}
  pricing: {vcpu: 10, memory: 2}
  defaults: {cpu: 250m, memory: 512Mi, replicas: 2}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 0, actions: {change-labels: {set: {target: c1}}}}
- kind: bundle
  metadata: {namespace: main, name: b}
  components:
    - {name: plain, code: {type: helm, params: {chartName: x}}}
    - {name: sized, code: {type: helm, params: {replicas: "{{ .Labels.n }}", resources: {requests: {cpu: 1}}}}}
- {kind: service, metadata: {namespace: main, name: s}, contexts: [{name: c, allocation: {bundle: b}}]}
- {kind: claim, metadata: {namespace: main, name: x}, user: u, service: s, labels: {n: "3"}}
`;
    const s = resolveYaml(yaml, [user('u')]);
    const p = planRevision({ before: null, after: s, clusters: clustersOf(load(yaml)) });
    // plain: 2 × 250m / 512Mi; sized: 3 × 1 CPU and 3 × the default 512Mi.
    assert.deepEqual(p.cost.total.after, { cpuMillis: 3500, memoryBytes: 2560 * Mi, storageBytes: 0, instances: 2, monthly: 40 });
    assert.deepEqual(p.cost.notes, []);
  });
});

describe('cluster kind: pricing, marks, defaults', () => {
  const check = (extra: string) => loadObjects(`kind: cluster\nmetadata: {namespace: system, name: c}\ntype: kubernetes\n${extra}`);

  test('valid extensions load; currency defaults to EUR', () => {
    const r = check('pricing: {vcpu: 21.5, memory: 3, storage: 0.1}\nmarks: {vcpu: 8000m, memory: 32Gi, storage: 1Ti, instances: 50}\ndefaults: {cpu: 0.25, memory: 256Mi, storage: 1Gi, replicas: 1}');
    assert.deepEqual(r.diagnostics, []);
    const spec = r.objects[0]!.spec as Cluster;
    assert.equal(spec.pricing?.currency, 'EUR');
    assert.equal(spec.marks?.vcpu, '8000m');
    assert.equal(check('marks: {vcpu: 8}').diagnostics.length, 0);
  });

  test('bad quantities and numbers get clear messages at the field', () => {
    const messages = (extra: string) => check(extra).diagnostics.map((d) => d.message);
    assert.deepEqual(messages('marks: {memory: 32GB}'), [
      'marks.memory: must be a Kubernetes quantity: a non-negative number with an optional suffix m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi or Ei (e.g. 500m, 2, 1.5, 512Mi, 10Gi)',
    ]);
    assert.match(messages('defaults: {cpu: -1}')[0]!, /^defaults\.cpu: must be a Kubernetes quantity/);
    assert.match(messages('defaults: {cpu: true}')[0]!, /^defaults\.cpu: must be a Kubernetes quantity/);
    assert.match(messages('marks: {memory: 1E}')[0]!, /^marks\.memory: is too large/);
    assert.equal(messages('marks: {instances: 2.5}')[0], 'marks.instances: expected int, got number 2.5');
    assert.match(messages('pricing: {vcpu: -3}')[0]!, /^pricing\.vcpu: must be a non-negative number/);
    assert.match(messages('marks: {gpus: 2}')[0]!, /unknown field "gpus"/);
  });

  test('the editor schema describes them', () => {
    const schema = jsonSchemaForKind('cluster') as { properties: Record<string, { description?: string; properties?: Record<string, { description?: string; anyOf?: { pattern?: string }[] }> }> };
    const marks = schema.properties.marks!;
    assert.match(marks.description!, /Quotas/);
    assert.match(marks.properties!.memory!.description!, /32Gi/);
    assert.ok(marks.properties!.memory!.anyOf!.some((x) => x.pattern), 'quantity text carries a pattern');
    assert.match(schema.properties.pricing!.properties!.vcpu!.description!, /per month/);
    assert.match(schema.properties.defaults!.properties!.replicas!.description!, /Replicas/);
  });
});
