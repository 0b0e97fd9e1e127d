import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { beforeEach, describe, test } from 'node:test';
import { parseUsers } from '../engine/model/users';
import { resolvePolicy } from '../engine/resolve';
import { claimUsage, tenantUsage } from '../engine/plan/usage';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { PolicyService } from './policy';
import { ResolutionService } from './resolution';
import { InlineResolver, type Resolver } from '../resolver';

const users = parseUsers(readFileSync('corpus/aptomi/examples/common/users.yaml', 'utf8')).users;
// Sam's labels make him a domain admin under the demo's ACL rules.
const sam: Actor = { id: 'local:Sam', name: 'Sam', labels: users.find((u) => u.name === 'Sam')!.labels, provider: 'test' };

/** A resolver in this thread that records the operations asked of it. */
function recordingResolver() {
  const inline = new InlineResolver();
  const ops: string[] = [];
  const resolver: Resolver = { run: (req) => (ops.push(req.op), inline.run(req)), close: () => inline.close() };
  return { ops, resolver };
}

describe('resolution on the server', () => {
  let repos: Repos;
  let resolution: ResolutionService;
  let policy: PolicyService;
  beforeEach(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
    resolution = new ResolutionService(repos, async () => users);
    policy = new PolicyService(repos, (g) => resolution.schedule(g));
  });

  test('the demo policy: 6 claims, Carol rejected, 37 instances; stored once', async () => {
    const r = await resolution.get(sam);
    assert.equal(r.generation, 2);
    assert.deepEqual([r.claimsTotal, r.claimsResolved, r.claimsRejected, r.claimsError, r.instances], [6, 5, 1, 0, 37]);
    await resolution.stored();
    assert.ok(await repos.resolutions.get(2), 'stored');
    const first = await resolution.get(sam, 1);
    assert.deepEqual([first.claimsTotal, first.instances], [4, 29]);
  });

  test('a store failing because the database closed is not reported; any other failure is', async (t) => {
    const logged: string[] = [];
    t.mock.method(console, 'error', (m: string) => logged.push(String(m)));
    let failure: Error = new Error('Failed query: insert into "resolutions" …', { cause: new Error('PGlite is closed') });
    t.mock.method(repos.resolutions, 'put', async () => {
      throw failure;
    });
    await resolution.get(sam, 2);
    await resolution.stored();
    assert.deepEqual(logged, [], 'shutting down under a queued write is not an error');
    failure = new Error('Failed query: insert into "resolutions" …', { cause: new Error('disk full') });
    await resolution.get(sam, 1);
    await resolution.stored();
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /storing the resolution of generation 1 failed.*disk full/s);
  });

  test('a generation read again is served from memory, not read from storage anew', async () => {
    await resolution.get(sam, 2);
    let reads = 0;
    const stored = repos.resolutions.get.bind(repos.resolutions);
    repos.resolutions.get = (g) => {
      reads++;
      return stored(g);
    };
    const again = await resolution.get(sam, 2);
    await resolution.claim(sam, { namespace: 'social', name: 'carol_dev' });
    assert.equal(reads, 0);
    assert.equal(again.instances, 37);
    // Other generations are read from storage once each, then kept beside it.
    for (const g of [1, 0, 2, 1, 0]) await resolution.get(sam, g);
    assert.equal(reads, 2, 'generations 1 and 0 were each read once');
  });

  test("a claim's page data: its outcome with the decision trace", async () => {
    const { outcome } = await resolution.claim(sam, { namespace: 'social', name: 'carol_dev' });
    assert.equal(outcome.status, 'rejected');
    const rule = outcome.trace.find((s) => s.kind === 'rule' && s.data?.claim === 'reject');
    assert.equal(rule?.data?.rule, 'system/no_access_for_mobile_dev_users');
  });

  test('a generation that changes only claims is resolved incrementally and equals a full resolution', async () => {
    await resolution.get(sam); // warm the session at generation 2
    const text = (await repos.policy.getObject({ kind: 'claim', namespace: 'social', name: 'bob_dev' }))!.text.replace('demo11', 'demo99');
    const w = await policy.apply(sam, { text, baseGeneration: 2 });
    const r = await resolution.get(sam, w.generation);
    const objects = await repos.policy.listObjects({ generation: w.generation });
    const full = resolvePolicy({ objects: objects as never, users }, { trace: false });
    assert.deepEqual(r.state, full);
    const tweeviz = r.state.instances.find((i) => i.key === 'system#k8s-example#west#social#twitter_stats#dev#Bob#tweeviz')!;
    assert.equal((tweeviz.code!.params.image as { tag: string }).tag, 'v1.2.0-demo99');
  });

  test('many changed claims at once (read by name, not one by one) resolve incrementally to the full resolution', async () => {
    await resolution.get(sam);
    const text = Array.from({ length: 40 }, (_, i) => `kind: claim\nmetadata: {namespace: social, name: many_${i}}\nuser: Alice\nservice: twitter_stats\nlabels: {tsvisimage: m${i % 3}}\n`).join('---\n');
    const w = await policy.apply(sam, { text, baseGeneration: 2 });
    const r = await resolution.get(sam, w.generation);
    const full = resolvePolicy({ objects: (await repos.policy.listObjects({ generation: w.generation })) as never, users }, { trace: false });
    assert.deepEqual(r.state, full);
    assert.equal(r.state.claims.filter((c) => c.name.startsWith('many_')).length, 40);
  });

  test('anonymous callers may not read resolutions', async () => {
    await assert.rejects(resolution.get(null), /Sign in/);
  });
});

describe('placing a new claim on the warm session', () => {
  test('the state with the new claims is the full resolution’s, and the session is left as it was', async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    const { ops, resolver } = recordingResolver();
    const resolution = new ResolutionService(repos, async () => users, [], undefined, resolver);
    const policy = new PolicyService(repos, (g) => resolution.schedule(g));
    const head = await repos.policy.head();
    await resolution.get(sam, head); // warms the session at the head
    const claim = (name: string, tier: string) => ({ kind: 'claim' as const, namespace: 'social', name, spec: { user: 'Alice', service: 'twitter_stats', labels: { tsvisimage: tier } } as never });
    const added = [claim('probe_one', 'p1'), claim('probe_two', 'p2')];
    const objects = (await repos.policy.listObjects({ generation: head })).map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec }));
    const full = resolvePolicy({ objects: [...objects, ...added] as never, users });
    const probed = await resolution.withNewClaims(added);
    assert.deepEqual(
      probed.claims.map((c) => [c.name, c.status, c.instances.length]),
      full.claims.map((c) => [c.name, c.status, c.instances.length]),
    );
    assert.deepEqual(probed.instances.map((i) => i.key), full.instances.map((i) => i.key));
    assert.ok(probed.claims.some((c) => c.name === 'probe_one'));
    assert.deepEqual(ops, ['full', 'probe'], 'the warm session answered; the policy was not resolved again');
    // Nothing was written, and the next generation, resolved incrementally from the same session, does not hold the probed claims.
    await policy.apply(sam, { text: 'kind: claim\nmetadata: {namespace: social, name: real_one}\nuser: Alice\nservice: twitter_stats\n', baseGeneration: head, message: 'one' });
    const next = await resolution.get(sam, head + 1);
    assert.deepEqual(next.state.claims.map((c) => c.name).filter((n) => n.startsWith('probe_')), []);
    assert.ok(next.state.claims.some((c) => c.name === 'real_one'));
    const fresh = resolvePolicy({ objects: (await repos.policy.listObjects({ generation: head + 1 })).map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec })) as never, users });
    assert.deepEqual(next.state.instances.map((i) => i.key), fresh.instances.map((i) => i.key));
    // A claim that exists already is not probed (taking it out again would lose it): the draft answers.
    ops.length = 0;
    const again = await resolution.withNewClaims([claim('real_one', 'x')]);
    assert.deepEqual(ops, ['probe', 'draft']);
    assert.equal(again.claims.filter((c) => c.name === 'real_one').length, 1);
    const after = await resolution.get(sam, head + 1);
    assert.ok(after.state.claims.some((c) => c.name === 'real_one'));
  });
});

describe('measuring a new claim on the warm session', () => {
  test('only the figures cross back from the resolver, and they are those of the full resolution; off the session, of a draft', async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    const inline = new InlineResolver();
    const ops: string[] = [];
    const answers: unknown[] = [];
    const resolver: Resolver = {
      run: async (req) => {
        ops.push(req.op);
        const a = await inline.run(req);
        answers.push(a);
        return a;
      },
      close: () => inline.close(),
    };
    const resolution = new ResolutionService(repos, async () => users, [], undefined, resolver);
    const head = await repos.policy.head();
    await resolution.get(sam, head);
    const added = [{ kind: 'claim' as const, namespace: 'social', name: 'measured', spec: { user: 'Alice', service: 'twitter_stats', labels: { tsvisimage: 'm1' } } as never }];
    const objects = (await repos.policy.listObjects({ generation: head })).map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec }));
    const full = resolvePolicy({ objects: [...objects, ...added] as never, users });
    const clusterOf = full.instances.find((i) => i.claims.includes('social/measured'))!.target;
    const ask = { namespaces: ['social'], cluster: `${clusterOf.clusterNamespace}/${clusterOf.cluster}`, k8sNamespace: null };
    ops.length = 0;
    answers.length = 0;
    const m = await resolution.measureWithNewClaims(added, { usage: [ask], claims: ['social/measured'] });
    assert.deepEqual(ops, ['probeMeasure']);
    assert.ok(!JSON.stringify(answers).includes('"instances":['), 'no state came back, only figures');
    assert.deepEqual(m, { usage: [tenantUsage(full, ask)], claims: [claimUsage(full, 'social/measured')] });
    assert.ok(m.claims[0]!.instances > 0 && m.usage[0]!.services >= 1);
    // A claim that exists already cannot be probed: a draft of the whole policy is measured here instead.
    ops.length = 0;
    const existing = objects.find((o) => o.kind === 'claim')!;
    const again = await resolution.measureWithNewClaims([existing as never], { usage: [ask], claims: [] });
    assert.deepEqual(ops, ['probeMeasure', 'draft']);
    const draft = resolvePolicy({ objects: [...objects, existing] as never, users });
    assert.deepEqual(again.usage, [tenantUsage(draft, ask)]);
  });
});

describe('reads while the newest generation resolves', () => {
  test('readers get the newest resolved state at once; a writer waits for its own write; a new claim is waited for', async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    const inline = new InlineResolver();
    let hold: Promise<void> | undefined;
    const resolver: Resolver = {
      run: async (req) => {
        if (hold && (req.op === 'update' || req.op === 'full')) await hold;
        return inline.run(req);
      },
      close: () => inline.close(),
    };
    const resolution = new ResolutionService(repos, async () => users, [], undefined, resolver);
    const head = await repos.policy.head();
    await resolution.get(sam, head);
    let release!: () => void;
    hold = new Promise((r) => (release = r));
    const alice: Actor = { id: 'local:Alice', name: 'Alice', labels: users.find((u) => u.name === 'Alice')!.labels, provider: 'test' };
    const policy = new PolicyService(repos, (g, o) => resolution.schedule(g, o.author?.id));
    await policy.apply(alice, { text: 'kind: claim\nmetadata: {namespace: social, name: alice_new}\nuser: Alice\nservice: twitter_stats\n', baseGeneration: head, message: 'new' });
    assert.equal(await repos.policy.head(), head + 1);
    // Sam did not write: he is served the resolved generation without waiting.
    const served = await resolution.get(sam);
    assert.equal(served.generation, head);
    // Alice wrote generation head+1: her read waits for it.
    let aliceRead: number | undefined;
    const pending = resolution.get(alice).then((v) => (aliceRead = v.generation));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(aliceRead, undefined, 'the writer waits for her own generation');
    // Sam asks for the new claim itself: not in the resolved state, so he waits for the newest too.
    const claim = resolution.claim(sam, { namespace: 'social', name: 'alice_new' });
    release();
    await pending;
    assert.equal(aliceRead, head + 1);
    assert.equal((await claim).generation, head + 1);
    // Once resolved, everybody reads the newest.
    assert.equal((await resolution.get(sam)).generation, head + 1);
  });
});

describe('a generation another console wrote', () => {
  const claimText = (name: string, tier: string) => `kind: claim\nmetadata: {namespace: social, name: ${name}}\nuser: Alice\nservice: twitter_stats\nlabels: {tsvisimage: ${tier}}\n`;

  async function twoConsoles() {
    const repos = memoryRepos();
    await seedDemo(repos);
    const { ops, resolver } = recordingResolver();
    const here = new ResolutionService(repos, async () => users, [], undefined, resolver);
    const herePolicy = new PolicyService(repos, (g) => here.schedule(g));
    // The other console: its own resolution service, writing to the same database.
    const there = new ResolutionService(repos, async () => users);
    const therePolicy = new PolicyService(repos, (g) => there.schedule(g));
    return { repos, ops, here, herePolicy, there, therePolicy };
  }

  test('admission moves the warm session on by the changes and measures there; the state is then read from that session, not resolved again', async () => {
    const { repos, ops, here, therePolicy } = await twoConsoles();
    const head = await repos.policy.head();
    await here.get(sam, head); // warm here at the head
    const w = await therePolicy.apply(sam, { text: claimText('written_there', 't1'), baseGeneration: head });
    const added = [{ kind: 'claim' as const, namespace: 'social', name: 'placed_here', spec: { user: 'Alice', service: 'twitter_stats', labels: { tsvisimage: 'p1' } } as never }];
    const objects = (await repos.policy.listObjects({ generation: w.generation })).map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec }));
    const full = resolvePolicy({ objects: [...objects, ...added] as never, users });
    const target = full.instances.find((i) => i.claims.includes('social/placed_here'))!.target;
    const ask = { namespaces: ['social'], cluster: `${target.clusterNamespace}/${target.cluster}`, k8sNamespace: null };
    ops.length = 0;
    const m = await here.measureWithNewClaims(added, { usage: [ask], claims: ['social/placed_here'] });
    assert.deepEqual(ops, ['advance', 'probeMeasure'], 'moved on by the one change, then probed: no draft of the whole policy');
    assert.deepEqual(m, { usage: [tenantUsage(full, ask)], claims: [claimUsage(full, 'social/placed_here')] });
    assert.ok(m.usage[0]!.services >= 1);
    ops.length = 0;
    const view = await here.get(sam, w.generation);
    assert.deepEqual(ops, ['state'], 'the session holds that generation already');
    assert.deepEqual(view.state, resolvePolicy({ objects: objects as never, users }, { trace: false }));
    assert.ok(!view.state.claims.some((c) => c.name === 'placed_here'), 'the probed claim went out again');
  });

  test('a generation far past the warm session is read as another console stored it, not moved to change by change', async () => {
    const { repos, ops, here, there, therePolicy } = await twoConsoles();
    let head = await repos.policy.head();
    await here.get(sam, head);
    for (let i = 0; i < 9; i++) head = (await therePolicy.apply(sam, { text: claimText(`far${i}`, `x${i}`), baseGeneration: head })).generation;
    await there.get(sam, head);
    await there.stored();
    ops.length = 0;
    const view = await here.get(sam, head);
    assert.deepEqual(ops, [], 'nine generations on: the stored row, nothing run on the resolver thread');
    assert.equal(view.generation, head);
    assert.ok(view.state.claims.some((c) => c.name === 'far8'));
  });

  test('a probe waits for a generation still resolving here, then moves the session on: no draft, nothing resolved in full', async () => {
    const { repos, ops, here, herePolicy } = await twoConsoles();
    let head = await repos.policy.head();
    await here.get(sam, head);
    const first = await herePolicy.apply(sam, { text: claimText('first', 'f1'), baseGeneration: head });
    await here.get(sam, first.generation);
    head = first.generation;
    // The next generation's resolution is held at its read of the generations to move by (as a slow database would hold it)…
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const list = repos.policy.listGenerations.bind(repos.policy);
    const second = await new PolicyService(repos).apply(sam, { text: claimText('second', 's1'), baseGeneration: head });
    repos.policy.listGenerations = async (o) => (o?.before === second.generation + 1 ? (await held, list(o)) : list(o));
    const resolving = here.ensure(second.generation);
    // …while a third is written and a service placed on it.
    const third = await new PolicyService(repos).apply(sam, { text: claimText('third', 't1'), baseGeneration: second.generation });
    ops.length = 0;
    const added = [{ kind: 'claim' as const, namespace: 'social', name: 'placed', spec: { user: 'Alice', service: 'twitter_stats', labels: { tsvisimage: 'p1' } } as never }];
    const probing = here.measureWithNewClaims(added, { usage: [], claims: ['social/placed'] });
    // The session cannot pass the generation resolving: the probe waits for it (a draft of the whole policy cost far more).
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(ops.length, 0, 'nothing ran while the second generation was held');
    release();
    const measured = await probing;
    await resolving;
    assert.deepEqual(measured.claims.length, 1);
    assert.ok(!ops.includes('draft'), `no draft of the whole policy: ${ops.join(', ')}`);
    assert.ok(ops.includes('probeMeasure'), `probed on the session: ${ops.join(', ')}`);
    await here.get(sam, third.generation);
    assert.ok(!ops.includes('full'), `every generation resolved from the session: ${ops.join(', ')}`);
  });

  test("a resolution the writing console stored already is not stored again; one it has not stored is; one's own are stored without asking", async () => {
    const { repos, here, herePolicy, there, therePolicy } = await twoConsoles();
    const puts: number[] = [];
    const put = repos.resolutions.put.bind(repos.resolutions);
    repos.resolutions.put = (r) => (puts.push(r.generation), put(r));
    const has = repos.resolutions.has.bind(repos.resolutions);
    const asked: number[] = [];
    repos.resolutions.has = (g) => (asked.push(g), has(g));
    let head = await repos.policy.head();
    await here.get(sam, head);
    await here.stored();
    // Written and stored there; read here by a reader arriving before the stored row (it resolves it itself).
    const stored = await therePolicy.apply(sam, { text: claimText('stored_there', 's1'), baseGeneration: head });
    let reads = 0;
    const get = repos.resolutions.get.bind(repos.resolutions);
    repos.resolutions.get = (g) => (reads++, g === stored.generation ? Promise.resolve(undefined) : get(g));
    await there.get(sam, stored.generation);
    await there.stored();
    puts.length = 0;
    asked.length = 0;
    reads = 0;
    await here.get(sam, stored.generation);
    await here.stored();
    assert.deepEqual(asked, [stored.generation]);
    assert.deepEqual(puts, [], 'the row is there: the state is not sent again');
    assert.equal(reads, 0, 'one generation past the warm session: moved on from there, the stored row not read and parsed');
    // Written there, never resolved there (that console stopped): stored here.
    head = stored.generation;
    const orphan = await therePolicy.apply(sam, { text: claimText('orphan', 'o1'), baseGeneration: head });
    await here.get(sam, orphan.generation);
    await here.stored();
    assert.deepEqual(puts, [orphan.generation]);
    assert.ok(await has(orphan.generation));
    // Written here: stored without asking first.
    asked.length = 0;
    puts.length = 0;
    const mine = await herePolicy.apply(sam, { text: claimText('mine', 'm1'), baseGeneration: orphan.generation });
    await here.get(sam, mine.generation);
    await here.stored();
    assert.deepEqual([asked, puts], [[], [mine.generation]]);
  });
});
