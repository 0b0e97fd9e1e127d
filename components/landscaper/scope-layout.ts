/**
 * The scope graph as ELK's compound graph and back as React Flow nodes.
 * Scopes nest: a namespace holds its root installations and objects; an
 * installation with subinstallations is itself a box holding its scope.
 * ELK lays the whole hierarchy out at once (`INCLUDE_CHILDREN`), so export
 * → import edges may cross scope borders; child positions come back
 * relative to their parent, which is what React Flow's `parentId` wants.
 * A collapsed scope is drawn as a plain node: edges to what it hides end
 * at it. Pure functions: tested without a browser.
 */
import type { ScopeGraphView } from '@/server/services/landscaper.types';
import { objectHref } from '../objects/links';

export type ScopeInstallation = ScopeGraphView['installations'][number];
export type ScopeObject = ScopeGraphView['objects'][number];

export const INSTALLATION_SIZE = { width: 210, height: 58 };
export const OBJECT_SIZE = { width: 180, height: 46 };
/** Room for a box's title above its contents (20 px titles in the far view). */
const HEADER = 40;

export interface ElkNode {
  id: string;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
  layoutOptions?: Record<string, string>;
  children?: ElkNode[];
  edges?: { id: string; sources: string[]; targets: string[]; labels?: { text: string; width: number; height: number; x?: number; y?: number }[] }[];
}

/** Edge labels (globals.css .ledge .react-flow__edge-text): graph units; the far view shows them larger. */
export const EDGE_LABEL_PX = 20;

/**
 * The room an edge label takes, told to ELK so it leaves that much between
 * the layers: a label drawn midway along its edge then sits in the gap,
 * never under a node (where it would be cut).
 */
export function edgeLabelSize(text: string): { width: number; height: number } {
  return { width: Math.ceil(text.length * EDGE_LABEL_PX * 0.6) + 12, height: Math.ceil(EDGE_LABEL_PX * 1.3) };
}

/** What one drawn node stands for. */
export type ScopeItem =
  | { type: 'namespace'; id: string; label: string }
  | { type: 'installation'; id: string; installation: ScopeInstallation; box: boolean; collapsed: boolean; hidden: number }
  | { type: 'object'; id: string; object: ScopeObject };

export interface ScopeLayoutInput {
  root: ElkNode;
  items: Map<string, ScopeItem>;
  /** Drawn edges, after collapsing (duplicates merged). */
  edges: { id: string; source: string; target: string; kind: 'import' | 'export'; label: string }[];
}

const BOX_OPTIONS = { 'elk.padding': `[top=${HEADER},left=14,bottom=14,right=14]` };

/**
 * Width a box's title needs (globals.css .lscope-title: 13 px near, 20 px
 * far with the name alone), so ELK makes the box at least that wide and
 * the title is never cut.
 */
export function boxTitleWidth(near: string, far: string): number {
  return Math.ceil(Math.max(near.length * 13 * 0.62, far.length * 20 * 0.62) + 48);
}

function boxOptions(near: string, far: string): Record<string, string> {
  return { ...BOX_OPTIONS, 'elk.nodeSize.constraints': 'MINIMUM_SIZE', 'elk.nodeSize.minimum': `(${boxTitleWidth(near, far)}, ${HEADER + 30})` };
}

/** The ELK graph of the scope view, with `collapsed` installation ids drawn shut. */
export function scopeLayoutInput(g: ScopeGraphView, collapsed: ReadonlySet<string>): ScopeLayoutInput {
  const items = new Map<string, ScopeItem>();
  const installationsIn = new Map<string, ScopeInstallation[]>();
  for (const i of g.installations) installationsIn.set(i.scope, [...(installationsIn.get(i.scope) ?? []), i]);
  const objectsIn = new Map<string, ScopeObject[]>();
  for (const o of g.objects) objectsIn.set(o.scope, [...(objectsIn.get(o.scope) ?? []), o]);
  // Where each model node is drawn: itself, or the collapsed box that hides it.
  const drawnAs = new Map<string, string>();

  const countInside = (scope: string): number =>
    (installationsIn.get(scope) ?? []).reduce((n, i) => n + 1 + (i.opens ? countInside(i.opens) : 0), 0) + (objectsIn.get(scope)?.length ?? 0);
  const hideAll = (scope: string, as: string) => {
    for (const i of installationsIn.get(scope) ?? []) {
      drawnAs.set(i.id, as);
      if (i.opens) hideAll(i.opens, as);
    }
    for (const o of objectsIn.get(scope) ?? []) drawnAs.set(o.id, as);
  };
  const contents = (scope: string): ElkNode[] => {
    const out: ElkNode[] = [];
    for (const i of installationsIn.get(scope) ?? []) {
      drawnAs.set(i.id, i.id);
      const isShut = i.opens !== null && collapsed.has(i.id);
      if (i.opens && !isShut) {
        items.set(i.id, { type: 'installation', id: i.id, installation: i, box: true, collapsed: false, hidden: 0 });
        out.push({ id: i.id, layoutOptions: boxOptions(`installation ${i.name} ${i.phase} YAML`, i.name), children: contents(i.opens) });
      } else {
        if (i.opens) hideAll(i.opens, i.id);
        items.set(i.id, { type: 'installation', id: i.id, installation: i, box: false, collapsed: isShut, hidden: i.opens ? countInside(i.opens) : 0 });
        out.push({ id: i.id, ...INSTALLATION_SIZE });
      }
    }
    for (const o of objectsIn.get(scope) ?? []) {
      drawnAs.set(o.id, o.id);
      items.set(o.id, { type: 'object', id: o.id, object: o });
      out.push({ id: o.id, ...OBJECT_SIZE });
    }
    return out;
  };

  const namespaces = g.scopes.filter((s) => s.parent === null);
  const children: ElkNode[] = namespaces.map((s) => {
    items.set(s.id, { type: 'namespace', id: s.id, label: s.label });
    return { id: s.id, layoutOptions: boxOptions(`namespace ${s.label} · root scope`, `namespace ${s.label} · root scope`), children: contents(s.id) };
  });

  const edges: ScopeLayoutInput['edges'] = [];
  const seen = new Set<string>();
  for (const e of g.edges) {
    const source = drawnAs.get(e.source);
    const target = drawnAs.get(e.target);
    if (!source || !target || source === target) continue;
    const id = `${source}->${target}:${e.label}`;
    if (seen.has(id)) continue;
    seen.add(id);
    edges.push({ id, source, target, kind: e.kind, label: e.label });
  }
  const root: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.spacing.nodeNode': '24',
      'elk.layered.spacing.nodeNodeBetweenLayers': '48',
      'elk.spacing.componentComponent': '40',
      'elk.edgeLabels.placement': 'CENTER',
    },
    children,
    edges: edges.map((e) => ({ id: e.id, sources: [e.source], targets: [e.target], labels: e.label ? [{ text: e.label, ...edgeLabelSize(e.label) }] : [] })),
  };
  return { root, items, edges };
}

export interface PlacedNode {
  id: string;
  parentId?: string;
  position: { x: number; y: number };
  width: number;
  height: number;
  item: ScopeItem;
}

/** ELK's answer as nodes, parents before their children (React Flow needs that order). */
export function placedNodes(laidOut: ElkNode, items: ReadonlyMap<string, ScopeItem>): PlacedNode[] {
  const out: PlacedNode[] = [];
  const walk = (n: ElkNode, parent: string | undefined) => {
    const item = items.get(n.id);
    if (item) out.push({ id: n.id, ...(parent ? { parentId: parent } : {}), position: { x: n.x ?? 0, y: n.y ?? 0 }, width: n.width ?? 0, height: n.height ?? 0, item });
    for (const c of n.children ?? []) walk(c, item ? n.id : undefined);
  };
  walk(laidOut, undefined);
  return out;
}

/** `ping → pong → ping`: a cycle as people read it. */
export function cyclePath(cycle: readonly string[] | undefined): string {
  return (cycle ?? []).join(' → ');
}

/**
 * The Keelson object a scope object was written as, when it was: a DataObject
 * or Target declared in a namespace (the root scope) is an object of that
 * name. Values written by an export or handed down from a parent's imports
 * have no YAML of their own (their installation's link is one edge away).
 */
export function declaredObjectHref(o: Pick<ScopeObject, 'kind' | 'key' | 'origin' | 'scope'>): string | null {
  if (o.origin !== 'declared' || !o.scope.startsWith('ns:')) return null;
  if (o.kind !== 'data' && o.kind !== 'target') return null;
  return objectHref({ kind: o.kind === 'data' ? 'dataobject' : 'target', namespace: o.scope.slice('ns:'.length), name: o.key });
}
