/**
 * What makes a graph readable at first sight, as pure rules (no React, no
 * DOM: the unit tests run them): the zoom below which a label is too small
 * to read, which label a node shows at a zoom (level of detail), which
 * namespaces start folded into one summary node, and which part of a graph
 * too big to fit readably the first view shows.
 */
import type { GraphGroup, GraphNode } from './types';

/** No label is smaller than this on screen at first sight (CSS px). */
export const MIN_LABEL_PX = 12;

/**
 * Node label sizes in graph units (globals.css: .gnode-label, and
 * .graph-far .gnode-label where nodes show their short name only).
 */
export const LABEL_PX = { full: 13, short: 20 } as const;

/** Below this zoom a full label (13 px) would be smaller than 12 px: nodes show short names, larger. */
export const FULL_LABELS_FROM = MIN_LABEL_PX / LABEL_PX.full;

/** The first view never zooms out further: short names (20 px) are then still 12 px on screen. */
export const MIN_FIRST_ZOOM = MIN_LABEL_PX / LABEL_PX.short;

export type Lod = 'full' | 'short';

/** Level of detail at a zoom: everything (kind, name, namespace, badges), or the short name only. */
export function lodFor(zoom: number): Lod {
  return zoom >= FULL_LABELS_FROM - 1e-9 ? 'full' : 'short';
}

/** Room for a short name: two lines of a node's width at the short label size. */
const SHORT_CHAR_PX = LABEL_PX.short * 0.58;

/**
 * The label a node shows at a level of detail. Short: the last part of a
 * path-like name (`platform/zookeeper` → `zookeeper`), shortened in the
 * middle when it would not fit on two lines of the node, so the start and
 * the end (where names differ) both stay readable and nothing is cut by
 * the node's border.
 */
export function labelAt(label: string, lod: Lod, nodeWidth: number): string {
  if (lod === 'full') return label;
  const name = label.split(/[/#]/).filter(Boolean).pop() ?? label;
  const perLine = Math.max(4, Math.floor((nodeWidth - 16) / SHORT_CHAR_PX));
  const max = perLine * 2;
  if (name.length <= max) return name;
  const head = Math.ceil((max - 1) / 2);
  return `${name.slice(0, head)}…${name.slice(name.length - (max - 1 - head))}`;
}

// ---------------------------------------------------------------- titles

/** Namespace and cluster titles (globals.css .gscope-head): graph units. */
export const TITLE_PX = 14;
/** Horizontal padding of a title and its fold button. */
const TITLE_CHROME = 20 + 28;

/**
 * Width a group title needs so it is never clipped: a generous estimate
 * (0.62 em a character; the kind prefix is upper case at 0.75 em).
 */
export function titleWidth(group: Pick<GraphGroup, 'label' | 'kind'>, hidden = 0): number {
  const kind = groupKindLabel(group.kind);
  const suffix = hidden > 0 ? ` · ${hidden.toLocaleString('en-US')} not shown` : '';
  return Math.ceil((group.label.length + suffix.length + 1) * TITLE_PX * 0.62 + kind.length * TITLE_PX * 0.75 * 0.72 + TITLE_CHROME);
}

export function groupKindLabel(kind: GraphGroup['kind']): string {
  return kind === 'target' ? 'cluster / namespace' : kind === 'users' ? '' : 'namespace';
}

// ---------------------------------------------------------------- folding

/** A namespace or cluster with more nodes than this starts folded into one summary node… */
export const COLLAPSE_FROM = 40;

/**
 * …unless it is where the first view looks. Which groups start folded: the
 * big ones, never the one holding the most relevant node (selected, else
 * the first change, else the first problem), never the only one, and never
 * the users (a handful of people).
 */
export function initialCollapsed(model: { nodes: readonly GraphNode[]; groups: readonly GraphGroup[] }, selectedId: string | null = null, from = COLLAPSE_FROM): Set<string> {
  const out = new Set<string>();
  if (model.groups.length < 2) return out;
  const size = new Map<string, number>();
  for (const n of model.nodes) size.set(n.group, (size.get(n.group) ?? 0) + 1);
  const focus = relevantNodes(model.nodes, selectedId)[0];
  const keep = focus ? model.nodes.find((n) => n.id === focus)?.group : undefined;
  for (const g of model.groups) {
    if (g.kind === 'users' || g.id === keep) continue;
    if ((size.get(g.id) ?? 0) > from) out.add(g.id);
  }
  return out;
}

// ---------------------------------------------------------------- the first view

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

const isChange = (n: GraphNode) => n.overlay === 'added' || n.overlay === 'updated' || n.overlay === 'removed';

/** The nodes a first view should show, most relevant first: the selected one, else the changes, else the problems. */
export function relevantNodes(nodes: readonly GraphNode[], selectedId: string | null): string[] {
  if (selectedId && nodes.some((n) => n.id === selectedId)) return [selectedId];
  const changed = nodes.filter(isChange);
  if (changed.length) return changed.map((n) => n.id);
  return nodes.filter((n) => n.problem).map((n) => n.id);
}

export function union(rects: readonly Rect[]): Rect | null {
  if (rects.length === 0) return null;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const r of rects) {
    x0 = Math.min(x0, r.x);
    y0 = Math.min(y0, r.y);
    x1 = Math.max(x1, r.x + r.width);
    y1 = Math.max(y1, r.y + r.height);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

export interface FirstViewInput {
  /** The canvas, CSS px. */
  pane: { width: number; height: number };
  /** Every group's box (graph units). */
  groups: readonly (Rect & { kind?: GraphGroup['kind'] })[];
  /** Boxes of the relevant nodes, most relevant first (relevantNodes). */
  focus: readonly Rect[];
  minZoom?: number;
  maxZoom?: number;
  padding?: number;
}

/**
 * The first view: the whole graph when it fits at a readable zoom;
 * otherwise the relevant nodes (as many of them, in order, as fit
 * readably together), centred, else the first namespace from the top
 * left, at the zoom of full labels (or less, down to `minZoom`, for the
 * area to fit), so what surrounds it shows too. An area still too big at
 * `minZoom` is shown from its top left (where its roots are).
 */
export function firstView(input: FirstViewInput): Viewport & { area: Rect; all: boolean } {
  const { pane, minZoom = MIN_FIRST_ZOOM, maxZoom = 1.1, padding = 24 } = input;
  const all = union(input.groups) ?? { x: 0, y: 0, width: 1, height: 1 };
  const fitZoom = (r: Rect) => Math.min((pane.width - 2 * padding) / Math.max(r.width, 1), (pane.height - 2 * padding) / Math.max(r.height, 1), maxZoom);
  const fits = (r: Rect) => fitZoom(r) >= minZoom - 1e-9;
  let area = all;
  let whole = true;
  // The first namespace (nothing relevant) starts at the top left, where the rest of the graph follows on screen.
  let fromTopLeft = false;
  if (!fits(all)) {
    whole = false;
    let picked: Rect | null = null;
    for (const r of input.focus) {
      const next: Rect = picked ? union([picked, r])! : r;
      if (picked && !fits(next)) break;
      picked = next;
    }
    if (picked) picked = withGroupTitle(picked, input.groups, fits);
    const firstNamespace = input.groups.find((g) => g.kind !== 'users') ?? input.groups[0];
    area = picked ?? firstNamespace ?? all;
    fromTopLeft = !picked;
  }
  // The whole graph as large as fits; a part of it no closer than full labels need, so as much around it shows as can.
  const zoom = whole ? Math.max(minZoom, fitZoom(area)) : Math.max(minZoom, Math.min(fitZoom(area), Math.max(minZoom, FULL_LABELS_FROM)));
  const w = area.width * zoom;
  const h = area.height * zoom;
  const x = !fromTopLeft && w <= pane.width - 2 * padding ? (pane.width - w) / 2 : padding;
  const y = !fromTopLeft && h <= pane.height - 2 * padding ? (pane.height - h) / 2 : padding;
  return { x: x - area.x * zoom, y: y - area.y * zoom, zoom, area, all: whole };
}

/** How much of a group's top left its title takes (graph units): the header band, and the start of the title. */
const TITLE_BAND = { width: 240, height: 36 };

/**
 * The relevant area grown to show the title of a group holding it — the
 * outermost one whose title still fits readably with it — so a first view
 * on part of a graph says which namespace it is in.
 */
function withGroupTitle(area: Rect, groups: readonly Rect[], fits: (r: Rect) => boolean): Rect {
  const inside = (g: Rect) => area.x >= g.x && area.y >= g.y && area.x + area.width <= g.x + g.width && area.y + area.height <= g.y + g.height;
  const holders = groups.filter(inside).sort((a, b) => b.width * b.height - a.width * a.height);
  for (const g of holders) {
    const grown = union([area, { x: g.x, y: g.y, width: Math.min(g.width, TITLE_BAND.width), height: TITLE_BAND.height }])!;
    if (fits(grown)) return grown;
  }
  return area;
}

/**
 * After the canvas is resized (the side panel opened or closed): the part
 * of the graph that was on screen, fitted into the new size, around
 * `keep` (the selected node) when given — never zooming in, never below
 * `minZoom`.
 */
export function refitAfterResize(before: Viewport, from: { width: number; height: number }, to: { width: number; height: number }, keep?: Rect | null, minZoom = MIN_FIRST_ZOOM): Viewport {
  const seen: Rect = { x: -before.x / before.zoom, y: -before.y / before.zoom, width: from.width / before.zoom, height: from.height / before.zoom };
  const z = Math.min(before.zoom, Math.max(minZoom, Math.min(to.width / seen.width, to.height / seen.height)));
  // Centre of what was seen, unless that would leave the kept node out.
  let cx = seen.x + seen.width / 2;
  let cy = seen.y + seen.height / 2;
  if (keep) {
    const halfW = to.width / z / 2;
    const halfH = to.height / z / 2;
    const kx = keep.x + keep.width / 2;
    const ky = keep.y + keep.height / 2;
    if (Math.abs(kx - cx) > halfW - keep.width / 2 || Math.abs(ky - cy) > halfH - keep.height / 2) {
      cx = kx;
      cy = ky;
    }
  }
  return { x: to.width / 2 - cx * z, y: to.height / 2 - cy * z, zoom: z };
}
