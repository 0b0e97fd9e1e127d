/**
 * Readable at first sight: level-of-detail labels, which namespaces start
 * folded, folding one into a summary node, the first view's area, the
 * refit when the side panel narrows the canvas, and each node's object.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyBudget } from './budget';
import { toFlow, toLayoutRequest } from './flow';
import { foldGroups, foldId } from './fold';
import { quickLayout } from './layout-core';
import { nodeObject } from './node-object';
import { FULL_LABELS_FROM, firstView, initialCollapsed, LABEL_PX, labelAt, lodFor, MIN_FIRST_ZOOM, MIN_LABEL_PX, refitAfterResize, relevantNodes, titleWidth, type Rect } from './readable';
import type { GraphGroup, GraphModel, GraphNode } from './types';

function instance(i: number, group: string, extra: Partial<Extract<GraphNode, { kind: 'instance' }>> = {}): GraphNode {
  return {
    id: `instance:${group}:${i}`,
    kind: 'instance',
    label: `component-${i}`,
    group,
    key: `${group}#${i}`,
    deployName: `a-${i}`,
    namespace: 'main',
    owner: 'web',
    source: 'aptomi',
    component: `component-${i}`,
    cluster: 'c',
    k8sNamespace: group,
    code: null,
    claims: ['main/web'],
    ...extra,
  } as GraphNode;
}

/** Groups of the given sizes; each group a chain, and the first node of each group linked to the next group's. */
function model(sizes: number[], patch: (n: GraphNode) => GraphNode = (n) => n): GraphModel {
  const groups: GraphGroup[] = sizes.map((_, g) => ({ id: `target:g${g}`, label: `cluster-${g}/ns-${g}`, kind: 'target' }));
  const nodes: GraphNode[] = [];
  const edges: GraphModel['edges'] = [];
  sizes.forEach((size, g) => {
    for (let i = 0; i < size; i++) {
      nodes.push(patch(instance(i, groups[g]!.id)));
      if (i > 0) edges.push({ id: `e:${g}:${i}`, source: `instance:${groups[g]!.id}:${i - 1}`, target: `instance:${groups[g]!.id}:${i}`, kind: 'depends' });
    }
    if (g > 0) edges.push({ id: `x:${g}`, source: `instance:${groups[g - 1]!.id}:0`, target: `instance:${groups[g]!.id}:0`, kind: 'consumes' });
  });
  return { nodes, edges, groups };
}

describe('level of detail', () => {
  test('a label is 12 px or more on screen at every zoom the first view can choose: full labels from 12/13, short ones (20 px) down to 0.6', () => {
    assert.equal(lodFor(1), 'full');
    assert.equal(lodFor(FULL_LABELS_FROM), 'full');
    assert.equal(lodFor(FULL_LABELS_FROM - 0.01), 'short');
    assert.equal(lodFor(MIN_FIRST_ZOOM), 'short');
    for (let zoom = MIN_FIRST_ZOOM; zoom <= 1.1; zoom += 0.01) {
      assert.ok(LABEL_PX[lodFor(zoom)] * zoom >= MIN_LABEL_PX - 1e-9, `zoom ${zoom.toFixed(2)}`);
    }
  });

  test('short names: the last part of a path, shortened in the middle (start and end kept) when two lines of the node cannot hold it', () => {
    assert.equal(labelAt('platform/zookeeper', 'full', 210), 'platform/zookeeper');
    assert.equal(labelAt('platform/zookeeper', 'short', 210), 'zookeeper');
    assert.equal(labelAt('system#k8s#east#kafka', 'short', 210), 'kafka');
    const long = 'an_exceedingly_long_component_name_that_never_fits_in_a_node';
    const short = labelAt(long, 'short', 210);
    assert.ok(short.length < long.length && short.includes('…'));
    assert.ok(short.startsWith('an_exceed') && short.endsWith('_a_node'), short);
  });

  test('a namespace box is at least as wide as its title, so no title is cut ("k8…")', () => {
    const m = model([1]);
    const req = toLayoutRequest(applyBudget(m, { budget: 100 }));
    const layout = quickLayout(req);
    const box = layout.groups[0]!;
    assert.ok(box.width >= titleWidth(m.groups[0]!), `${box.width} ≥ ${titleWidth(m.groups[0]!)}`);
    // A longer title makes a wider box, though the content is the same single node.
    const wide = { ...m, groups: [{ ...m.groups[0]!, label: 'a-cluster-with-a-long-name/and-a-long-namespace' }] };
    assert.ok(quickLayout(toLayoutRequest(applyBudget(wide, { budget: 100 }))).groups[0]!.width > box.width);
  });
});

describe('folding namespaces', () => {
  test('big namespaces start folded, except the one holding the most relevant node, small ones and the users', () => {
    const m = model([60, 10, 50]);
    assert.deepEqual([...initialCollapsed(m, null, 40)], ['target:g0', 'target:g2']);
    // The selected node's namespace stays open.
    assert.deepEqual([...initialCollapsed(m, 'instance:target:g2:5', 40)], ['target:g0']);
    // So does the first change's.
    const changed = model([60, 10, 50], (n) => (n.id === 'instance:target:g0:7' ? { ...n, overlay: 'added' } : n));
    assert.deepEqual([...initialCollapsed(changed, null, 40)], ['target:g2']);
    // A graph of one namespace is never folded away.
    assert.equal(initialCollapsed(model([500]), null, 40).size, 0);
  });

  test('a folded namespace is one summary node with its name and counts; edges to it are merged and counted; other namespaces are untouched', () => {
    const m = model([5, 3], (n) => (n.id === 'instance:target:g0:2' ? { ...n, problem: true } : n));
    const folded = foldGroups(applyBudget(m, { budget: 100 }), new Set(['target:g0']));
    const summary = folded.buckets.find((b) => b.id === foldId('target:g0'))!;
    assert.equal(summary.summary, true);
    assert.equal(summary.label, 'cluster-0/ns-0');
    assert.equal(summary.count, 5);
    assert.deepEqual(summary.kinds, { instance: 5 });
    assert.equal(summary.problems, 1);
    assert.equal(folded.nodes.filter((n) => n.group === 'target:g0').length, 0);
    assert.equal(folded.nodes.filter((n) => n.group === 'target:g1').length, 3);
    // The chain inside the folded namespace disappears; the edge into the other namespace leaves from the summary.
    assert.deepEqual(
      folded.edges.filter((e) => e.source === summary.id || e.target === summary.id).map((e) => [e.source, e.target, e.cross]),
      [[summary.id, 'instance:target:g1:0', true]],
    );
    assert.equal(folded.bucketOf.get('instance:target:g0:3'), summary.id);
    // Drawn: the namespace box keeps its title and says it is folded; the summary node is announced with its counts.
    const req = toLayoutRequest(folded);
    const flow = toFlow(folded, req, quickLayout(req));
    const scope = flow.nodes.find((n) => n.id === 'scope:target:g0')!;
    assert.equal(scope.type === 'scope' && scope.data.folded, true);
    assert.match(flow.nodes.find((n) => n.id === summary.id)!.ariaLabel!, /^cluster-0\/ns-0 folded: 5 nodes \(5 instances\)\. Press Enter to unfold\.$/);
  });

  test('folding after the budget takes its buckets in too', () => {
    const m = model([30, 30]);
    const budgeted = applyBudget(m, { budget: 40 });
    assert.ok(budgeted.buckets.length > 0);
    const folded = foldGroups(budgeted, new Set(['target:g1']));
    const summary = folded.buckets.find((b) => b.summary)!;
    assert.equal(summary.count, 30);
    assert.equal(folded.buckets.filter((b) => b.group === 'target:g1').length, 1);
    assert.equal(folded.hidden, budgeted.hidden);
  });
});

describe('the first view', () => {
  const pane = { width: 1000, height: 600 };
  const box = (x: number, y: number, width: number, height: number, kind: GraphGroup['kind'] = 'namespace') => ({ x, y, width, height, kind });

  test('a graph that fits readably is shown whole, centred', () => {
    const v = firstView({ pane, groups: [box(0, 0, 400, 200), box(500, 0, 300, 300)], focus: [] });
    assert.equal(v.all, true);
    assert.ok(v.zoom >= MIN_FIRST_ZOOM && v.zoom <= 1.1);
    // Centred: equal margins left and right.
    assert.ok(Math.abs(v.x - (pane.width - 800 * v.zoom - v.x)) < 1e-6);
  });

  test('too big to fit readably: the relevant nodes (as many as fit together), at a readable zoom', () => {
    const groups = [box(0, 0, 4000, 3000)];
    const focus: Rect[] = [
      { x: 2000, y: 1000, width: 200, height: 60 },
      { x: 2300, y: 1100, width: 200, height: 60 },
      { x: 100, y: 2900, width: 200, height: 60 }, // far away: left out
    ];
    const v = firstView({ pane, groups, focus });
    assert.equal(v.all, false);
    assert.deepEqual(v.area, { x: 2000, y: 1000, width: 500, height: 160 });
    assert.ok(v.zoom >= MIN_FIRST_ZOOM);
    // The area is on screen.
    const sx = (gx: number) => gx * v.zoom + v.x;
    const sy = (gy: number) => gy * v.zoom + v.y;
    assert.ok(sx(2000) >= 0 && sx(2500) <= pane.width && sy(1000) >= 0 && sy(1160) <= pane.height);
    // One node alone is not blown up: full labels, and what surrounds it on screen too.
    const one = firstView({ pane, groups, focus: [focus[2]!] });
    assert.ok(Math.abs(one.zoom - FULL_LABELS_FROM) < 1e-9, String(one.zoom));
  });

  test('a relevant area inside a namespace opens with that namespace\'s title on screen, when both fit readably', () => {
    const groups = [box(0, 0, 4000, 3000), box(1800, 800, 1000, 600)];
    const v = firstView({ pane, groups, focus: [{ x: 2000, y: 1000, width: 200, height: 60 }] });
    assert.equal(v.all, false);
    // The inner namespace's title band (its top left) is part of the area; the outer one's is too far to fit.
    assert.deepEqual(v.area, { x: 1800, y: 800, width: 400, height: 260 });
    const sx = (gx: number) => gx * v.zoom + v.x;
    const sy = (gy: number) => gy * v.zoom + v.y;
    assert.ok(sx(1800) >= 0 && sy(800) >= 0 && sx(2200) <= pane.width && sy(1060) <= pane.height);
  });

  test('nothing relevant: the first namespace (not the users), from its top left, the rest of the graph following it on screen', () => {
    const v = firstView({ pane, groups: [box(0, 0, 300, 3000, 'users'), box(400, 0, 3000, 3000)], focus: [] });
    assert.equal(v.zoom, MIN_FIRST_ZOOM);
    assert.equal(v.area.x, 400);
    assert.equal(v.x + 400 * v.zoom, 24);
    assert.equal(v.y, 24);
    // A small first namespace too: at the top left at full labels, not centred in an empty band.
    const small = firstView({ pane, groups: [box(0, 0, 400, 200), box(0, 300, 4000, 3000)], focus: [] });
    assert.equal(small.zoom, FULL_LABELS_FROM);
    assert.equal(small.x, 24);
    assert.equal(small.y, 24);
  });

  test('the relevant nodes: the selected one, else the changes, else the problems', () => {
    const m = model([4], (n) => (n.id.endsWith(':1') ? { ...n, problem: true } : n.id.endsWith(':3') ? { ...n, overlay: 'updated' } : n));
    assert.deepEqual(relevantNodes(m.nodes, 'instance:target:g0:0'), ['instance:target:g0:0']);
    assert.deepEqual(relevantNodes(m.nodes, null), ['instance:target:g0:3']);
    assert.deepEqual(relevantNodes(model([4], (n) => (n.id.endsWith(':1') ? { ...n, problem: true } : n)).nodes, 'gone'), ['instance:target:g0:1']);
  });

  test('the side panel narrows the canvas: what was seen is fitted into what is left, never zooming in, the selected node kept on screen', () => {
    const before = { x: 0, y: 0, zoom: 1 };
    const v = refitAfterResize(before, { width: 1400, height: 700 }, { width: 960, height: 700 });
    assert.ok(v.zoom < 1 && v.zoom >= MIN_FIRST_ZOOM);
    // The whole of what was seen (0..1400 × 0..700) fits into 960 px when the zoom allows; here it is clamped at the readable minimum.
    assert.ok(1400 * v.zoom + v.x <= 960 + 1e-6 || v.zoom === MIN_FIRST_ZOOM);
    const keep = { x: 1300, y: 300, width: 100, height: 50 };
    const k = refitAfterResize(before, { width: 1400, height: 700 }, { width: 700, height: 700 }, keep);
    const left = keep.x * k.zoom + k.x;
    assert.ok(left >= 0 && left + keep.width * k.zoom <= 700, `kept node at ${left}`);
    // A wider canvas (the panel closed) does not zoom in.
    assert.equal(refitAfterResize(before, { width: 960, height: 700 }, { width: 1400, height: 700 }).zoom, 1);
  });
});

describe("a node's object", () => {
  test('policy objects link to themselves, contexts and components to what defines them, instances to what they are part of, users to nothing', () => {
    const claim = { id: 'claim:social/p', kind: 'claim', label: 'p', group: 'ns:social', namespace: 'social', name: 'p', user: 'alice', service: 'web', status: 'resolved', errors: [] } as GraphNode;
    assert.deepEqual(nodeObject(claim), { kind: 'claim', namespace: 'social', name: 'p' });
    const context = { id: 'c', kind: 'context', label: 'prod', group: 'ns:p', namespace: 'platform', service: 'kafka', name: 'prod' } as GraphNode;
    assert.deepEqual(nodeObject(context), { kind: 'service', namespace: 'platform', name: 'kafka' });
    const component = { id: 'c', kind: 'component', label: 'zk', group: 'ns:p', namespace: 'platform', bundle: 'kafka', name: 'zk', code: null } as GraphNode;
    assert.deepEqual(nodeObject(component), { kind: 'bundle', namespace: 'platform', name: 'kafka' });
    assert.deepEqual(nodeObject(instance(0, 'g')), { kind: 'service', namespace: 'main', name: 'web' });
    assert.deepEqual(nodeObject(instance(0, 'g', { source: 'landscaper', owner: 'landscape/application' })), { kind: 'installation', namespace: 'landscape', name: 'application' });
    assert.deepEqual(nodeObject(instance(0, 'g', { source: 'dm', owner: 'dm/guestbook' })), { kind: 'deployment', namespace: 'dm', name: 'guestbook' });
    assert.equal(nodeObject({ id: 'user:a', kind: 'user', label: 'a', group: 'users', user: 'a' } as GraphNode), null);
  });
});
