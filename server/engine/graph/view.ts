/**
 * The desired-state graph as the browser receives it: budgeted and compact.
 *
 * A 20,000-instance graph is ~22 MB of JSON (every node repeats its key,
 * cluster, namespaces and the claims that use it), which a browser tab
 * downloads, parses and keeps for nothing: it draws ~2,000 nodes anyway
 * (components/graph/budget.ts). So the server ranks nodes as the browser's
 * budget does (problems, their neighbours, changes, then model order),
 * sends the first `budget` of them and counts the rest in one bucket per
 * group; a bucket is opened with a second bounded request (`drillDesired`):
 * into its members when they are few, else into smaller buckets (by
 * service, else by ranges). Strings are interned, ids and labels that
 * follow from other fields are not sent, and the encoded answer is checked
 * against a byte limit (the budget shrinks until it fits), so the answer
 * stays under 2 MB whatever the size of the state.
 *
 * Pure (an engine module), so the browser runs it too: the console decodes with `decodeView`.
 */
import type { GraphEdge, GraphGroup, GraphModel, GraphNode } from './index';
import { instanceKey } from '../state/key';

/** Bytes an answer may take as JSON; 2 MB is the promise, the rest is superjson's envelope and headroom. */
export const VIEW_MAX_BYTES = 1_900_000;
/** Nodes sent in full unless the request asks otherwise (the console's default drawing budget). */
export const VIEW_DEFAULT_BUDGET = 2000;
/** The console's largest budget choice. */
export const VIEW_MAX_BUDGET = 5000;
/** A bucket this size or smaller opens into its members; bigger ones into smaller buckets. */
export const DRILL_PAGE = 400;
/** A bucket opens into at most this many smaller ones. */
export const DRILL_CHILDREN = 24;
/** A shared instance lists at most this many claims (its side panel lists them all). */
export const CLAIMS_PER_NODE = 2000;
/** Error texts are cut here: the side panel shows them in full. */
const ERROR_CHARS = 2000;

/** Bucket ids: `bucket:remote:` + group id + `@from-to` (a range of that group's hidden nodes, in rank order). */
const REMOTE = 'bucket:remote:';

/** Counted nodes the server did not send. */
export interface RemoteBucket {
  id: string;
  group: string;
  label: string;
  count: number;
  problems: number;
  /** Edges between its members and nodes outside it. */
  links: number;
}

/** An edge end: a node's index in `n`, or an id (a bucket, a node sent earlier). */
type End = number | string;
/** [source, target, kind (string index), count when > 1]. */
type CompactEdge = [End, End, number] | [End, End, number, number];

/**
 * The wire form. `n`: instance nodes as number tuples (string indices,
 * see `encodeInstance`); `x`: any other node as is; `e`: edges.
 */
export interface CompactGraph {
  v: 1;
  s: string[];
  g: [number, number, number][];
  n: (number | number[])[][];
  x: GraphNode[];
  e: CompactEdge[];
  b: RemoteBucket[];
}

export interface DesiredView {
  generation: number;
  revisionId?: number;
  /** Nodes in the whole graph. */
  total: number;
  /** Nodes sent in full (≤ total). */
  sent: number;
  /** The budget the server used (smaller than asked when the byte limit required it). */
  budget: number;
  graph: CompactGraph;
}

export interface DrillAnswer {
  generation: number;
  revisionId?: number;
  bucket: string;
  graph: CompactGraph;
}

// ---------------------------------------------------------------- encoding

class Strings {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  of(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

const FLAG_PROBLEM = 1;
/** In an instance's label slot: the label is its key's display name. */
const LABEL_FROM_KEY = -2;
const FLAG_NOT_PROBLEM = 2;

type InstanceNode = Extract<GraphNode, { kind: 'instance' }>;
const INSTANCE_KEYS = new Set(['id', 'kind', 'label', 'group', 'key', 'deployName', 'namespace', 'owner', 'source', 'component', 'cluster', 'k8sNamespace', 'code', 'claims', 'error', 'actual', 'overlay', 'problem']);

/** Whether a node survives the tuple form exactly (an engine field added later would not: it goes as is). */
function tupleable(n: GraphNode): n is InstanceNode {
  if (n.kind !== 'instance' || n.id !== `instance:${n.key}`) return false;
  for (const k of Object.keys(n)) if (!INSTANCE_KEYS.has(k)) return false;
  return true;
}

/**
 * [keyHead, keyTail, deployName, label, group, namespace, owner, source,
 * component, cluster, k8sNamespace, code, flags, error, actual, overlay,
 * claims[]]: string indices, -1 for absent. A key is split at its last `#`
 * so instances of one context share the head.
 */
function encodeInstance(n: InstanceNode, s: Strings): (number | number[])[] {
  const cut = n.key.lastIndexOf('#');
  const opt = (v: string | null | undefined) => (v === undefined || v === null ? -1 : s.of(v));
  const flags = n.problem === true ? FLAG_PROBLEM : n.problem === false ? FLAG_NOT_PROBLEM : 0;
  return [
    s.of(n.key.slice(0, cut + 1)),
    s.of(n.key.slice(cut + 1)),
    s.of(n.deployName),
    // The usual label is the instance's display name, made from its key again on arrival rather than sent per instance.
    n.label === instanceKey.displayName(n.key) ? LABEL_FROM_KEY : s.of(n.label),
    s.of(n.group),
    s.of(n.namespace),
    s.of(n.owner),
    s.of(n.source),
    s.of(n.component),
    s.of(n.cluster),
    s.of(n.k8sNamespace),
    n.code === null ? -1 : s.of(n.code),
    flags,
    n.error === undefined ? -1 : s.of(n.error.length > ERROR_CHARS ? `${n.error.slice(0, ERROR_CHARS)}…` : n.error),
    opt(n.actual),
    opt(n.overlay),
    n.claims.slice(0, CLAIMS_PER_NODE).map((c) => s.of(c)),
  ];
}

function decodeInstance(t: (number | number[])[], s: readonly string[]): InstanceNode {
  const str = (i: number | number[]) => s[i as number]!;
  const key = str(t[0]!) + str(t[1]!);
  const n: InstanceNode = {
    id: `instance:${key}`,
    kind: 'instance',
    label: t[3] === LABEL_FROM_KEY ? instanceKey.displayName(key) : str(t[3]!),
    group: str(t[4]!),
    key,
    deployName: str(t[2]!),
    namespace: str(t[5]!),
    owner: str(t[6]!),
    source: str(t[7]!),
    component: str(t[8]!),
    cluster: str(t[9]!),
    k8sNamespace: str(t[10]!),
    code: t[11] === -1 ? null : (str(t[11]!) as InstanceNode['code']),
    claims: (t[16] as number[]).map((i) => s[i]!),
  };
  if (t[13] !== -1) n.error = str(t[13]!);
  if (t[14] !== -1) n.actual = str(t[14]!) as InstanceNode['actual'];
  if (t[12] === FLAG_PROBLEM) n.problem = true;
  else if (t[12] === FLAG_NOT_PROBLEM) n.problem = false;
  if (t[15] !== -1) n.overlay = str(t[15]!) as InstanceNode['overlay'];
  return n;
}

/** An edge to send: its ends, and how many model edges it stands for. */
interface OutEdge {
  source: string;
  target: string;
  kind: GraphEdge['kind'];
  count: number;
}

function encode(nodes: readonly GraphNode[], edges: readonly OutEdge[], groups: readonly GraphGroup[], buckets: RemoteBucket[]): CompactGraph {
  const s = new Strings();
  const index = new Map<string, number>();
  const n: (number | number[])[][] = [];
  const x: GraphNode[] = [];
  for (const node of nodes) {
    if (tupleable(node)) {
      index.set(node.id, n.length);
      n.push(encodeInstance(node, s));
    } else x.push(node);
  }
  const end = (id: string): End => index.get(id) ?? id;
  const e: CompactEdge[] = edges.map((ed) => {
    const k = s.of(ed.kind);
    return ed.count > 1 ? [end(ed.source), end(ed.target), k, ed.count] : [end(ed.source), end(ed.target), k];
  });
  return { v: 1, s: s.list, g: groups.map((g) => [s.of(g.id), s.of(g.label), s.of(g.kind)]), n, x, e, b: buckets };
}

/** A model edge's id, as the engine names it (`${kind}:${source}->${target}`); merged edges into buckets are `agg:`. */
const edgeId = (source: string, target: string, kind: string, count: number, direct: boolean) => (direct && count === 1 ? `${kind}:${source}->${target}` : `agg:${source}->${target}`);

/** A decoded graph: the model the console knows, buckets it may open, and edge counts (> 1 where merged into a bucket). */
export interface ViewModel extends GraphModel {
  edges: (GraphEdge & { count?: number })[];
  remote: RemoteBucket[];
}

export function decodeView(c: CompactGraph): ViewModel {
  const nodes: GraphNode[] = c.n.map((t) => decodeInstance(t, c.s));
  const ids = nodes.map((node) => node.id);
  nodes.push(...c.x);
  const remote = new Set(c.b.map((b) => b.id));
  const end = (v: End) => (typeof v === 'number' ? ids[v]! : v);
  const edges = c.e.map(([a, b, k, count]) => {
    const source = end(a);
    const target = end(b);
    const kind = c.s[k] as GraphEdge['kind'];
    const direct = !remote.has(source) && !remote.has(target);
    const edge: GraphEdge & { count?: number } = { id: edgeId(source, target, kind, count ?? 1, direct), source, target, kind };
    if (count !== undefined) edge.count = count;
    return edge;
  });
  return { nodes, edges, groups: c.g.map(([id, label, kind]) => ({ id: c.s[id]!, label: c.s[label]!, kind: c.s[kind] as GraphGroup['kind'] })), remote: c.b };
}

/** Bytes of a value as JSON (what the wire carries, before compression). */
export function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v));
}

// ---------------------------------------------------------------- ranking and buckets

interface Ranked {
  shown: GraphNode[];
  /** Hidden nodes per group, in drill order: by service, then model order. */
  hidden: Map<string, GraphNode[]>;
}

const isChange = (n: GraphNode) => n.overlay === 'added' || n.overlay === 'updated' || n.overlay === 'removed';
const serviceOf = (n: GraphNode) => (n.kind === 'instance' ? `${n.namespace}/${n.owner}` : n.kind);

/** The browser budget's ranking (components/graph/budget.ts), so what the server sends is what the browser would have drawn. */
function rank(model: GraphModel, budget: number): Ranked {
  if (model.nodes.length <= budget) return { shown: model.nodes, hidden: new Map() };
  const problems = new Set(model.nodes.filter((n) => n.problem).map((n) => n.id));
  const near = new Set<string>();
  if (problems.size) {
    for (const e of model.edges) {
      if (problems.has(e.source)) near.add(e.target);
      if (problems.has(e.target)) near.add(e.source);
    }
  }
  const tier = (n: GraphNode) => (n.problem ? 1 : near.has(n.id) ? 2 : isChange(n) ? 3 : 4);
  const order = model.nodes.map((n, i) => ({ n, t: tier(n), i }));
  order.sort((a, b) => a.t - b.t || a.i - b.i);
  const keep = new Set(order.slice(0, budget).map((o) => o.n.id));
  const shown: GraphNode[] = [];
  const hidden = new Map<string, { n: GraphNode; i: number }[]>();
  model.nodes.forEach((n, i) => {
    if (keep.has(n.id)) return void shown.push(n);
    const list = hidden.get(n.group);
    if (list) list.push({ n, i });
    else hidden.set(n.group, [{ n, i }]);
  });
  const sorted = new Map<string, GraphNode[]>();
  for (const [g, list] of hidden) {
    list.sort((a, b) => (serviceOf(a.n) < serviceOf(b.n) ? -1 : serviceOf(a.n) > serviceOf(b.n) ? 1 : a.i - b.i));
    sorted.set(g, list.map((x) => x.n));
  }
  return { shown, hidden: sorted };
}

const bucketId = (group: string, from: number, to: number) => `${REMOTE}${group}@${from}-${to}`;

function parseBucket(id: string): { group: string; from: number; to: number } | null {
  if (!id.startsWith(REMOTE)) return null;
  const at = id.lastIndexOf('@');
  const m = /^(\d+)-(\d+)$/.exec(id.slice(at + 1));
  if (at < REMOTE.length || !m) return null;
  return { group: id.slice(REMOTE.length, at), from: Number(m[1]), to: Number(m[2]) };
}

/** What names a range of hidden nodes: their service, or first … last. */
function rangeLabel(members: readonly GraphNode[]): string {
  const first = serviceOf(members[0]!);
  const last = serviceOf(members[members.length - 1]!);
  return first === last ? first : `${first} … ${last}`;
}

/**
 * Edges for an answer: those between sent nodes as they are; those with one
 * end in a bucket merged onto the bucket and counted; the rest dropped.
 * Also counts each bucket's links.
 */
function routeEdges(model: GraphModel, sent: ReadonlySet<string>, bucketOf: ReadonlyMap<string, RemoteBucket>, known: (id: string) => boolean): OutEdge[] {
  const out = new Map<string, OutEdge>();
  for (const e of model.edges) {
    const sb = bucketOf.get(e.source);
    const tb = bucketOf.get(e.target);
    const s = sent.has(e.source) || (!sb && known(e.source)) ? e.source : sb?.id;
    const t = sent.has(e.target) || (!tb && known(e.target)) ? e.target : tb?.id;
    if (!s || !t || s === t) continue;
    if (!sent.has(s) && !sent.has(t)) continue;
    if (sb && s === sb.id) sb.links++;
    if (tb && t === tb.id) tb.links++;
    const key = `${e.kind}|${s}|${t}`;
    const prev = out.get(key);
    if (prev) prev.count++;
    else out.set(key, { source: s, target: t, kind: e.kind, count: 1 });
  }
  return [...out.values()];
}

function bucketFor(group: string, label: string, members: readonly GraphNode[], from: number, to: number): RemoteBucket {
  return { id: bucketId(group, from, to), group, label, count: to - from, problems: members.filter((n) => n.problem).length, links: 0 };
}

/**
 * The budgeted graph: up to `budget` nodes in full, one bucket per group
 * for the rest. Shrinks the budget until the answer fits `maxBytes`.
 */
export function budgetView(model: GraphModel, opts: { budget?: number; maxBytes?: number } = {}): { total: number; sent: number; budget: number; graph: CompactGraph } {
  const maxBytes = opts.maxBytes ?? VIEW_MAX_BYTES;
  let budget = Math.min(opts.budget ?? VIEW_DEFAULT_BUDGET, VIEW_MAX_BUDGET);
  for (;;) {
    const { shown, hidden } = rank(model, budget);
    const sent = new Set(shown.map((n) => n.id));
    const bucketOf = new Map<string, RemoteBucket>();
    const buckets: RemoteBucket[] = [];
    const groupLabel = new Map(model.groups.map((g) => [g.id, g.label]));
    for (const [group, members] of hidden) {
      const b = bucketFor(group, `more in ${groupLabel.get(group) ?? group}`, members, 0, members.length);
      buckets.push(b);
      for (const m of members) bucketOf.set(m.id, b);
    }
    const edges = routeEdges(model, sent, bucketOf, () => false);
    const used = new Set([...shown.map((n) => n.group), ...buckets.map((b) => b.group)]);
    const graph = encode(shown, edges, model.groups.filter((g) => used.has(g.id)), buckets);
    if (budget === 0 || jsonBytes(graph) <= maxBytes) return { total: model.nodes.length, sent: shown.length, budget, graph };
    // Too big (long claim lists, long keys): fewer nodes, same ranking.
    budget = Math.floor(budget / 2);
  }
}

export class UnknownBucket extends Error {}

/**
 * One bucket of `budgetView(model, { budget })` opened: its members (with
 * their edges to nodes sent before, and to each other) when at most
 * DRILL_PAGE, else up to DRILL_CHILDREN smaller buckets — one per service
 * when that many or fewer, else equal ranges.
 */
export function drillView(model: GraphModel, opts: { budget?: number; bucket: string }): CompactGraph {
  const at = parseBucket(opts.bucket);
  if (!at) throw new UnknownBucket(`No bucket ${opts.bucket}`);
  // The same ranking as the view the bucket came from (the browser sends back the budget that view used), so the range means the same nodes.
  const { hidden } = rank(model, Math.min(opts.budget ?? VIEW_DEFAULT_BUDGET, VIEW_MAX_BUDGET));
  const all = hidden.get(at.group);
  if (!all || at.from >= at.to || at.to > all.length) throw new UnknownBucket(`No bucket ${opts.bucket}`);
  const members = all.slice(at.from, at.to);
  const group = model.groups.filter((g) => g.id === at.group);
  // Nodes outside the bucket the browser may hold: everything but this group's other hidden ranges is a guess, so only the shown ones count.
  const hiddenIds = new Set<string>();
  for (const list of hidden.values()) for (const n of list) hiddenIds.add(n.id);
  const shownElsewhere = (id: string) => !hiddenIds.has(id);
  if (members.length <= DRILL_PAGE) {
    const sent = new Set(members.map((n) => n.id));
    const graph = encode(members, routeEdges(model, sent, new Map(), shownElsewhere), group, []);
    // Few but huge members (thousands of claims each): split rather than break the byte limit.
    if (members.length === 1 || jsonBytes(graph) <= VIEW_MAX_BYTES) return graph;
  }
  const parts: [number, number][] = [];
  const services: [number, number][] = [];
  for (let i = 0; i < members.length; ) {
    let j = i + 1;
    while (j < members.length && serviceOf(members[j]!) === serviceOf(members[i]!)) j++;
    services.push([i, j]);
    i = j;
  }
  if (services.length > 1 && services.length <= DRILL_CHILDREN) parts.push(...services);
  else {
    const size = Math.ceil(members.length / DRILL_CHILDREN);
    for (let i = 0; i < members.length; i += size) parts.push([i, Math.min(i + size, members.length)]);
  }
  const bucketOf = new Map<string, RemoteBucket>();
  const buckets = parts.map(([a, b]) => {
    const list = members.slice(a, b);
    const bucket = bucketFor(at.group, rangeLabel(list), list, at.from + a, at.from + b);
    for (const m of list) bucketOf.set(m.id, bucket);
    return bucket;
  });
  // Edges between the new buckets and shown nodes, merged and counted like the first answer's.
  const shownIds = new Set(model.nodes.filter((n) => shownElsewhere(n.id)).map((n) => n.id));
  const edges = routeEdges(model, shownIds, bucketOf, () => false).filter((e) => bucketOf.has(e.source) || bucketOf.has(e.target) || e.source.startsWith(REMOTE) || e.target.startsWith(REMOTE));
  return encode([], edges, group, buckets);
}
