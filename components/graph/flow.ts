/**
 * Budgeted graph + layout → React Flow nodes and edges. Nodes get fixed
 * sizes per kind: the layout needs them before anything is measured, and
 * with `width`/`height` set React Flow knows which nodes are on screen
 * (visible-only rendering) without rendering them first.
 */
import { MarkerType, Position, type NodeHandle } from '@xyflow/react';
import { bucketSummary } from './budget';
import { groupKindLabel, titleWidth } from './readable';
import type { BudgetedGraph, FlowEdge, FlowNode, GraphKind, GraphNode, LayoutRequest, LayoutResult } from './types';

type Size = { width: number; height: number };

/**
 * From this many drawn nodes on, edges are straight lines without labels: a
 * bezier per edge and a measured text label per edge cost on every frame
 * at thousands of edges (xyflow's performance guide); the ×N count stays
 * visible as a thicker stroke (gedge-many).
 */
export const SIMPLE_EDGES_FROM = 400;

/** Edges into a bucket are drawn up to this many; beyond, shown nodes carry a "+N folded" count. */
export const MAX_DRAWN_BUCKET_EDGES = 40;

export const NODE_SIZE: Record<GraphKind | 'bucket', Size> = {
  user: { width: 150, height: 44 },
  claim: { width: 200, height: 60 },
  service: { width: 190, height: 52 },
  context: { width: 170, height: 52 },
  bundle: { width: 190, height: 52 },
  component: { width: 190, height: 52 },
  instance: { width: 210, height: 60 },
  bucket: { width: 210, height: 64 },
};

/**
 * What the layout sees. Buckets come first, so they sit at the top left of
 * their group where the first view looks, and their edges are left out: a
 * bucket standing for thousands of nodes would tie every component of the
 * graph into one giant one (a 1,000-node-tall layer), while on its own it
 * is just a box. Its edges are drawn all the same.
 */
export function toLayoutRequest(g: BudgetedGraph): LayoutRequest {
  const hidden = new Map<string, number>();
  for (const b of g.buckets) if (!b.summary) hidden.set(b.group, (hidden.get(b.group) ?? 0) + b.count);
  return {
    // A group is at least as wide as its title: a title is never cut.
    groups: g.groups.map((x) => ({ id: x.id, label: x.label, minWidth: titleWidth(x, hidden.get(x.id) ?? 0) })),
    nodes: [
      ...g.buckets.map((b) => ({ id: b.id, group: b.group, ...NODE_SIZE.bucket })),
      ...g.nodes.map((n) => ({ id: n.id, group: n.group, ...NODE_SIZE[n.kind] })),
    ],
    edges: g.edges.filter((e) => !e.source.startsWith('bucket:') && !e.target.startsWith('bucket:')).map((e) => ({ source: e.source, target: e.target })),
  };
}

/** Attributes on React Flow's node element: what CSS styles and tests select. */
function domAttributes(n: GraphNode): Record<string, string> {
  const a: Record<string, string> = { 'data-kind': n.kind };
  if (n.kind !== 'user') a['data-namespace'] = n.namespace;
  if (n.kind === 'claim') a['data-status'] = n.status;
  else if (n.problem) a['data-status'] = 'problem';
  if (n.problem) a['data-problem'] = 'true';
  if (n.overlay) a['data-overlay'] = n.overlay;
  if (n.kind === 'instance' && n.actual) a['data-actual'] = n.actual;
  return a;
}

type DomAttributes = FlowNode['domAttributes'];

export interface FlowGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
  /** Absolute centre of every drawn node (scopes excluded), for keyboard moves and centring. */
  centres: Map<string, { x: number; y: number }>;
}

export function toFlow(g: BudgetedGraph, req: LayoutRequest, layout: LayoutResult): FlowGraph {
  const boxes = new Map(layout.groups.map((b) => [b.id, b]));
  const shownPerGroup = new Map<string, number>();
  const hiddenPerGroup = new Map<string, number>();
  for (const n of g.nodes) shownPerGroup.set(n.group, (shownPerGroup.get(n.group) ?? 0) + 1);
  for (const b of g.buckets) if (!b.summary) hiddenPerGroup.set(b.group, (hiddenPerGroup.get(b.group) ?? 0) + b.count);
  const folded = new Set(g.buckets.filter((b) => b.summary).map((b) => b.group));

  // Parents first: React Flow needs a parent before its children.
  const nodes: FlowNode[] = g.groups.map((grp) => {
    const box = boxes.get(grp.id)!;
    return {
      id: `scope:${grp.id}`,
      type: 'scope',
      position: { x: box.x, y: box.y },
      width: box.width,
      height: box.height,
      data: { group: grp, shown: shownPerGroup.get(grp.id) ?? 0, hidden: hiddenPerGroup.get(grp.id) ?? 0, folded: folded.has(grp.id) },
      selectable: false,
      focusable: false,
      draggable: false,
      measured: { width: box.width, height: box.height },
      handles: NO_HANDLES,
      ariaLabel: `${groupKindLabel(grp.kind) || 'users'} ${grp.label}`,
      domAttributes: { 'data-kind': 'scope' } as DomAttributes,
    };
  });
  const centres = new Map<string, { x: number; y: number }>();
  const place = (i: number, group: string) => {
    const box = boxes.get(group)!;
    const x = layout.positions[i * 2]!;
    const y = layout.positions[i * 2 + 1]!;
    const r = req.nodes[i]!;
    centres.set(r.id, { x: box.x + x + r.width / 2, y: box.y + y + r.height / 2 });
    return { position: { x, y }, parentId: `scope:${group}`, width: r.width, height: r.height, measured: { width: r.width, height: r.height }, handles: handlesFor(r.width, r.height) };
  };
  const offset = g.buckets.length;
  g.nodes.forEach((n, i) => {
    const common = { id: n.id, ...place(offset + i, n.group), draggable: false, ariaLabel: ariaLabelOf(n), domAttributes: domAttributes(n) as DomAttributes };
    const hiddenLinks = g.hiddenLinks.get(n.id) ?? 0;
    if (n.kind === 'claim') nodes.push({ ...common, type: 'claim', data: { node: n, hiddenLinks } });
    else if (n.kind === 'instance') nodes.push({ ...common, type: 'instance', data: { node: n, hiddenLinks } });
    else nodes.push({ ...common, type: 'object', data: { node: n, hiddenLinks } });
  });
  g.buckets.forEach((b, k) => {
    nodes.push({
      id: b.id,
      type: 'bucket',
      ...place(k, b.group),
      draggable: false,
      data: { bucket: b },
      ariaLabel: b.summary ? `${b.label} folded: ${b.count} nodes (${bucketSummary(b)}). Press Enter to unfold.` : `${b.count} nodes not shown: ${b.label}. Press Enter to expand.`,
      domAttributes: { 'data-kind': 'bucket' } as DomAttributes,
    });
  });

  // A bucket with many links would draw a sheaf of long edges across the whole graph
  // (clutter, and every pan repaints them): beyond a few, nodes show a count instead.
  const quiet = new Set(g.buckets.filter((b) => b.links > MAX_DRAWN_BUCKET_EDGES).map((b) => b.id));
  const simple = g.nodes.length + g.buckets.length >= SIMPLE_EDGES_FROM;
  const edges: FlowEdge[] = g.edges.filter((e) => !quiet.has(e.source) && !quiet.has(e.target)).map((e) => ({
    id: e.id,
    source: e.source,
    target: e.target,
    ...(simple ? { type: 'straight' } : {}),
    className: `gedge gedge-${e.kind}${e.cross ? ' gedge-cross' : ''}${e.count > 1 ? ' gedge-many' : ''}`,
    markerEnd: MARKER,
    selectable: false,
    focusable: false,
    data: { count: e.count },
    ...(e.count > 1 && !simple ? { label: `×${e.count}` } : {}),
  }));
  return { nodes, edges, centres };
}

/**
 * Node sizes and handle positions are known before anything is drawn
 * (fixed sizes per kind; ports at the middle of the left and right sides,
 * 1 px, as .gnode-port draws them), so React Flow gets them up front as
 * `measured` and `handles`: edges to nodes never rendered (off screen with
 * visible-only rendering) are placed at once, and a node scrolling into
 * view is not measured handle by handle, which would then send a
 * dimensions change through every one of thousands of nodes.
 */
const HANDLES = new Map<string, NodeHandle[]>();
const NO_HANDLES: NodeHandle[] = [];
function handlesFor(width: number, height: number): NodeHandle[] {
  const key = `${width}x${height}`;
  let h = HANDLES.get(key);
  if (!h) {
    h = [
      { type: 'target', position: Position.Left, x: -0.5, y: height / 2 - 0.5, width: 1, height: 1 },
      { type: 'source', position: Position.Right, x: width - 0.5, y: height / 2 - 0.5, width: 1, height: 1 },
    ];
    HANDLES.set(key, h);
  }
  return h;
}

/** One shared marker object: React Flow renders one <marker> per distinct config. */
const MARKER = { type: MarkerType.ArrowClosed, width: 14, height: 14, color: '#9aa5b4' } as const;

function ariaLabelOf(n: GraphNode): string {
  switch (n.kind) {
    case 'claim':
      return `claim ${n.namespace}/${n.name}, user ${n.user}, ${n.status}${n.overlay ? `, ${n.overlay}` : ''}`;
    case 'instance':
      return `instance ${n.label} on ${n.cluster}/${n.k8sNamespace}, ${n.claims.length} claim${n.claims.length === 1 ? '' : 's'}${n.error ? ', error' : ''}${n.overlay ? `, ${n.overlay}` : ''}${n.actual ? `, ${n.actual}` : ''}`;
    case 'user':
      return `user ${n.user}`;
    default:
      return `${n.kind} ${n.namespace}/${n.label}${n.overlay ? `, ${n.overlay}` : ''}`;
  }
}
