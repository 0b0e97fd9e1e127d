/**
 * Sibling order in one Landscaper scope (the controller's dependencies.go):
 * predecessors from data flow (who exports what another imports), duplicate
 * exporters, and cycles, which fail the parent with the cycle's path.
 */
import type { Installation, LandscaperError } from './types';

export interface GraphResult {
  order: string[];
  predecessors: Map<string, string[]>;
  errors: LandscaperError[];
}

export function dependencyGraph(nodes: readonly Installation[], what = 'subinstallations'): GraphResult {
  const exporters = new Map<string, string[]>();
  const add = (key: string, name: string) => exporters.set(key, [...(exporters.get(key) ?? []), name]);
  for (const n of nodes) {
    for (const e of n.exports.data) add(`data:${e.dataRef}`, n.name);
    for (const e of n.exports.targets) add(`target:${e.target}`, n.name);
  }
  const errors: LandscaperError[] = [];
  const duplicates = [...exporters].filter(([, names]) => names.length > 1);
  for (const [key, names] of duplicates) {
    const k = key.slice(key.indexOf(':') + 1);
    errors.push({
      code: 'duplicate_export',
      message: `the following exports are exported by multiple nested installations: '${k}' is exported by [${names.join(', ')}]`,
      exportedBy: { key: k, installations: names },
    });
  }
  const predecessors = new Map<string, string[]>();
  for (const n of nodes) {
    const keys = [
      ...n.imports.data.flatMap((d) => (d.dataRef !== undefined ? [`data:${d.dataRef}`] : [])),
      ...n.imports.targets.flatMap((t) => [...(t.target !== undefined ? [t.target] : []), ...(t.targets ?? []), ...Object.values(t.targetMap ?? {})].map((x) => `target:${x}`)),
    ];
    const preds = new Set<string>();
    for (const k of keys) for (const p of exporters.get(k) ?? []) if (p !== n.name) preds.add(p);
    predecessors.set(n.name, [...preds]);
  }
  // Cycles: depth-first along "depends on" edges, in declaration order.
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  let cycle: string[] | null = null;
  const visit = (name: string): void => {
    if (cycle) return;
    state.set(name, 'active');
    stack.push(name);
    for (const p of predecessors.get(name) ?? []) {
      if (state.get(p) === 'active') {
        cycle = [...stack.slice(stack.indexOf(p)), p];
        return;
      }
      if (!state.has(p)) visit(p);
      if (cycle) return;
    }
    stack.pop();
    state.set(name, 'done');
  };
  for (const n of nodes) if (!state.has(n.name)) visit(n.name);
  if (cycle) {
    const path: string[] = cycle;
    errors.push({ code: 'cycle', message: `the ${what} have a cycle: ${path.join(' -{depends_on}-> ')}`, cycle: path });
  }
  // Order: whatever has all predecessors placed, ties in declaration order.
  const order: string[] = [];
  const placed = new Set<string>();
  for (let progress = true; progress; ) {
    progress = false;
    for (const n of nodes) {
      if (placed.has(n.name) || !(predecessors.get(n.name) ?? []).every((p) => placed.has(p))) continue;
      placed.add(n.name);
      order.push(n.name);
      progress = true;
      break;
    }
  }
  return { order, predecessors, errors };
}
