import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { KIND_SCHEMAS } from '../server/engine/model/kinds';
import { parseUsers } from '../server/engine/model/users';
import { loadObjects } from '../server/engine/model/validate';
import {
  CLUSTER_NAME,
  createRng,
  describeInput,
  emitPolicy,
  generatePolicy,
  HEAVY_PRESET_NAMES,
  PRESET_NAMES,
  PRESETS,
  type GeneratedBundle,
  type GeneratedClaim,
  type GeneratedCluster,
  type GeneratedObject,
  type GeneratedPolicy,
  type GeneratedRule,
  type GeneratedService,
  type GeneratorParams,
  type PresetName,
} from './generator';

const byKind = (g: GeneratedPolicy) => {
  const of = <K extends GeneratedObject['kind']>(kind: K) =>
    g.objects.filter((o): o is Extract<GeneratedObject, { kind: K }> => o.kind === kind);
  return {
    bundles: of('bundle') as GeneratedBundle[],
    services: of('service') as GeneratedService[],
    rules: of('rule') as GeneratedRule[],
    claims: of('claim') as GeneratedClaim[],
    clusters: of('cluster') as GeneratedCluster[],
  };
};

/**
 * Longest chain of service components from any bundle, following
 * bundle → service component → that service's (only) bundle. Throws on a
 * cycle, independently of how the generator avoids them.
 */
function longestServiceChain(bundles: GeneratedBundle[], services: GeneratedService[]): number {
  const bundleOfService = new Map<string, string>();
  for (const s of services) {
    const targets = new Set(s.contexts.map((c) => c.allocation.bundle));
    assert.equal(targets.size, 1, `${s.metadata.name} allocates one bundle`);
    bundleOfService.set(s.metadata.name, [...targets][0]!);
  }
  const next = new Map<string, string[]>();
  for (const b of bundles) {
    next.set(
      b.metadata.name,
      b.components.flatMap((c) => ('service' in c ? [bundleOfService.get(c.service) ?? assert.fail(`unknown service ${c.service}`)] : [])),
    );
  }
  const depth = new Map<string, number>();
  const onPath = new Set<string>();
  const visit = (b: string): number => {
    const known = depth.get(b);
    if (known !== undefined) return known;
    if (onPath.has(b)) assert.fail(`service component cycle through ${b}`);
    onPath.add(b);
    let d = 0;
    for (const n of next.get(b) ?? []) d = Math.max(d, 1 + visit(n));
    onPath.delete(b);
    depth.set(b, d);
    return d;
  };
  let longest = 0;
  for (const b of bundles) longest = Math.max(longest, visit(b.metadata.name));
  return longest;
}

function checkShape(preset: PresetName, g: GeneratedPolicy): void {
  const p = PRESETS[preset];
  const { bundles, services, rules, claims, clusters } = byKind(g);
  assert.equal(bundles.length, p.bundles);
  assert.equal(services.length, p.bundles, 'one service per bundle');
  assert.equal(claims.length, p.claims);
  assert.equal(g.users.length, p.users);
  assert.equal(rules.length, 25);
  assert.equal(clusters.length, 1);
  assert.equal(g.objects.length, g.stats.objects);

  // Users: 30 labels each, the same set for everyone.
  const labelNames = new Set(Object.keys(g.users[0]!.labels));
  assert.equal(labelNames.size, 30);
  for (const u of g.users) assert.equal(Object.keys(u.labels).length, 30);
  assert.equal(new Set(g.users.map((u) => u.name)).size, p.users, 'user names are unique');

  // Bundles: 6 code components × 6 templated params on user labels; at most one service component.
  for (const b of bundles) {
    const code = b.components.filter((c) => 'code' in c);
    const deps = b.components.filter((c) => 'service' in c);
    assert.equal(code.length, 6);
    assert.ok(deps.length <= 1);
    for (const c of code) {
      const params = Object.entries(c.code.params).filter(([k]) => k.startsWith('param-'));
      assert.equal(params.length, 6);
      for (const [, v] of params) {
        const m = /^prefix-\{\{ \.Labels\.([a-z]+) \}\}-suffix$/.exec(v);
        assert.ok(m && labelNames.has(m[1]!), `param ${v} reads a label users have`);
      }
    }
  }
  const chain = longestServiceChain(bundles, services);
  assert.ok(chain <= 4, `chain of ${chain} service components`);
  assert.equal(chain, g.stats.longestChain);
  assert.equal(bundles.reduce((n, b) => n + b.components.filter((c) => 'service' in c).length, 0), g.stats.serviceComponents);

  // Services: 2 contexts; only the last can match (the first requires labels nobody has).
  for (const s of services) {
    assert.equal(s.contexts.length, 2);
    const [never, always] = s.contexts;
    const anyOf = never!.criteria['require-any'] ?? [];
    assert.equal(anyOf.length, 3);
    for (const e of anyOf) assert.ok(!labelNames.has(e.split('==')[0]!), 'non-matching context reads an absent label');
    assert.deepEqual(always!.criteria, { 'require-all': ['true'] });
  }

  // Rules: 24 rejects on bundle names that do not exist, 1 placement on the one cluster.
  const bundleNames = new Set(bundles.map((b) => b.metadata.name));
  const rejects = rules.filter((r) => 'claim' in r.actions);
  assert.equal(rejects.length, 24);
  for (const r of rejects) {
    const m = /^bundle\.Name == '(.+)'$/.exec(r.criteria['require-all'][0]!);
    assert.ok(m && !bundleNames.has(m[1]!));
  }
  const placement = rules.filter((r) => 'change-labels' in r.actions);
  assert.deepEqual(placement.map((r) => r.actions), [{ 'change-labels': { set: { target: CLUSTER_NAME } } }]);
  assert.deepEqual(clusters[0]!.metadata, { namespace: 'system', name: CLUSTER_NAME });

  // Claims reference existing users and services.
  const userNames = new Set(g.users.map((u) => u.name));
  const serviceNames = new Set(services.map((s) => s.metadata.name));
  for (const c of claims) {
    assert.ok(userNames.has(c.user));
    assert.ok(serviceNames.has(c.service));
  }
}

describe('bench generator', () => {
  test('the PRNG is deterministic and uniform enough to pick indices', () => {
    const a = createRng(239);
    const b = createRng(239);
    const seq = Array.from({ length: 1000 }, () => a.int(10));
    assert.deepEqual(seq, Array.from({ length: 1000 }, () => b.int(10)));
    for (let k = 0; k < 10; k++) {
      const n = seq.filter((x) => x === k).length;
      assert.ok(n > 60 && n < 140, `bucket ${k} got ${n} of 1000`);
    }
    assert.match(createRng(1).id(20), /^[a-z]{20}$/);
  });

  test('same seed, same policy; another seed, another policy', () => {
    const a = generatePolicy('small');
    const b = generatePolicy('small');
    assert.deepEqual(a, b);
    const c = generatePolicy('small', { seed: 240 });
    assert.notDeepEqual(c.objects, a.objects);
    assert.notDeepEqual(c.users[0]!.labels, a.users[0]!.labels);
    // Sizes do not depend on the seed.
    assert.equal(c.objects.length, a.objects.length);
  });

  test('small and medium presets have Aptomi’s sizes and structure', () => {
    for (const preset of ['small', 'medium'] as const) checkShape(preset, generatePolicy(preset));
  });

  // How fast it is generated is the figure generate.large.ms (`npm run bench -- generate`), not an assertion here.
  test('large preset: sizes and structure', () => {
    const g = generatePolicy('large');
    checkShape('large', g);
    assert.equal(g.stats.bundles, 1000);
    assert.equal(g.stats.claims, 20_000);
    assert.match(describeInput(g), /^seed 239: 1,000 bundles .* 20,000 claims, 20,000 users × 30 labels, 1 cluster$/);
  });

  test('huge preset: large scaled to 10,000 bundles and 100,000 claims, one user per claim, Aptomi’s shape otherwise', () => {
    // Parameters and a scaled-down run only: generating 100,000 claims here would be the slowest unit test in the folder.
    const { huge, large } = PRESETS;
    assert.deepEqual(
      { bundles: huge.bundles, claims: huge.claims, users: huge.users },
      { bundles: 10_000, claims: 100_000, users: 100_000 },
    );
    assert.equal(huge.users / huge.claims, large.users / large.claims, 'same users per claim as large');
    const shape = ({ bundles: _b, claims: _c, users: _u, ...rest }: GeneratorParams) => rest;
    assert.deepEqual(shape(huge), shape(large));
    // The default run skips it; it is generated only when a benchmark asks for it by name.
    assert.deepEqual(PRESET_NAMES, ['small', 'medium', 'large']);
    assert.deepEqual([...HEAVY_PRESET_NAMES], ['huge']);
    // Its structure, on a hundredth of it (the generator's code paths do not depend on the sizes).
    const g = generatePolicy('huge', { bundles: 100, claims: 1_000, users: 1_000 });
    assert.equal(g.stats.bundles, 100);
    assert.equal(g.stats.claims, 1_000);
    assert.equal(g.stats.users, 1_000);
    assert.equal(g.stats.rules, 25);
    assert.ok(g.stats.longestChain <= huge.maxChain);
  });

  test('every generated object passes its kind’s schema', () => {
    for (const preset of ['small', 'medium'] as const) {
      for (const o of generatePolicy(preset).objects) {
        const r = KIND_SCHEMAS[o.kind].safeParse(o);
        assert.ok(r.success, `${o.kind} ${o.metadata.name}: ${r.error?.issues[0]?.message}`);
      }
    }
  });

  test('users share one frozen label map, as Aptomi’s users share one map', () => {
    const g = generatePolicy('small');
    assert.ok(g.users.every((u) => u.labels === g.users[0]!.labels));
    assert.ok(Object.isFrozen(g.users[0]!.labels));
  });

  test('emitted YAML loads back as the same policy and users', async () => {
    const g = generatePolicy('small');
    const dir = await mkdtemp(join(tmpdir(), 'keelson-bench-'));
    try {
      const emitted = await emitPolicy(dir, g);
      const loaded: unknown[] = [];
      for (const file of emitted.files.filter((f) => f !== emitted.usersFile)) {
        const r = loadObjects(await readFile(file, 'utf8'), file);
        assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), [], file);
        loaded.push(...r.objects.map((o) => o.spec));
      }
      const key = (o: unknown) => {
        const x = o as GeneratedObject;
        return `${x.kind}/${x.metadata.namespace}/${x.metadata.name}`;
      };
      const sort = (xs: unknown[]) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : 1));
      assert.deepEqual(sort(loaded), sort(g.objects));

      const users = parseUsers(await readFile(emitted.usersFile, 'utf8'), emitted.usersFile);
      assert.deepEqual(users.diagnostics.filter((d) => d.severity === 'error'), []);
      assert.equal(users.users.length, g.users.length);
      assert.deepEqual(users.users[7]?.labels, g.users[7]?.labels);
      assert.equal(users.users[7]?.domainAdmin, true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('bad parameters are refused', () => {
    assert.throws(() => generatePolicy('small', { bundles: 0 }), /bundles must be at least 1/);
    assert.throws(() => generatePolicy('small', { claims: 1.5 }), /non-negative integer/);
  });
});
