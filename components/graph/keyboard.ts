/**
 * Keyboard moves on the graph: an arrow key goes to the connected node
 * most in that direction, and focus follows once the node is drawn.
 */
import type { FlowGraph } from './flow';
import type { adjacency } from './model';

export type Dir = { x: number; y: number };
export const DIRS: Record<string, Dir> = { ArrowRight: { x: 1, y: 0 }, ArrowLeft: { x: -1, y: 0 }, ArrowDown: { x: 0, y: 1 }, ArrowUp: { x: 0, y: -1 } };

/**
 * The node an arrow key moves to: the connected node most in that
 * direction; failing that, the nearest node in that direction at all, so
 * the keyboard never gets stuck on a leaf.
 */
export function step(flow: FlowGraph, adj: ReturnType<typeof adjacency>, from: string, d: Dir): string | undefined {
  const p = flow.centres.get(from);
  if (!p) return undefined;
  const score = (id: string, cone: boolean) => {
    const c = flow.centres.get(id);
    if (!c || id === from) return Infinity;
    const along = (c.x - p.x) * d.x + (c.y - p.y) * d.y;
    const across = Math.abs((c.x - p.x) * d.y - (c.y - p.y) * d.x);
    if (along <= 1 || (cone && across > along * 2)) return Infinity;
    return along + 2 * across;
  };
  const best = (ids: Iterable<string>, cone: boolean) => {
    let pick: string | undefined;
    let min = Infinity;
    for (const id of ids) {
      const s = score(id, cone);
      if (s < min) (min = s), (pick = id);
    }
    return pick;
  };
  const linked = [...(adj.out.get(from) ?? []), ...(adj.in.get(from) ?? [])];
  return best(linked, true) ?? best(linked, false) ?? best(flow.centres.keys(), true);
}

/** Focus a node's element once React Flow has rendered it (it may just have scrolled into view). */
export function focusNodeElement(root: HTMLElement | null, id: string, tries = 10) {
  requestAnimationFrame(() => {
    const el = root?.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
    if (el) el.focus({ preventScroll: true });
    else if (tries > 0) focusNodeElement(root, id, tries - 1);
  });
}
