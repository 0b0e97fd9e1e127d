/**
 * The node budget. A browser draws a few thousand nodes comfortably
 * (reference/stack.md §7: 2,000 nodes first render ≈0.5 s with
 * visible-only rendering, 5,000 ≈1.1 s) and Argo CD users lost their tab to
 * 14k-resource trees (argo-cd#29125). So above the budget we keep the nodes
 * that matter — problems first, then their neighbours, then what a revision
 * changes, then model order — and fold the rest into counted buckets per
 * group. A bucket expands on click: into its members when they are few
 * enough, else into smaller buckets (by service or kind, else by ranges),
 * so any node is a few clicks away and nothing is silently dropped.
 */
import type { Bucket, BudgetedGraph, GraphGroup, GraphKind, GraphNode, ServerModel, ViewEdge } from './types';

/** Nodes drawn before anything is folded into buckets. */
export const DEFAULT_BUDGET = 2000;
export const BUDGET_CHOICES = [200, 500, 1000, 2000, 5000] as const;
/** A bucket this size or smaller opens into its members. */
export const EXPAND_MAX = 400;
/** An expanded bucket splits into at most this many smaller ones. */
const MAX_CHILDREN = 24;

export interface BudgetOptions {
  budget: number;
  /** Always shown (found by search, opened from a link). */
  pinned?: ReadonlySet<string>;
  /** Bucket ids the user expanded. */
  expanded?: ReadonlySet<string>;
}

const KIND_PLURAL: Record<GraphKind, string> = {
  user: 'users',
  claim: 'claims',
  service: 'services',
  context: 'contexts',
  bundle: 'bundles',
  component: 'components',
  instance: 'instances',
};

export function kindLabel(kind: GraphKind, count: number): string {
  return count === 1 ? kind : KIND_PLURAL[kind];
}

/** The second level of folding: instances by service, policy objects by kind. */
function subKey(n: GraphNode): { key: string; label: string } {
  if (n.kind === 'instance') return { key: `svc:${n.namespace}/${n.owner}`, label: `${n.namespace}/${n.owner}` };
  return { key: `kind:${n.kind}`, label: KIND_PLURAL[n.kind] };
}

/** What names a range of folded nodes (an instance's label is its full display name). */
function rangeName(n: GraphNode): string {
  return n.label;
}

function isChange(n: GraphNode) {
  return n.overlay === 'added' || n.overlay === 'updated' || n.overlay === 'removed';
}

/** Buckets the server counted (what it did not send), drawn as they are; opening one is a request (graph-explorer). */
function remoteBuckets(model: ServerModel): Bucket[] {
  return (model.remote ?? []).map((r) => ({ id: r.id, group: r.group, label: r.label, count: r.count, kinds: { instance: r.count }, problems: r.problems, members: [], links: 0, remote: true }));
}

export function applyBudget(model: ServerModel, opts: BudgetOptions): BudgetedGraph {
  const pinned = opts.pinned ?? new Set<string>();
  const expanded = opts.expanded ?? new Set<string>();
  const groupOf = new Map<string, string>();
  for (const n of model.nodes) groupOf.set(n.id, n.group);
  const remote = remoteBuckets(model);

  if (model.nodes.length <= opts.budget && remote.length === 0) {
    return {
      nodes: model.nodes,
      buckets: [],
      edges: model.edges.map((e) => ({ id: e.id, source: e.source, target: e.target, kind: e.kind, count: 1, cross: groupOf.get(e.source) !== groupOf.get(e.target) })),
      groups: model.groups,
      total: model.nodes.length,
      hidden: 0,
      bucketOf: new Map(),
      hiddenLinks: new Map(),
    };
  }

  // ---- rank
  const problemNeighbours = new Set<string>();
  const problems = new Set(model.nodes.filter((n) => n.problem).map((n) => n.id));
  if (problems.size) {
    for (const e of model.edges) {
      if (problems.has(e.source)) problemNeighbours.add(e.target);
      if (problems.has(e.target)) problemNeighbours.add(e.source);
    }
  }
  const tier = (n: GraphNode) => (pinned.has(n.id) ? 0 : n.problem ? 1 : problemNeighbours.has(n.id) ? 2 : isChange(n) ? 3 : 4);
  const order = model.nodes.map((n, i) => ({ n, t: tier(n), i }));
  order.sort((a, b) => a.t - b.t || a.i - b.i);

  const shown: GraphNode[] = [];
  const hidden: GraphNode[] = [];
  for (const { n, t } of order) (t === 0 || shown.length < opts.budget ? shown : hidden).push(n);

  // ---- fold the rest, honouring expansions
  const buckets: Bucket[] = [...remote];
  const bucketOf = new Map<string, string>();
  const reveal = (members: GraphNode[]) => shown.push(...members);
  const emit = (id: string, group: string, label: string, members: GraphNode[]) => {
    const kinds: Partial<Record<GraphKind, number>> = {};
    let probs = 0;
    for (const m of members) {
      kinds[m.kind] = (kinds[m.kind] ?? 0) + 1;
      if (m.problem) probs++;
      bucketOf.set(m.id, id);
    }
    buckets.push({ id, group, label, count: members.length, kinds, problems: probs, members: members.map((m) => m.id), links: 0 });
  };
  const visit = (id: string, group: string, label: string, members: GraphNode[], level: 'sub' | 'range') => {
    if (!expanded.has(id)) return emit(id, group, label, members);
    if (members.length <= EXPAND_MAX) return reveal(members);
    if (level === 'sub') {
      const parts = partition(members, (m) => subKey(m).key);
      if (parts.size > 1 && parts.size <= MAX_CHILDREN) {
        for (const [key, list] of parts) visit(`${id}/${key}`, group, subKey(list[0]!).label, list, 'range');
        return;
      }
    }
    // Too many (or a single) categories: contiguous ranges in rank order.
    const size = Math.ceil(members.length / MAX_CHILDREN);
    for (let i = 0, r = 0; i < members.length; i += size, r++) {
      const part = members.slice(i, i + size);
      const first = rangeName(part[0]!);
      const last = rangeName(part[part.length - 1]!);
      const label = first === last ? first : `${first} … ${last}`;
      visit(`${id}/r${r}`, group, label, part, 'range');
    }
  };
  const groupLabel = new Map(model.groups.map((g) => [g.id, g.label]));
  for (const [group, members] of partition(hidden, (n) => n.group)) {
    visit(`bucket:${group}`, group, `more in ${groupLabel.get(group) ?? group}`, members, 'sub');
  }

  // ---- edges: an end that is folded moves to its bucket; parallel edges merge
  const bucketGroup = new Map(buckets.map((b) => [b.id, b.group]));
  const shownIds = new Set(shown.map((n) => n.id));
  const remoteIds = new Set(remote.map((b) => b.id));
  const rep = (id: string) => (shownIds.has(id) || remoteIds.has(id) ? id : bucketOf.get(id));
  const merged = new Map<string, ViewEdge>();
  const hiddenLinks = new Map<string, number>();
  const byId = new Map(buckets.map((b) => [b.id, b]));
  for (const e of model.edges) {
    const s = rep(e.source);
    const t = rep(e.target);
    if (!s || !t || s === t) continue;
    // An edge into a remote bucket already stands for several.
    const n = e.count ?? 1;
    const sb = byId.get(s);
    const tb = byId.get(t);
    if (!sb !== !tb) {
      const shownEnd = sb ? t : s;
      hiddenLinks.set(shownEnd, (hiddenLinks.get(shownEnd) ?? 0) + n);
      (sb ?? tb)!.links += n;
    }
    const key = `${s}->${t}`;
    const prev = merged.get(key);
    if (prev) {
      prev.count += n;
      continue;
    }
    const direct = s === e.source && t === e.target;
    const gs = groupOf.get(s) ?? bucketGroup.get(s);
    const gt = groupOf.get(t) ?? bucketGroup.get(t);
    merged.set(key, { id: direct ? e.id : `agg:${key}`, source: s, target: t, kind: e.kind, count: n, cross: gs !== gt });
  }

  const used = new Set<string>([...shown.map((n) => n.group), ...buckets.map((b) => b.group)]);
  const groups: GraphGroup[] = model.groups.filter((g) => used.has(g.id));
  // Keep the model's order for shown nodes: layouts and lists stay stable as buckets open.
  const index = new Map(model.nodes.map((n, i) => [n.id, i]));
  shown.sort((a, b) => index.get(a.id)! - index.get(b.id)!);
  return {
    nodes: shown,
    buckets,
    edges: [...merged.values()],
    groups,
    total: model.nodes.length + remote.reduce((s, b) => s + b.count, 0),
    hidden: buckets.reduce((s, b) => s + b.count, 0),
    bucketOf,
    hiddenLinks,
  };
}

function partition<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

/** "120 instances, 3 claims" */
export function bucketSummary(b: Bucket): string {
  return Object.entries(b.kinds)
    .sort((x, y) => y[1]! - x[1]!)
    .map(([k, c]) => `${c!.toLocaleString('en-US')} ${kindLabel(k as GraphKind, c!)}`)
    .join(', ');
}
