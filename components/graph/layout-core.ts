/**
 * Layout, pure and framework-free (the worker, the main thread and the unit
 * tests all run it). Each group (namespace, cluster/k8s namespace, users) is
 * laid out on its own, left to right; groups are then placed in columns by
 * the direction of the edges between them (users → claims' namespaces →
 * what they use).
 *
 * Two engines fill a group:
 * - `quick`: longest-path layering with one barycentre pass per connected
 *   component, components shelf-packed. Linear time — 2,000 nodes in a few
 *   milliseconds — so the first frame never waits for ELK.
 * - ELK layered (in the worker, see layout.worker.ts): fewer crossings and
 *   better spacing, but ~0.5–4 s at 2,000 nodes (JIT-cold in a new worker).
 */
import type { LayoutBox, LayoutRequest, LayoutResult } from './types';

export const GROUP_PAD = 16;
export const GROUP_HEADER = 36;
const LAYER_GAP = 56;
const NODE_GAP = 14;
const COMPONENT_GAP = 36;
const GROUP_GAP = 90;
/** Width:height the packing aims for: screens are wide. */
const ASPECT = 1.6;

/** A group's content: positions of its nodes (local indices) inside a box at 0,0. */
export interface GroupContent {
  xs: Float64Array;
  ys: Float64Array;
  width: number;
  height: number;
}

export interface SplitRequest {
  /** Node indices of `req.nodes` per group, in `req.groups` order. */
  members: number[][];
  /** Edges inside each group, as local index pairs. */
  intra: [number, number][][];
  /** Edges between groups, as group index pairs. */
  cross: [number, number][];
}

export function splitByGroup(req: LayoutRequest): SplitRequest {
  const gIndex = new Map(req.groups.map((g, i) => [g.id, i]));
  const members: number[][] = req.groups.map(() => []);
  const local = new Int32Array(req.nodes.length);
  const groupOfNode = new Int32Array(req.nodes.length);
  const nodeIndex = new Map<string, number>();
  req.nodes.forEach((n, i) => {
    const g = gIndex.get(n.group);
    if (g === undefined) throw new Error(`node ${n.id} is in unknown group ${n.group}`);
    groupOfNode[i] = g;
    local[i] = members[g]!.length;
    members[g]!.push(i);
    nodeIndex.set(n.id, i);
  });
  const intra: [number, number][][] = req.groups.map(() => []);
  const cross: [number, number][] = [];
  for (const e of req.edges) {
    const a = nodeIndex.get(e.source);
    const b = nodeIndex.get(e.target);
    if (a === undefined || b === undefined || a === b) continue;
    const ga = groupOfNode[a]!;
    const gb = groupOfNode[b]!;
    if (ga === gb) intra[ga]!.push([local[a]!, local[b]!]);
    else cross.push([ga, gb]);
  }
  return { members, intra, cross };
}

// ---------------------------------------------------------------- quick engine

/** The linear-time layered layout of one group. */
export function quickGroup(widths: ArrayLike<number>, heights: ArrayLike<number>, edges: readonly [number, number][]): GroupContent {
  const n = widths.length;
  const outs: number[][] = Array.from({ length: n }, () => []);
  const ins: number[][] = Array.from({ length: n }, () => []);
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (const [a, b] of edges) {
    if (a === b) continue;
    outs[a]!.push(b);
    ins[b]!.push(a);
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  const comps = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    const list = comps.get(r);
    if (list) list.push(i);
    else comps.set(r, [i]);
  }

  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  const layer = new Int32Array(n).fill(-1);
  const pos = new Float64Array(n);
  const left = new Int32Array(n);
  const boxes: { members: number[]; width: number; height: number }[] = [];

  for (const members of comps.values()) {
    // Longest-path layering (Kahn); a cycle is broken at its first member in model order.
    for (const v of members) left[v] = ins[v]!.length;
    const queue: number[] = members.filter((v) => left[v] === 0);
    let head = 0;
    let next = 0;
    const done: number[] = [];
    while (done.length < members.length) {
      if (head === queue.length) {
        // Everything queued so far is placed: start from the first unplaced member.
        while (layer[members[next]!]! >= 0) next++;
        queue.push(members[next]!);
      }
      const v = queue[head++]!;
      if (layer[v]! >= 0) continue;
      let l = 0;
      for (const p of ins[v]!) if (layer[p]! >= 0 && layer[p]! + 1 > l) l = layer[p]! + 1;
      layer[v] = l;
      done.push(v);
      for (const u of outs[v]!) if (--left[u]! === 0 && layer[u]! < 0) queue.push(u);
    }
    const layers: number[][] = [];
    for (const v of done) (layers[layer[v]!] ??= []).push(v);
    // One barycentre pass: a node sits near the middle of its predecessors.
    layers.forEach((list, l) => {
      if (l > 0) {
        const key = new Map<number, number>();
        list.forEach((v, i) => {
          let sum = 0;
          let cnt = 0;
          for (const p of ins[v]!) if (layer[p]! < l) (sum += pos[p]!), cnt++;
          key.set(v, cnt ? sum / cnt : i);
        });
        list.sort((a, b) => key.get(a)! - key.get(b)!);
      }
      list.forEach((v, i) => (pos[v] = i));
    });
    let x = 0;
    let height = 0;
    const layerHeights = layers.map((list) => list.reduce((s, v) => s + heights[v]!, 0) + NODE_GAP * Math.max(0, list.length - 1));
    for (const h of layerHeights) height = Math.max(height, h);
    layers.forEach((list, l) => {
      let w = 0;
      let y = (height - layerHeights[l]!) / 2;
      for (const v of list) {
        xs[v] = x;
        ys[v] = y;
        y += heights[v]! + NODE_GAP;
        w = Math.max(w, widths[v]!);
      }
      x += w + LAYER_GAP;
    });
    boxes.push({ members, width: Math.max(0, x - LAYER_GAP), height });
  }

  // Shelf-pack the components into rows, aiming at a wide box.
  let area = 0;
  let widest = 0;
  for (const b of boxes) {
    area += (b.width + COMPONENT_GAP) * (b.height + COMPONENT_GAP);
    widest = Math.max(widest, b.width);
  }
  const rowWidth = Math.max(widest, Math.sqrt(area * ASPECT));
  let cx = 0;
  let cy = 0;
  let rowH = 0;
  let width = 0;
  for (const b of boxes) {
    if (cx > 0 && cx + b.width > rowWidth) {
      cx = 0;
      cy += rowH + COMPONENT_GAP;
      rowH = 0;
    }
    for (const v of b.members) {
      xs[v] = xs[v]! + cx;
      ys[v] = ys[v]! + cy;
    }
    cx += b.width + COMPONENT_GAP;
    rowH = Math.max(rowH, b.height);
    width = Math.max(width, cx - COMPONENT_GAP);
  }
  return { xs, ys, width, height: cy + rowH };
}

// ---------------------------------------------------------------- groups

/**
 * Boxes for the groups: ranked by the edges between them (longest path,
 * cycles cut off after n rounds), one column per rank, stacked in order.
 */
export function packGroups(contents: readonly { width: number; height: number }[], cross: readonly [number, number][], ids: readonly string[], minWidths: readonly number[] = []): LayoutBox[] {
  const n = contents.length;
  const rank = new Int32Array(n);
  for (let round = 0; round < n; round++) {
    let changed = false;
    for (const [a, b] of cross) {
      if (a !== b && rank[b]! < rank[a]! + 1 && rank[a]! + 1 < n) {
        rank[b] = rank[a]! + 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  const columns: number[][] = [];
  for (let g = 0; g < n; g++) (columns[rank[g]!] ??= []).push(g);
  const boxes: LayoutBox[] = new Array(n);
  let x = 0;
  for (const col of columns) {
    if (!col) continue;
    let y = 0;
    let w = 0;
    for (const g of col) {
      const width = Math.max(contents[g]!.width + 2 * GROUP_PAD, minWidths[g] ?? 0);
      const height = contents[g]!.height + GROUP_HEADER + GROUP_PAD;
      boxes[g] = { id: ids[g]!, x, y, width, height };
      y += height + GROUP_GAP;
      w = Math.max(w, width);
    }
    x += w + GROUP_GAP;
  }
  return boxes;
}

/** Group contents → a result with positions relative to each group's box. */
export function assemble(req: LayoutRequest, split: SplitRequest, contents: readonly GroupContent[], engine: LayoutResult['engine'], ms: number): LayoutResult {
  const positions = new Float64Array(req.nodes.length * 2);
  split.members.forEach((list, g) => {
    const c = contents[g]!;
    list.forEach((nodeIndex, local) => {
      positions[nodeIndex * 2] = GROUP_PAD + c.xs[local]!;
      positions[nodeIndex * 2 + 1] = GROUP_HEADER + c.ys[local]!;
    });
  });
  const groups = packGroups(contents, split.cross, req.groups.map((g) => g.id), req.groups.map((g) => g.minWidth ?? 0));
  return { engine, groups, positions, ms };
}

/** Sizes of a group's members, local order. */
export function groupSizes(req: LayoutRequest, members: readonly number[]) {
  const widths = new Float64Array(members.length);
  const heights = new Float64Array(members.length);
  members.forEach((i, k) => {
    widths[k] = req.nodes[i]!.width;
    heights[k] = req.nodes[i]!.height;
  });
  return { widths, heights };
}

export function quickLayout(req: LayoutRequest): LayoutResult {
  const started = performance.now();
  const split = splitByGroup(req);
  const contents = split.members.map((members, g) => {
    const { widths, heights } = groupSizes(req, members);
    return quickGroup(widths, heights, split.intra[g]!);
  });
  return assemble(req, split, contents, 'quick', performance.now() - started);
}

// ---------------------------------------------------------------- ELK graphs

/** Minimal shape of ELK's JSON graph (elkjs's types, without importing elkjs here). */
export interface ElkInput {
  id: string;
  layoutOptions: Record<string, string>;
  children: { id: string; width: number; height: number; x?: number; y?: number }[];
  edges: { id: string; sources: string[]; targets: string[] }[];
  width?: number;
  height?: number;
}

/** Above this many nodes in a group, ELK trades some quality for time. */
const ELK_FAST_FROM = 800;

export function elkOptions(size: number): Record<string, string> {
  return {
    'elk.algorithm': 'layered',
    'elk.direction': 'RIGHT',
    'elk.spacing.nodeNode': String(NODE_GAP),
    'elk.layered.spacing.nodeNodeBetweenLayers': String(LAYER_GAP),
    'elk.spacing.componentComponent': String(COMPONENT_GAP),
    'elk.aspectRatio': String(ASPECT),
    'elk.separateConnectedComponents': 'true',
    // React Flow draws its own edges: routing them in ELK is wasted time (≈2× at 2,000 nodes).
    'elk.edgeRouting': 'POLYLINE',
    ...(size >= ELK_FAST_FROM ? { 'elk.layered.crossingMinimization.thoroughness': '1', 'elk.layered.nodePlacement.strategy': 'SIMPLE', 'elk.layered.thoroughness': '1' } : {}),
  };
}

/** One group as an ELK graph; node ids are local indices (short, nothing to escape). */
export function elkGroupGraph(widths: ArrayLike<number>, heights: ArrayLike<number>, edges: readonly [number, number][]): ElkInput {
  const children = Array.from({ length: widths.length }, (_, i) => ({ id: String(i), width: widths[i]!, height: heights[i]! }));
  return {
    id: 'group',
    layoutOptions: elkOptions(widths.length),
    children,
    edges: edges.filter(([a, b]) => a !== b).map(([a, b], k) => ({ id: `e${k}`, sources: [String(a)], targets: [String(b)] })),
  };
}

export function readElkGroup(out: ElkInput): GroupContent {
  const n = out.children.length;
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  let width = 0;
  let height = 0;
  for (const c of out.children) {
    const i = Number(c.id);
    xs[i] = c.x ?? 0;
    ys[i] = c.y ?? 0;
    width = Math.max(width, xs[i]! + c.width);
    height = Math.max(height, ys[i]! + c.height);
  }
  // ELK pads the graph by its own margin; keep its box when larger.
  return { xs, ys, width: Math.max(width, out.width ?? 0), height: Math.max(height, out.height ?? 0) };
}
