/**
 * Folding a namespace (or cluster) into one summary node: its name stays on
 * its box, its nodes — shown or already counted in budget buckets — become
 * one counted node, edges to them end at it (merged and counted). Pure: the
 * canvas folds after the budget, the unit tests without a browser.
 */
import type { Bucket, BudgetedGraph, GraphKind, ViewEdge } from './types';

export const FOLD_PREFIX = 'bucket:fold:';
export const foldId = (group: string) => `${FOLD_PREFIX}${group}`;

export function foldGroups(g: BudgetedGraph, folded: ReadonlySet<string>): BudgetedGraph {
  const groups = new Map(g.groups.filter((x) => folded.has(x.id)).map((x) => [x.id, x]));
  if (groups.size === 0) return g;

  const summaries = new Map<string, Bucket>();
  for (const grp of groups.values()) {
    summaries.set(grp.id, { id: foldId(grp.id), group: grp.id, label: grp.label, count: 0, kinds: {}, problems: 0, members: [], links: 0, summary: true });
  }
  const add = (s: Bucket, kinds: Partial<Record<GraphKind, number>>, count: number, problems: number, members: readonly string[]) => {
    s.count += count;
    s.problems += problems;
    for (const [k, c] of Object.entries(kinds) as [GraphKind, number][]) s.kinds[k] = (s.kinds[k] ?? 0) + c;
    s.members.push(...members);
  };

  const moved = new Map<string, string>();
  const nodes = g.nodes.filter((n) => {
    const s = summaries.get(n.group);
    if (!s) return true;
    add(s, { [n.kind]: 1 }, 1, n.problem ? 1 : 0, [n.id]);
    moved.set(n.id, s.id);
    return false;
  });
  const buckets: Bucket[] = [];
  for (const b of g.buckets) {
    const s = summaries.get(b.group);
    if (!s) {
      buckets.push(b);
      continue;
    }
    add(s, b.kinds, b.count, b.problems, b.members);
    moved.set(b.id, s.id);
  }
  buckets.unshift(...summaries.values());

  const bucketOf = new Map(g.bucketOf);
  for (const [id, to] of moved) if (!id.startsWith('bucket:')) bucketOf.set(id, to);
  for (const [id, b] of g.bucketOf) {
    const to = moved.get(b);
    if (to) bucketOf.set(id, to);
  }

  const groupOf = new Map<string, string>();
  for (const n of nodes) groupOf.set(n.id, n.group);
  for (const b of buckets) groupOf.set(b.id, b.group);
  const byId = new Map([...summaries.values()].map((s) => [s.id, s]));
  const isSummary = new Set(byId.keys());
  const merged = new Map<string, ViewEdge>();
  const hiddenLinks = new Map(g.hiddenLinks);
  for (const [id] of moved) hiddenLinks.delete(id);
  for (const e of g.edges) {
    const s = moved.get(e.source) ?? e.source;
    const t = moved.get(e.target) ?? e.target;
    if (s === t) continue;
    const key = `${s}->${t}`;
    const prev = merged.get(key);
    if (prev) {
      prev.count += e.count;
      continue;
    }
    const direct = s === e.source && t === e.target;
    merged.set(key, { ...e, id: direct ? e.id : `fold:${key}`, source: s, target: t, cross: groupOf.get(s) !== groupOf.get(t) });
  }
  // Links into a summary are counted on it and, like a bucket's, on the shown node at the other end.
  for (const e of g.edges) {
    const s = moved.get(e.source) ?? e.source;
    const t = moved.get(e.target) ?? e.target;
    if (s === t || isSummary.has(s) === isSummary.has(t)) continue;
    const summary = byId.get(isSummary.has(s) ? s : t)!;
    summary.links += e.count;
    const shownEnd = isSummary.has(s) ? t : s;
    if (!shownEnd.startsWith('bucket:')) hiddenLinks.set(shownEnd, (hiddenLinks.get(shownEnd) ?? 0) + e.count);
  }

  return { ...g, nodes, buckets, edges: [...merged.values()], bucketOf, hiddenLinks };
}
