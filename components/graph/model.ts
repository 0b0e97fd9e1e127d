/**
 * Pure operations on graph models in the browser: filters, the comparison
 * of two generations, subtrees, search. No React here, so the unit tests
 * and the benchmark page use exactly what the console uses.
 */
import type { GraphEdge, GraphFilters, GraphModel, GraphNode, Overlay, ServerModel } from './types';

/** Outgoing and incoming neighbours per node id. */
export interface Adjacency {
  out: Map<string, string[]>;
  in: Map<string, string[]>;
}

export function adjacency(edges: readonly { source: string; target: string }[]): Adjacency {
  const out = new Map<string, string[]>();
  const inn = new Map<string, string[]>();
  for (const e of edges) {
    push(out, e.source, e.target);
    push(inn, e.target, e.source);
  }
  return { out, in: inn };
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V) {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Every node reachable from `start` along edges (start included). */
export function downstream(adj: Adjacency, start: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const stack = [...start];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const next of adj.out.get(id) ?? []) if (!seen.has(next)) stack.push(next);
  }
  return seen;
}

/** The policy namespace a node belongs to (users belong to none). */
export function namespaceOf(n: GraphNode): string | undefined {
  return n.kind === 'user' ? undefined : n.namespace;
}

/**
 * Statuses a node can be filtered by: a claim's outcome, `problem`, the
 * overlay of a revision or comparison, an instance's actual state.
 */
export function statusesOf(n: GraphNode): string[] {
  const s: string[] = [];
  if (n.problem) s.push('problem');
  if (n.kind === 'claim') s.push(n.status);
  if (n.overlay) s.push(n.overlay);
  if (n.kind === 'instance' && n.actual) s.push(n.actual);
  return s;
}

/** Counted values for the filter menus. */
export function facets(model: GraphModel) {
  const namespaces = new Map<string, number>();
  const statuses = new Map<string, number>();
  for (const n of model.nodes) {
    const ns = namespaceOf(n);
    if (ns !== undefined) namespaces.set(ns, (namespaces.get(ns) ?? 0) + 1);
    for (const s of statusesOf(n)) statuses.set(s, (statuses.get(s) ?? 0) + 1);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => a[0].localeCompare(b[0])).map(([value, count]) => ({ value, count }));
  return { namespaces: sorted(namespaces), statuses: sorted(statuses) };
}

/** What the filters need to know beyond the model: who owns each claim (the desired graph has no claim nodes). */
export interface FilterContext {
  /** `ns/name` → user. */
  claimUsers: ReadonlyMap<string, string>;
}

/**
 * The model restricted by the toolbar's filters. Edges survive when both
 * ends do; groups when they keep a node. Returns the same object when no
 * filter is set, so memoised consumers see no change.
 */
export function filterModel<M extends ServerModel>(model: M, f: GraphFilters, ctx: FilterContext): M | ServerModel {
  if (!f.namespace && !f.claim && !f.user && !f.status && !f.changesOnly) return model;
  const isPolicy = model.nodes.some((n) => n.kind !== 'instance');
  let keep: (n: GraphNode) => boolean = () => true;
  const and = (p: (n: GraphNode) => boolean) => {
    const prev = keep;
    keep = (n) => prev(n) && p(n);
  };

  if (f.claim || f.user) {
    const user = f.user.toLowerCase();
    const claimMatches = (c: string) => (!f.claim || c === f.claim) && (!f.user || (ctx.claimUsers.get(c) ?? '').toLowerCase() === user);
    if (isPolicy) {
      // A claim, everything it uses, and its owner.
      const starts = model.nodes.filter((n) => n.kind === 'claim' && claimMatches(`${n.namespace}/${n.name}`));
      const reach = downstream(adjacency(model.edges), starts.map((n) => n.id));
      for (const c of starts) if (c.kind === 'claim') reach.add(`user:${c.user.toLowerCase()}`);
      and((n) => reach.has(n.id));
    } else {
      and((n) => n.kind === 'instance' && n.claims.some(claimMatches));
    }
  }
  if (f.status) and((n) => statusesOf(n).includes(f.status));
  if (f.changesOnly) and((n) => n.overlay !== undefined && n.overlay !== 'unchanged');
  if (f.namespace) {
    // Users have no namespace: they stay when they own a claim that stays.
    const inNs = keep;
    const owners = new Set(model.nodes.filter((n) => n.kind === 'claim' && n.namespace === f.namespace && inNs(n)).map((n) => (n.kind === 'claim' ? `user:${n.user.toLowerCase()}` : '')));
    and((n) => (n.kind === 'user' ? owners.has(n.id) : namespaceOf(n) === f.namespace));
  }

  const nodes = model.nodes.filter(keep);
  // What the server did not send cannot be filtered here: its buckets stay, counted as they were.
  const remote = model.remote ?? [];
  const ids = new Set([...nodes.map((n) => n.id), ...remote.map((b) => b.id)]);
  const groups = new Set([...nodes.map((n) => n.group), ...remote.map((b) => b.group)]);
  return {
    nodes,
    edges: model.edges.filter((e) => ids.has(e.source) && ids.has(e.target)),
    groups: model.groups.filter((g) => groups.has(g.id)),
    ...(model.remote ? { remote: model.remote, origin: model.origin } : {}),
  };
}

/**
 * A budgeted model with one of its remote buckets opened: the bucket gives
 * way to what the server answered (its members, or smaller buckets), with
 * their edges to nodes already here. Same `origin`: the same graph.
 */
export function openBucket(model: ServerModel, bucketId: string, answer: ServerModel): ServerModel {
  const known = new Set(model.nodes.map((n) => n.id));
  const nodes = [...model.nodes, ...answer.nodes.filter((n) => !known.has(n.id))];
  const remote = [...(model.remote ?? []).filter((b) => b.id !== bucketId), ...(answer.remote ?? [])];
  const ends = new Set([...nodes.map((n) => n.id), ...remote.map((b) => b.id)]);
  const edges = model.edges.filter((e) => e.source !== bucketId && e.target !== bucketId);
  const ids = new Set(edges.map((e) => e.id));
  for (const e of answer.edges) if (!ids.has(e.id) && ends.has(e.source) && ends.has(e.target)) edges.push(e);
  const groupIds = new Set(model.groups.map((g) => g.id));
  const groups = [...model.groups, ...answer.groups.filter((g) => !groupIds.has(g.id))];
  return { nodes, edges, groups, remote, origin: model.origin ?? model };
}

/** A node's content without its position in time (overlay, actual state): equal signatures = unchanged. */
function signature(n: GraphNode): string {
  const { overlay: _o, ...rest } = n;
  const plain: Record<string, unknown> = { ...rest };
  delete plain.actual;
  return JSON.stringify(plain, Object.keys(plain).sort());
}

/**
 * Two generations' graphs as one, with overlays: nodes only in `after` are
 * added, only in `before` removed, different updated, the rest unchanged.
 * Removed nodes keep their edges to nodes still drawn.
 */
export function compareModels(before: ServerModel, after: ServerModel): ServerModel {
  const old = new Map(before.nodes.map((n) => [n.id, n]));
  const present = new Set(after.nodes.map((n) => n.id));
  // Budgeted graphs (the server sent part of each): a node missing from one side may only be in a bucket.
  const partial = (before.remote?.length ?? 0) > 0 || (after.remote?.length ?? 0) > 0;
  const nodes: GraphNode[] = after.nodes.map((n) => {
    const prev = old.get(n.id);
    const overlay: Overlay = !prev ? (partial ? 'unchanged' : 'added') : signature(prev) === signature(n) ? 'unchanged' : 'updated';
    return { ...n, overlay };
  });
  if (!partial) for (const n of before.nodes) if (!present.has(n.id)) nodes.push({ ...n, overlay: 'removed', problem: false });
  const ids = new Set(nodes.map((n) => n.id));
  const edges = new Map<string, GraphEdge>(after.edges.map((e) => [e.id, e]));
  for (const e of before.edges) if (!edges.has(e.id) && ids.has(e.source) && ids.has(e.target)) edges.set(e.id, e);
  const groups = new Map(after.groups.map((g) => [g.id, g]));
  for (const g of before.groups) if (!groups.has(g.id)) groups.set(g.id, g);
  return { nodes, edges: [...edges.values()], groups: [...groups.values()], ...(after.remote ? { remote: after.remote, origin: after.origin } : {}) };
}

/**
 * Nodes matching a search, best first: exact label, label prefix, label
 * substring, then id substring (ids hold namespaces and instance keys). An
 * instance's label is its display name ("ns · service · context · component"):
 * its last part counts as the label too, so "zookeeper" finds the component first.
 */
export function searchNodes(nodes: readonly GraphNode[], query: string, limit = 50): GraphNode[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const scored: { n: GraphNode; s: number; i: number }[] = [];
  nodes.forEach((n, i) => {
    const label = n.label.toLowerCase();
    const last = label.slice(label.lastIndexOf(' · ') + 1).trimStart();
    const s = label === q || last === q ? 0 : label.startsWith(q) || last.startsWith(q) ? 1 : label.includes(q) ? 2 : n.id.toLowerCase().includes(q) ? 3 : -1;
    if (s >= 0) scored.push({ n, s, i });
  });
  scored.sort((a, b) => a.s - b.s || a.i - b.i);
  return scored.slice(0, limit).map((x) => x.n);
}

/** One line about a node for labels, tooltips and the panel's heading. */
export function describeNode(n: GraphNode): string {
  switch (n.kind) {
    case 'user':
      return `user ${n.user}`;
    case 'claim':
      return `claim ${n.namespace}/${n.name} (${n.status})`;
    case 'service':
      return `service ${n.namespace}/${n.name}`;
    case 'context':
      return `context ${n.name} of service ${n.namespace}/${n.service}`;
    case 'bundle':
      return `bundle ${n.namespace}/${n.name}`;
    case 'component':
      return `component ${n.name} of bundle ${n.namespace}/${n.bundle}`;
    case 'instance':
      return `instance ${n.label} on ${n.cluster}/${n.k8sNamespace}`;
  }
}
