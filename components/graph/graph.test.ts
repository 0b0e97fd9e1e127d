/**
 * The graph views' pure parts on the seeded demo (twitter-analytics at
 * generation 1) and on synthetic sizes: filters, comparison, search, the
 * node budget and both layout engines.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import ELK from 'elkjs/lib/elk.bundled.js';
import { parseUsers } from '@/server/engine/model/users';
import { memoryRepos } from '@/server/repo/memory';
import { seedDemo } from '@/server/seed/demo';
import type { Actor } from '@/server/services/actor';
import { AccessService } from '@/server/services/access';
import { GraphService } from '@/server/services/graphs';
import { ResolutionService } from '@/server/services/resolution';
import { applyBudget, EXPAND_MAX } from './budget';
import { toFlow, toLayoutRequest } from './flow';
import { LayoutCancelled, LayoutClient, setLayoutWorkerFactory } from './layout-client';
import { assemble, elkGroupGraph, groupSizes, quickLayout, readElkGroup, splitByGroup, type ElkInput } from './layout-core';
import { compareModels, filterModel, searchNodes } from './model';
import { NO_FILTERS, type GraphModel, type GraphNode, type LayoutRequest } from './types';

const sam: Actor = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' };
let policy1: GraphModel;
let desired1: GraphModel;
let policy2: GraphModel;
let claimUsers: Map<string, string>;

before(async () => {
  const users = parseUsers(readFileSync('corpus/aptomi/examples/common/users.yaml', 'utf8')).users;
  const repos = memoryRepos();
  await seedDemo(repos);
  const resolution = new ResolutionService(repos, async () => users);
  const graphs = new GraphService(repos, resolution, new AccessService(repos, []));
  policy1 = await graphs.policy(sam, { generation: 1 });
  policy2 = await graphs.policy(sam, { generation: 2 });
  desired1 = await graphs.desired(sam, { generation: 1 });
  claimUsers = new Map(policy2.nodes.flatMap((n) => (n.kind === 'claim' ? [[`${n.namespace}/${n.name}`, n.user] as const] : [])));
});

/** A synthetic desired-state-like model: chains of 8 instances, `n` nodes in one group. */
function synthetic(n: number, problems: number[] = []): GraphModel {
  const nodes: GraphNode[] = [];
  const edges: GraphModel['edges'] = [];
  for (let i = 0; i < n; i++) {
    const svc = `service-${Math.floor(i / 8)}`;
    nodes.push({
      id: `instance:${i}`,
      kind: 'instance',
      label: `component-${i % 8}`,
      group: 'target:system/c/main',
      key: String(i),
      deployName: `a-${i}`,
      namespace: 'main',
      owner: svc,
      source: 'aptomi',
      component: `component-${i % 8}`,
      cluster: 'c',
      k8sNamespace: 'main',
      code: 'helm',
      claims: ['main/claim-1'],
      ...(problems.includes(i) ? { problem: true, error: 'boom' } : {}),
    });
    if (i % 8 !== 0) edges.push({ id: `depends:${i - (i % 8)}->${i}`, source: `instance:${i - (i % 8)}`, target: `instance:${i}`, kind: 'depends' });
  }
  return { nodes, edges, groups: [{ id: 'target:system/c/main', label: 'c / main', kind: 'target' }] };
}

describe('filters and comparison', () => {
  test('the demo at generation 1: 29 instances, Carol’s claim rejected', () => {
    assert.equal(desired1.nodes.filter((n) => n.kind === 'instance').length, 29);
    const carol = policy1.nodes.find((n) => n.id === 'claim:social/carol_dev');
    assert.equal(carol?.kind === 'claim' && carol.status, 'rejected');
    assert.equal(carol?.problem, true);
  });

  test('namespace platform keeps only platform nodes', () => {
    const d = filterModel(desired1, { ...NO_FILTERS, namespace: 'platform' }, { claimUsers });
    assert.equal(d.nodes.length, 14);
    assert.ok(d.nodes.every((n) => n.kind === 'instance' && n.namespace === 'platform'));
    assert.ok(d.edges.every((e) => d.nodes.some((n) => n.id === e.source) && d.nodes.some((n) => n.id === e.target)));
    const p = filterModel(policy1, { ...NO_FILTERS, namespace: 'platform' }, { claimUsers });
    assert.ok(p.nodes.every((n) => n.kind !== 'user' && n.namespace === 'platform'));
    assert.deepEqual(p.groups.map((g) => g.id), ['ns:platform']);
  });

  test('a claim keeps its subtree and owner; a user their claims’ subtrees', () => {
    const p = filterModel(policy1, { ...NO_FILTERS, claim: 'social/alice_dev' }, { claimUsers });
    const ids = new Set(p.nodes.map((n) => n.id));
    assert.ok(ids.has('claim:social/alice_dev') && ids.has('user:alice') && ids.has('service:social/twitter_stats') && ids.has('component:platform/kafka/zookeeper'));
    assert.ok(!ids.has('claim:social/bob_dev'));
    const d = filterModel(desired1, { ...NO_FILTERS, user: 'Bob' }, { claimUsers });
    assert.ok(d.nodes.length > 0 && d.nodes.every((n) => n.kind === 'instance' && n.claims.includes('social/bob_dev')));
  });

  test('status filters: rejected claims, and no filter returns the very same model', () => {
    const p = filterModel(policy1, { ...NO_FILTERS, status: 'rejected' }, { claimUsers });
    assert.deepEqual(p.nodes.map((n) => n.id), ['claim:social/carol_dev']);
    assert.equal(filterModel(policy1, NO_FILTERS, { claimUsers }), policy1);
  });

  test('comparing generation 1 with 2: guestbook added, nothing removed, twitter unchanged', () => {
    const c = compareModels(policy1, policy2);
    const by = (o: string) => c.nodes.filter((n) => n.overlay === o);
    assert.ok(by('added').some((n) => n.id.includes('guestbook')));
    assert.equal(by('removed').length, 0);
    assert.ok(by('unchanged').some((n) => n.id === 'bundle:social/twitter_stats'));
    const back = compareModels(policy2, policy1);
    assert.ok(back.nodes.filter((n) => n.overlay === 'removed').some((n) => n.id.includes('guestbook')));
    assert.ok(back.edges.every((e) => back.nodes.some((n) => n.id === e.source)));
  });

  test('search ranks exact and prefix label matches first', () => {
    const hits = searchNodes(desired1.nodes, 'zookeeper');
    assert.ok(hits.length >= 3);
    // Instances are labelled with their display name; its last part (the component) counts as the label.
    assert.match(hits[0]!.label, /(^| · )zookeeper$/);
    assert.deepEqual(searchNodes(desired1.nodes, '  '), []);
  });
});

describe('node budget', () => {
  test('within the budget nothing is folded', () => {
    const g = applyBudget(desired1, { budget: 200 });
    assert.equal(g.nodes.length, 29);
    assert.equal(g.buckets.length, 0);
    assert.equal(g.edges.length, desired1.edges.length);
  });

  test('over the budget: problems first, the rest counted in buckets, edges rerouted', () => {
    const m = synthetic(20_000, [19_999, 12_345]);
    const g = applyBudget(m, { budget: 2000 });
    assert.equal(g.nodes.length, 2000);
    assert.equal(g.hidden, 18_000);
    assert.equal(g.total, 20_000);
    assert.ok(g.nodes.some((n) => n.id === 'instance:19999') && g.nodes.some((n) => n.id === 'instance:12345'));
    // The problem's chain head is its neighbour: shown too.
    assert.ok(g.nodes.some((n) => n.id === 'instance:19992'));
    assert.equal(g.buckets.length, 1);
    assert.equal(g.buckets[0]!.count, 18_000);
    const ends = new Set([...g.nodes.map((n) => n.id), ...g.buckets.map((b) => b.id)]);
    assert.ok(g.edges.every((e) => ends.has(e.source) && ends.has(e.target) && e.source !== e.target));
  });

  test('expanding splits big buckets, then reveals small ones; pinned nodes are always shown', () => {
    const m = synthetic(20_000);
    const first = applyBudget(m, { budget: 2000 });
    const root = first.buckets[0]!.id;
    const split = applyBudget(m, { budget: 2000, expanded: new Set([root]) });
    assert.ok(split.buckets.length > 1 && split.buckets.length <= 24);
    assert.equal(split.hidden, 18_000);
    let g = split;
    const opened = new Set([root]);
    while (g.buckets[0]!.count > EXPAND_MAX) {
      opened.add(g.buckets[0]!.id);
      g = applyBudget(m, { budget: 2000, expanded: opened });
    }
    const small = g.buckets[0]!;
    opened.add(small.id);
    const after = applyBudget(m, { budget: 2000, expanded: opened });
    assert.equal(after.nodes.length, 2000 + small.count);
    const pinned = applyBudget(m, { budget: 200, pinned: new Set(['instance:15000']) });
    assert.ok(pinned.nodes.some((n) => n.id === 'instance:15000'));
  });
});

describe('layout', () => {
  const check = (req: LayoutRequest, positions: Float64Array, groups: { id: string; width: number; height: number }[]) => {
    const box = new Map(groups.map((g) => [g.id, g]));
    req.nodes.forEach((n, i) => {
      const x = positions[i * 2]!;
      const y = positions[i * 2 + 1]!;
      const g = box.get(n.group)!;
      assert.ok(x >= 0 && y >= 0 && x + n.width <= g.width + 0.5 && y + n.height <= g.height + 0.5, `${n.id} inside its group`);
    });
  };

  test('quick layout: every node inside its group, no two overlapping, edges point right', () => {
    const req = toLayoutRequest(applyBudget(desired1, { budget: 200 }));
    const r = quickLayout(req);
    check(req, r.positions, r.groups);
    const abs = req.nodes.map((n, i) => {
      const g = r.groups.find((b) => b.id === n.group)!;
      return { x: g.x + r.positions[i * 2]!, y: g.y + r.positions[i * 2 + 1]!, w: n.width, h: n.height };
    });
    for (let i = 0; i < abs.length; i++)
      for (let j = i + 1; j < abs.length; j++) {
        const a = abs[i]!;
        const b = abs[j]!;
        assert.ok(a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y, `${req.nodes[i]!.id} overlaps ${req.nodes[j]!.id}`);
      }
    const index = new Map(req.nodes.map((n, i) => [n.id, i]));
    for (const e of desired1.edges) {
      const a = index.get(e.source)!;
      const b = index.get(e.target)!;
      if (req.nodes[a]!.group === req.nodes[b]!.group) assert.ok(r.positions[a * 2]! < r.positions[b * 2]!, `${e.id} goes right`);
    }
  });

  // How fast is the figure graph.2000.quick_layout_ms (`npm run bench -- graph`), not an assertion here.
  test('quick layout of 2,000 nodes places every node apart and survives cycles', () => {
    const m = synthetic(2000);
    m.edges.push({ id: 'cycle', source: 'instance:7', target: 'instance:0', kind: 'depends' });
    const req = toLayoutRequest(applyBudget(m, { budget: 2000 }));
    const r = quickLayout(req);
    check(req, r.positions, r.groups);
  });

  test('ELK per group (as the worker runs it) gives positions inside the groups; the policy groups go users → social → platform', async () => {
    const req = toLayoutRequest(applyBudget(policy1, { budget: 200 }));
    const split = splitByGroup(req);
    const elk = new ELK();
    const contents = [];
    for (let g = 0; g < split.members.length; g++) {
      const { widths, heights } = groupSizes(req, split.members[g]!);
      contents.push(readElkGroup((await elk.layout(elkGroupGraph(widths, heights, split.intra[g]!) as never)) as unknown as ElkInput));
    }
    const r = assemble(req, split, contents, 'elk', 0);
    check(req, r.positions, r.groups);
    const x = (id: string) => r.groups.find((b) => b.id === id)!.x;
    assert.ok(x('users') < x('ns:social') && x('ns:social') < x('ns:platform'));
    const flow = toFlow(applyBudget(policy1, { budget: 200 }), req, r);
    assert.equal(flow.nodes.filter((n) => n.type === 'scope').length, 3);
    assert.equal(flow.nodes.find((n) => n.id === 'claim:social/carol_dev')?.domAttributes?.['data-status' as never], 'rejected');
  });
});

describe('layout client', () => {
  /** A worker that answers only when told to, and records what happened to it. */
  class FakeWorker {
    static made: FakeWorker[] = [];
    onmessage: ((ev: { data: unknown }) => void) | null = null;
    onerror: ((ev: unknown) => void) | null = null;
    posted: { id: number }[] = [];
    terminated = false;
    constructor() {
      FakeWorker.made.push(this);
    }
    postMessage(m: { id: number }) {
      this.posted.push(m);
    }
    terminate() {
      this.terminated = true;
    }
    reply(data: unknown) {
      this.onmessage?.({ data });
    }
  }

  test('a new request supersedes a running one: the busy worker is terminated, the old promise rejects, late replies are ignored', async () => {
    const g = globalThis as { Worker?: unknown };
    const had = g.Worker;
    g.Worker = FakeWorker;
    setLayoutWorkerFactory(() => new FakeWorker() as unknown as Worker);
    try {
      const client = new LayoutClient();
      const req = toLayoutRequest(applyBudget(desired1, { budget: 200 }));
      const first = client.run(req);
      const w1 = FakeWorker.made.at(-1)!;
      const progress: number[] = [];
      const second = client.run(req, (done) => progress.push(done));
      await assert.rejects(first, LayoutCancelled);
      assert.equal(w1.terminated, true);
      const w2 = FakeWorker.made.at(-1)!;
      assert.notEqual(w2, w1);
      const id = w2.posted[0]!.id;
      const result = { ...quickLayout(req), engine: 'elk' as const };
      w2.reply({ id: id - 1, type: 'result', result: { ...result, engine: 'quick' } }); // a stale reply
      w2.reply({ id, type: 'progress', done: 10, total: 29 });
      w2.reply({ id, type: 'result', result });
      assert.equal((await second).engine, 'elk');
      assert.deepEqual(progress, [10]);
      client.dispose();
      assert.equal(w2.terminated, true);
    } finally {
      g.Worker = had;
    }
  });
});
