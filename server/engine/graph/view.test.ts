/**
 * The budgeted desired-state graph (engine/graph/view.ts): a small graph comes
 * back exactly as the engine made it; a 20,000-instance one fits 2 MB, its
 * buckets open into smaller ones and then into their members, and every
 * instance is reachable that way.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { generatePolicy, toPolicyInput } from '../../../bench/generator';
import { applyBudget } from '../../../components/graph/budget';
import { openBucket } from '../../../components/graph/model';
import type { ServerModel } from '../../../components/graph/types';
import { desiredGraph, type GraphModel } from './index';
import { resolvePolicy } from '../resolve';
import { budgetView, decodeView, DRILL_PAGE, drillView, jsonBytes, VIEW_DEFAULT_BUDGET } from './view';

/** The bench's 20,000-instance input (bench/graph.bench.ts): seed 239, 2,700 bundles, 20,000 claims; every 800th instance failed. */
function big(): GraphModel {
  const state = resolvePolicy(toPolicyInput(generatePolicy('large', { bundles: 2700, claims: 20_000, users: 2000 })), { trace: false });
  const actual = new Map(state.instances.map((i, k) => [i.key, { status: k % 800 === 799 ? 'failed' : 'applied', revisionId: 1 }]));
  return desiredGraph(state, { actual });
}

describe('budgeted desired-state graph', () => {
  let model: GraphModel;
  before(() => {
    model = big();
  });

  test('a graph within the budget comes back as the engine made it', () => {
    const small: GraphModel = { nodes: model.nodes.slice(0, 300), edges: [], groups: model.groups };
    const ids = new Set(small.nodes.map((n) => n.id));
    small.edges = model.edges.filter((e) => ids.has(e.source) && ids.has(e.target));
    const v = budgetView(small);
    assert.equal(v.sent, 300);
    assert.deepEqual(v.graph.b, []);
    const back = decodeView(v.graph);
    assert.deepEqual({ nodes: back.nodes, edges: back.edges, groups: back.groups }, small);
  });

  test('20,000 instances: ≤ 2 MB, problems first, the rest counted in a bucket per group', () => {
    assert.ok(model.nodes.length >= 20_000, `${model.nodes.length} instances`);
    const full = jsonBytes({ generation: 1, ...model });
    const v = budgetView(model);
    const bytes = jsonBytes({ generation: 1, ...v });
    assert.ok(bytes <= 2_000_000, `${bytes} bytes`);
    assert.ok(bytes < full / 10, `${bytes} of ${full}`);
    assert.equal(v.sent, VIEW_DEFAULT_BUDGET);
    assert.equal(v.total, model.nodes.length);
    const view = decodeView(v.graph);
    const problems = model.nodes.filter((n) => n.problem).map((n) => n.id);
    assert.ok(problems.length > 0);
    for (const id of problems) assert.ok(view.nodes.some((n) => n.id === id), `problem ${id} sent`);
    assert.equal(view.remote.reduce((s, b) => s + b.count, 0) + view.nodes.length, model.nodes.length);
    // The browser draws it: the sent nodes and one grey bucket per group.
    const drawn = applyBudget(view, { budget: VIEW_DEFAULT_BUDGET });
    assert.equal(drawn.nodes.length, VIEW_DEFAULT_BUDGET);
    assert.equal(drawn.total, model.nodes.length);
    assert.ok(drawn.buckets.every((b) => b.remote));
  });

  test('a tighter byte limit shrinks the budget rather than break it', () => {
    const v = budgetView(model, { maxBytes: 200_000 });
    assert.ok(jsonBytes(v.graph) <= 200_000);
    assert.ok(v.budget < VIEW_DEFAULT_BUDGET && v.sent === v.budget);
  });

  test('drilling into a group returns smaller groups, then its members, each answer bounded', () => {
    const v = budgetView(model);
    let m: ServerModel = { ...decodeView(v.graph), origin: {} };
    const top = m.remote![0]!;
    const first = drillView(model, { budget: v.budget, bucket: top.id });
    assert.equal(first.n.length, 0);
    assert.ok(first.b.length > 1 && first.b.length <= 24);
    assert.equal(first.b.reduce((s, b) => s + b.count, 0), top.count);
    m = openBucket(m, top.id, decodeView(first));
    // Down to members.
    let bucket = m.remote![0]!;
    for (let depth = 0; depth < 5 && bucket.count > DRILL_PAGE; depth++) {
      const a = drillView(model, { budget: v.budget, bucket: bucket.id });
      m = openBucket(m, bucket.id, decodeView(a));
      bucket = decodeView(a).remote[0]!;
    }
    assert.ok(bucket.count <= DRILL_PAGE);
    const members = drillView(model, { budget: v.budget, bucket: bucket.id });
    assert.ok(jsonBytes(members) <= 2_000_000);
    const got = decodeView(members);
    assert.equal(got.nodes.length, bucket.count);
    assert.deepEqual(got.remote, []);
    // Members are the engine's nodes, exactly.
    const byId = new Map(model.nodes.map((n) => [n.id, n]));
    for (const n of got.nodes) assert.deepEqual(n, byId.get(n.id));
    const before = m.nodes.length;
    m = openBucket(m, bucket.id, got);
    assert.equal(m.nodes.length, before + bucket.count);
    assert.ok(!m.remote!.some((b) => b.id === bucket.id));
    // Their edges come along: within the members and to nodes already drawn.
    const known = new Set(m.nodes.map((n) => n.id));
    const expected = model.edges.filter((e) => got.nodes.some((n) => n.id === e.source || n.id === e.target) && known.has(e.source) && known.has(e.target));
    for (const e of expected) assert.ok(m.edges.some((x) => x.id === e.id), `edge ${e.id}`);
  });

  test('a bucket no view made is refused', () => {
    assert.throws(() => drillView(model, { budget: 2000, bucket: 'bucket:remote:nowhere@0-5' }), /No bucket/);
    assert.throws(() => drillView(model, { budget: 2000, bucket: 'bucket:target:x' }), /No bucket/);
  });
});
