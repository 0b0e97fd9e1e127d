/**
 * Revisions of Aptomi's shipped examples: action counts from empty as
 * Aptomi's diff gave them (derived/expected-examples.yaml,
 * `actionsFromEmptyState`), ordering, `waitsFor`, and the guestbook's cost
 * on a priced cluster (testdata/fixtures/plan/priced-k8s-example.yaml).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { loadPolicyFiles } from '../../loader/files';
import { formatDiagnostic, hasErrors } from '../diagnostics';
import { parseUsers } from '../model/users';
import { resolvePolicy, type DesiredState, type PolicyObjectInput } from '../resolve';
import { CostCalculator, planRevision, type RevisionPlan } from './index';
import { EMPTY_STATE, clustersOf } from '../../testing/policy-state';

const CORPUS = join(process.cwd(), 'corpus/aptomi');
const PRICED = join(process.cwd(), 'server/engine/testdata/fixtures/plan/priced-k8s-example.yaml');
const TEMPLATE = 'examples/twitter-analytics/policy/clusters/clusters.yaml.template';

interface ExampleSet {
  files: string[];
  users: string;
  actionsFromEmptyState: { create?: number; attachClaim?: number; update?: number; delete?: number; detachClaim?: number };
}
const examples = parse(readFileSync(join(CORPUS, 'derived/expected-examples.yaml'), 'utf8')) as Record<string, ExampleSet>;

function loadExample(name: string, opts: { priced?: boolean } = {}): { state: DesiredState; objects: PolicyObjectInput[] } {
  const set = examples[name]!;
  const files = set.files.filter((f) => !(opts.priced && f === TEMPLATE)).map((f) => join(CORPUS, f));
  if (opts.priced) files.push(PRICED);
  const loaded = loadPolicyFiles(files);
  assert.ok(!hasErrors(loaded.diagnostics), loaded.diagnostics.map(formatDiagnostic).join('\n'));
  const users = parseUsers(readFileSync(join(CORPUS, set.users), 'utf8')).users;
  const objects = loaded.objects as unknown as PolicyObjectInput[];
  return { state: resolvePolicy({ objects, users }), objects };
}

/** Every wait points to an earlier step, and covers the step's changed dependencies (creates) or dependents (deletes). */
function assertWaits(p: RevisionPlan, before: DesiredState | null, after: DesiredState) {
  const indexOf = new Map(p.steps.map((s) => [s.key, s.index]));
  const afterByKey = new Map(after.instances.map((i) => [i.key, i]));
  const beforeInstances = before?.instances ?? [];
  p.steps.forEach((s, i) => {
    assert.equal(s.index, i);
    for (const w of s.waitsFor) assert.ok(w < s.index, `${s.key} waits for a later step ${w}`);
    if (s.action === 'delete') {
      const dependents = beforeInstances.filter((b) => b.dependsOn.includes(s.key)).map((b) => indexOf.get(b.key)).filter((x) => x !== undefined);
      assert.deepEqual(s.waitsFor, [...dependents].sort((a, b) => a - b), s.key);
    } else {
      const deps = afterByKey.get(s.key)!.dependsOn.map((d) => indexOf.get(d)).filter((x) => x !== undefined);
      assert.deepEqual(s.waitsFor, [...deps].sort((a, b) => a - b), s.key);
    }
  });
}

describe('from the empty state, counts match Aptomi', () => {
  for (const name of Object.keys(examples)) {
    test(name, () => {
      const { state, objects } = loadExample(name);
      const p = planRevision({ before: null, after: state, clusters: clustersOf(objects) });
      const want = examples[name]!.actionsFromEmptyState;
      assert.deepEqual(p.counts, {
        create: want.create ?? 0,
        update: want.update ?? 0,
        delete: want.delete ?? 0,
        'attach-claim': want.attachClaim ?? 0,
        'detach-claim': want.detachClaim ?? 0,
      });
      // One step per created instance, roots and service components included.
      assert.equal(p.steps.length, state.instances.length);
      assert.ok(p.steps.every((s) => s.action === 'create'));
      assertWaits(p, null, state);
      // Every resolved claim changed; carol's (rejected) did too: it appeared.
      assert.deepEqual(p.changedClaims, state.claims.map((c) => `${c.namespace}/${c.name}`).sort());
      assert.deepEqual(p.sections.map((s) => s.namespace), ['platform', 'social']);
      assert.equal(p.sections.reduce((n, s) => n + s.keys.length, 0), state.instances.length);
    });
  }
  // The counts above are the golden ones; state them once more in plain numbers.
  test('29 + 57 and 37 + 65', () => {
    assert.deepEqual(examples['twitter-analytics']!.actionsFromEmptyState, { attachClaim: 57, create: 29 });
    assert.deepEqual(examples['twitter-analytics+guestbook']!.actionsFromEmptyState, { attachClaim: 65, create: 37 });
  });
});

describe('ordering on the guestbook and twitter-analytics', () => {
  const { state, objects } = loadExample('twitter-analytics+guestbook');
  const clusters = clustersOf(objects);
  const gb = (user: string, c: string) => `system#k8s-example#west#social#guestbook#personal#${user}#${c}`;

  test('creates: intra-bundle dependencies are honoured (redis-master, redis-slave, frontend, then the root)', () => {
    const p = planRevision({ before: null, after: state, clusters });
    const at = (k: string) => p.steps.findIndex((s) => s.key === k);
    for (const u of ['Alice', 'Bob']) {
      assert.ok(at(gb(u, 'redis-master')) < at(gb(u, 'redis-slave')));
      assert.ok(at(gb(u, 'redis-slave')) < at(gb(u, 'frontend')));
      assert.ok(at(gb(u, 'frontend')) < at(gb(u, 'root')));
      const frontend = p.steps[at(gb(u, 'frontend'))]!;
      assert.deepEqual(frontend.waitsFor, [at(gb(u, 'redis-master')), at(gb(u, 'redis-slave'))]);
      assert.equal(frontend.code?.type, 'raw');
      assert.equal(p.steps[at(gb(u, 'root'))]!.code, null);
    }
    // Platform before the bundles that consume it: zookeeper before kafka and spark.
    const zk = at('system#k8s-example#east#platform#zookeeper#platform#zookeeper');
    assert.ok(zk < at('system#k8s-example#east#platform#kafka#platform#kafka'));
    assert.ok(zk < at('system#k8s-example#east#platform#spark#platform#spark'));
    // Deterministic: the same plan every time.
    assert.deepEqual(planRevision({ before: null, after: state, clusters }).steps, p.steps);
  });

  test('deletes: dependents first, the reverse of creation', () => {
    const p = planRevision({ before: state, after: EMPTY_STATE, clusters });
    assert.equal(p.counts.delete, 37);
    assert.equal(p.counts['detach-claim'], 65);
    assert.ok(p.steps.every((s) => s.action === 'delete'));
    const at = (k: string) => p.steps.findIndex((s) => s.key === k);
    for (const u of ['Alice', 'Bob']) {
      assert.ok(at(gb(u, 'root')) < at(gb(u, 'frontend')));
      assert.ok(at(gb(u, 'frontend')) < at(gb(u, 'redis-slave')));
      assert.ok(at(gb(u, 'redis-slave')) < at(gb(u, 'redis-master')));
      // redis-master waits for everything that depended on it.
      assert.deepEqual(p.steps[at(gb(u, 'redis-master'))]!.waitsFor, [at(gb(u, 'root')), at(gb(u, 'frontend')), at(gb(u, 'redis-slave'))]);
    }
    // The shared zookeeper goes after both kafka and spark.
    const zkRoot = at('system#k8s-example#east#platform#zookeeper#platform#root');
    assert.ok(at('system#k8s-example#east#platform#kafka#platform#zookeeper') < zkRoot);
    assert.ok(at('system#k8s-example#east#platform#spark#platform#zookeeper') < zkRoot);
    assertWaits(p, state, EMPTY_STATE);
  });

  test('updates wait for changed dependencies through unchanged instances', () => {
    // zookeeper's and kafka's code change; the zookeeper service component and bundle root between them do not.
    const zk = 'system#k8s-example#east#platform#zookeeper#platform#zookeeper';
    const kafka = 'system#k8s-example#east#platform#kafka#platform#kafka';
    const next: DesiredState = {
      ...state,
      instances: state.instances.map((i) =>
        i.key === zk || i.key === kafka ? { ...i, code: { ...i.code!, params: { ...i.code!.params, bumped: true } } } : i,
      ),
    };
    const p = planRevision({ before: state, after: next, clusters });
    // 2 component updates and 2 root bumps.
    assert.equal(p.counts.update, 4);
    assert.deepEqual(p.steps.map((s) => s.key), [zk, kafka]);
    assert.deepEqual(p.steps[1]!.waitsFor, [0]);
    assert.deepEqual(p.steps[1]!.previousCode, state.instances.find((i) => i.key === kafka)!.code);
    // Every claim using either instance is affected.
    assert.deepEqual(p.changedClaims, ['social/alice_dev', 'social/bob_dev', 'social/prod']);
    assert.deepEqual(p.sections.map((s) => [s.namespace, s.counts.update]), [['platform', 4]]);
  });

  test('one claim removed: only its instances go, shared platform instances only lose the claim', () => {
    const { state: without } = loadExample('twitter-analytics');
    const p = planRevision({ before: state, after: without, clusters });
    // The two guestbooks (4 instances each) are deleted; nothing else changes.
    assert.equal(p.counts.delete, 8);
    assert.equal(p.counts['detach-claim'], 8);
    assert.equal(p.counts.create + p.counts.update + p.counts['attach-claim'], 0);
    assert.deepEqual(p.changedClaims, ['social/alice_guestbook', 'social/bob_guestbook']);
  });
});

describe('guestbook cost on a priced cluster', () => {
  const { state, objects } = loadExample('twitter-analytics+guestbook', { priced: true });
  const clusters = clustersOf(objects);
  const p = planRevision({ before: null, after: state, clusters });

  test('per instance: frontend 3 × 100m/100Mi, redis-master 1 ×, redis-slave 2 ×', () => {
    const calc = new CostCalculator();
    const Mi = 1024 ** 2;
    const per = (c: string) => {
      const inst = state.instances.find((i) => i.key === `system#k8s-example#west#social#guestbook#personal#Alice#${c}`)!;
      const r = calc.resources(inst.code!, {});
      return [r.cpuMillis, r.memoryBytes, r.storageBytes, r.notes.length];
    };
    assert.deepEqual(per('frontend'), [300, 300 * Mi, 0, 0]);
    assert.deepEqual(per('redis-master'), [100, 100 * Mi, 0, 0]);
    assert.deepEqual(per('redis-slave'), [200, 200 * Mi, 0, 0]);
  });

  test('per target and in total, with the monthly price', () => {
    assert.equal(p.cost.currency, 'EUR');
    assert.deepEqual(p.cost.notes, []);
    const west = p.cost.targets.find((t) => t.namespace === 'west')!;
    // Two guestbooks of 600m / 600Mi; twitter's helm charts state no resources and the cluster sets no defaults.
    assert.deepEqual(west.after, { cpuMillis: 1200, memoryBytes: 1200 * 1024 ** 2, storageBytes: 0, instances: 12, monthly: 28.69 });
    assert.deepEqual(west.before, { cpuMillis: 0, memoryBytes: 0, storageBytes: 0, instances: 0, monthly: 0 });
    assert.deepEqual(west.delta, west.after);
    assert.equal(west.currency, 'EUR');
    // 1.2 vCPU × 20 + 1200/1024 GiB × 4 = 24 + 4.6875.
    assert.equal(p.cost.total.after.monthly, 28.69);
    assert.deepEqual(p.cost.targets.map((t) => [t.namespace, t.after.instances]), [['east', 7], ['west', 12]]);
  });

  test('quota: over on vCPU (made worse by this revision), within on memory and instances', () => {
    assert.deepEqual(
      p.quota.map((q) => [q.dimension, q.mark, q.before, q.after, q.ok, q.unit]),
      [
        ['vcpu', 1, 0, 1.2, false, 'vCPU'],
        ['memory', 2 * 1024 ** 3, 0, 1200 * 1024 ** 2, true, 'bytes'],
        ['instances', 40, 0, 19, true, 'instances'],
      ],
    );
    // Both sections put instances on that cluster.
    assert.deepEqual(p.sections.map((s) => [s.namespace, s.overMarks]), [['platform', true], ['social', true]]);
    // Removing the guestbooks brings usage back within the marks: nothing flagged.
    const { state: without } = loadExample('twitter-analytics', { priced: true });
    const down = planRevision({ before: state, after: without, clusters });
    assert.equal(down.quota[0]!.ok, true);
    assert.deepEqual(down.cost.total.delta.monthly, -28.69);
    assert.ok(down.sections.every((s) => !s.overMarks));
  });
});
