/**
 * Graph models for the console, computed from policy and desired state
 * (pure). The browser lays them out and draws them; nodes carry what the
 * side panel and the filters need, ids are stable across generations so a
 * comparison can match them.
 */
import type { PolicyObjectInput } from '../resolve/policy';
import type { DesiredState } from '../state';
import type { Instance } from '../state/types';
import { instanceKey } from '../state/key';
import type { Bundle, Claim, Service } from '../model/kinds';
import { splitReference } from '../values';
import type { CodeType } from '../state/code';

export type Overlay = 'added' | 'updated' | 'removed' | 'unchanged';
export type ActualStatus = 'applied' | 'applying' | 'failed' | 'drifted' | 'not-applied';

interface NodeBase {
  id: string;
  label: string;
  /** Group (namespace, or cluster/k8s namespace) the node is drawn in. */
  group: string;
  /** Marked nodes come first in a budget: rejected/failing claims, errored instances. */
  problem?: boolean;
  overlay?: Overlay;
}

export type GraphNode =
  | (NodeBase & { kind: 'user'; user: string })
  | (NodeBase & { kind: 'claim'; namespace: string; name: string; user: string; service: string; status: 'resolved' | 'rejected' | 'error'; errors: string[] })
  | (NodeBase & { kind: 'service'; namespace: string; name: string })
  | (NodeBase & { kind: 'context'; namespace: string; service: string; name: string })
  | (NodeBase & { kind: 'bundle'; namespace: string; name: string })
  | (NodeBase & { kind: 'component'; namespace: string; bundle: string; name: string; code: CodeType | null; consumes?: string })
  | (NodeBase & {
      kind: 'instance';
      key: string;
      deployName: string;
      namespace: string;
      /** What the instance is part of (Aptomi: its service). */
      owner: string;
      source: string;
      component: string;
      cluster: string;
      k8sNamespace: string;
      code: CodeType | null;
      claims: string[];
      error?: string;
      actual?: ActualStatus;
    });

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  kind: 'owns' | 'claims' | 'context' | 'allocates' | 'has' | 'consumes' | 'depends';
}

export interface GraphGroup {
  id: string;
  label: string;
  kind: 'namespace' | 'target' | 'users';
}

export interface GraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
  groups: GraphGroup[];
}

const edge = (source: string, target: string, kind: GraphEdge['kind']): GraphEdge => ({ id: `${kind}:${source}->${target}`, source, target, kind });

function splitRef(ref: string, ns: string): [string, string] {
  const r = splitReference(ref, ns);
  return [r.namespace, r.name];
}

/**
 * The policy as a graph: users → claims → services → contexts → bundles →
 * components, and service components → the services they consume (across
 * namespaces too). Claim statuses come from `state` when given.
 */
export function policyGraph(objects: readonly PolicyObjectInput[], state?: DesiredState): GraphModel {
  const nodes = new Map<string, GraphNode>();
  const edges = new Map<string, GraphEdge>();
  const groups = new Map<string, GraphGroup>();
  const ns = (n: string) => {
    if (!groups.has(`ns:${n}`)) groups.set(`ns:${n}`, { id: `ns:${n}`, label: n, kind: 'namespace' });
    return `ns:${n}`;
  };
  const add = (n: GraphNode) => nodes.set(n.id, n);
  const link = (e: GraphEdge) => edges.set(e.id, e);
  const outcomes = new Map((state?.claims ?? []).map((c) => [`${c.namespace}/${c.name}`, c]));

  for (const o of objects) {
    if (o.kind === 'service') {
      const s = o.spec as Service;
      const sid = `service:${o.namespace}/${o.name}`;
      add({ id: sid, kind: 'service', label: o.name, group: ns(o.namespace), namespace: o.namespace, name: o.name });
      for (const c of s.contexts ?? []) {
        const cid = `context:${o.namespace}/${o.name}/${c.name}`;
        add({ id: cid, kind: 'context', label: c.name, group: ns(o.namespace), namespace: o.namespace, service: o.name, name: c.name });
        link(edge(sid, cid, 'context'));
        const [bns, bname] = splitRef(c.allocation.bundle, o.namespace);
        link(edge(cid, `bundle:${bns}/${bname}`, 'allocates'));
      }
    } else if (o.kind === 'bundle') {
      const b = o.spec as Bundle;
      const bid = `bundle:${o.namespace}/${o.name}`;
      add({ id: bid, kind: 'bundle', label: o.name, group: ns(o.namespace), namespace: o.namespace, name: o.name });
      for (const c of b.components ?? []) {
        const cid = `component:${o.namespace}/${o.name}/${c.name}`;
        add({
          id: cid,
          kind: 'component',
          label: c.name,
          group: ns(o.namespace),
          namespace: o.namespace,
          bundle: o.name,
          name: c.name,
          code: c.code?.type ?? null,
          ...(c.service ? { consumes: c.service } : {}),
        });
        link(edge(bid, cid, 'has'));
        if (c.service) {
          const [sns, sname] = splitRef(c.service, o.namespace);
          link(edge(cid, `service:${sns}/${sname}`, 'consumes'));
        }
        for (const d of c.dependencies ?? []) link(edge(cid, `component:${o.namespace}/${o.name}/${d}`, 'depends'));
      }
    } else if (o.kind === 'claim') {
      const c = o.spec as Claim;
      const key = `${o.namespace}/${o.name}`;
      const out = outcomes.get(key);
      const status = out?.status ?? 'resolved';
      add({
        id: `claim:${key}`,
        kind: 'claim',
        label: o.name,
        group: ns(o.namespace),
        namespace: o.namespace,
        name: o.name,
        user: c.user,
        service: c.service,
        status,
        errors: out?.errors ?? [],
        problem: status !== 'resolved',
      });
      const uid = `user:${c.user.toLowerCase()}`;
      if (!nodes.has(uid)) add({ id: uid, kind: 'user', label: c.user, group: 'users', user: c.user });
      link(edge(uid, `claim:${key}`, 'owns'));
      const [sns, sname] = splitRef(c.service, o.namespace);
      link(edge(`claim:${key}`, `service:${sns}/${sname}`, 'claims'));
    }
  }
  if ([...nodes.values()].some((n) => n.kind === 'user')) groups.set('users', { id: 'users', label: 'users', kind: 'users' });
  // Edges to objects that do not exist (dangling references) are dropped: the claim's error says why.
  const list = [...edges.values()].filter((e) => nodes.has(e.source) && nodes.has(e.target));
  return { nodes: [...nodes.values()], edges: list, groups: [...groups.values()] };
}

export interface DesiredGraphOptions {
  /** Plan actions per instance key (from a revision), to overlay what changes. */
  changes?: ReadonlyMap<string, 'create' | 'update' | 'delete'>;
  /** Instances only in the state before the revision (drawn as removed). */
  removed?: readonly Instance[];
  /** Actual state per instance key. */
  actual?: ReadonlyMap<string, { status: string; revisionId: number }>;
  /** The revision the actual state should match (drift otherwise). */
  expectedRevisionId?: number;
}

/** Instances and their dependencies, grouped by cluster and Kubernetes namespace. */
export function desiredGraph(state: DesiredState, opts: DesiredGraphOptions = {}): GraphModel {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const groups = new Map<string, GraphGroup>();
  const present = new Set<string>();
  const addInstance = (i: Instance, overlay?: Overlay) => {
    const g = `target:${i.target.clusterNamespace}/${i.target.cluster}/${i.target.namespace}`;
    if (!groups.has(g)) groups.set(g, { id: g, label: `${i.target.cluster} / ${i.target.namespace}`, kind: 'target' });
    const act = opts.actual?.get(i.key);
    let actual: ActualStatus | undefined;
    if (opts.actual) {
      if (!act) actual = 'not-applied';
      else if (act.status === 'failed') actual = 'failed';
      else if (opts.expectedRevisionId !== undefined && act.revisionId !== opts.expectedRevisionId && opts.changes?.has(i.key)) actual = 'drifted';
      else actual = 'applied';
    }
    present.add(i.key);
    nodes.push({
      id: `instance:${i.key}`,
      kind: 'instance',
      // The name the revision plan and the apply events give it too.
      label: instanceKey.displayName(i.key),
      group: g,
      key: i.key,
      deployName: i.deployName,
      namespace: i.namespace,
      owner: i.owner,
      source: i.provenance.source,
      component: i.component,
      cluster: i.target.cluster,
      k8sNamespace: i.target.namespace,
      code: i.code?.type ?? null,
      claims: i.claims,
      ...(i.error ? { error: i.error, problem: true } : {}),
      ...(actual ? { actual } : {}),
      ...(actual === 'failed' ? { problem: true } : {}),
      ...(overlay ? { overlay } : {}),
    });
  };
  for (const i of state.instances) {
    const change = opts.changes?.get(i.key);
    addInstance(i, opts.changes ? (change === 'create' ? 'added' : change === 'update' ? 'updated' : 'unchanged') : undefined);
  }
  for (const i of opts.removed ?? []) if (!present.has(i.key)) addInstance(i, 'removed');
  const byKey = new Map<string, Instance>();
  for (const i of opts.removed ?? []) byKey.set(i.key, i);
  for (const i of state.instances) byKey.set(i.key, i);
  for (const n of nodes) {
    if (n.kind !== 'instance') continue;
    for (const d of byKey.get(n.key)?.dependsOn ?? []) if (present.has(d)) edges.push(edge(n.id, `instance:${d}`, 'depends'));
  }
  return { nodes, edges, groups: [...groups.values()] };
}
