/**
 * Types of the graph views. The server sends a `GraphModel` (plain data, no
 * positions); the browser filters it, cuts it to a node budget, lays it out
 * (elkjs in a worker) and hands React Flow a discriminated union of nodes.
 * Only types here: this file is imported by the worker, the tests and the
 * components alike.
 */
import type { Edge, Node } from '@xyflow/react';
import type { ActualStatus, GraphEdge, GraphGroup, GraphModel, GraphNode, Overlay } from '@/server/engine/graph';
import type { RemoteBucket } from '@/server/engine/graph/view';

export type { ActualStatus, GraphEdge, GraphGroup, GraphModel, GraphNode, Overlay, RemoteBucket };

/**
 * A model the server budgeted (graphs.desiredView): the nodes it sent, and
 * buckets counting the rest, opened with graphs.desiredBucket. Edges into
 * a remote bucket carry how many model edges they stand for.
 */
export interface ServerModel extends GraphModel {
  edges: (GraphEdge & { count?: number })[];
  remote?: RemoteBucket[];
  /** Shared by a view and the models made from it by opening its buckets: the same graph, so the canvas keeps its viewport. */
  origin?: object;
}

export type GraphKind = GraphNode['kind'];
export type NodeOf<K extends GraphKind> = Extract<GraphNode, { kind: K }>;
export type PolicyObjectNode = NodeOf<'user' | 'service' | 'context' | 'bundle' | 'component'>;

/** Which graph a page shows. */
export type GraphView = 'policy' | 'desired';

/**
 * A part of the graph the budget left out, drawn as one counted node in its
 * group. Clicking it expands it: into its members when they are few, into
 * smaller buckets otherwise.
 */
export interface Bucket {
  /** `bucket:` + the path of keys that selects its members. */
  id: string;
  group: string;
  label: string;
  count: number;
  /** Members per node kind, for the label ("120 instances"). */
  kinds: Partial<Record<GraphKind, number>>;
  problems: number;
  /** Members' node ids, in rank order. */
  members: string[];
  /** Edges between its members and shown nodes. */
  links: number;
  /** Counted by the server: its members are fetched when it opens (`members` is empty). */
  remote?: boolean;
  /** A whole namespace or cluster folded into this one node (fold.ts): opening it unfolds the group. */
  summary?: boolean;
}

/** An edge between shown nodes or buckets; edges into a bucket are merged and counted. */
export interface ViewEdge {
  id: string;
  source: string;
  target: string;
  kind: GraphEdge['kind'];
  /** How many model edges this one stands for (>1 only at buckets). */
  count: number;
  /** Between two groups (namespaces, targets): drawn dashed. */
  cross: boolean;
}

/** What the budget leaves on screen. */
export interface BudgetedGraph {
  nodes: GraphNode[];
  buckets: Bucket[];
  edges: ViewEdge[];
  /** Groups with at least one shown node or bucket, in model order. */
  groups: GraphGroup[];
  /** Nodes after filtering (before the budget). */
  total: number;
  /** Nodes in buckets. */
  hidden: number;
  /** Hidden node id → id of the bucket drawn for it. */
  bucketOf: ReadonlyMap<string, string>;
  /** Shown node id → how many of its edges lead into buckets. */
  hiddenLinks: ReadonlyMap<string, number>;
}

// ---------------------------------------------------------------- layout

/** Geometry only: what the layout worker needs, nothing React Flow-specific. */
export interface LayoutRequest {
  /** `minWidth`: room for the group's title, which is never clipped. */
  groups: { id: string; label: string; minWidth?: number }[];
  nodes: { id: string; group: string; width: number; height: number }[];
  edges: { source: string; target: string }[];
}

export interface LayoutBox {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Positions of `LayoutRequest.nodes` (same order), relative to their group's box. */
export interface LayoutResult {
  /** `quick`: the linear-time first frame; `elk`: ELK's layered layout. */
  engine: 'quick' | 'elk';
  groups: LayoutBox[];
  /** x0, y0, x1, y1, … */
  positions: Float64Array;
  ms: number;
}

// ---------------------------------------------------------------- React Flow

/** `hiddenLinks`: edges of the node that lead into buckets (shown as a count when not drawn). */
export type ClaimFlowNode = Node<{ node: NodeOf<'claim'>; hiddenLinks: number }, 'claim'>;
export type InstanceFlowNode = Node<{ node: NodeOf<'instance'>; hiddenLinks: number }, 'instance'>;
export type ObjectFlowNode = Node<{ node: PolicyObjectNode; hiddenLinks: number }, 'object'>;
export type BucketFlowNode = Node<{ bucket: Bucket }, 'bucket'>;
export type ScopeFlowNode = Node<{ group: GraphGroup; shown: number; hidden: number; folded: boolean }, 'scope'>;

/** Every node React Flow draws, discriminated by `type`. */
export type FlowNode = ClaimFlowNode | InstanceFlowNode | ObjectFlowNode | BucketFlowNode | ScopeFlowNode;
export type FlowEdge = Edge<{ count: number }>;

/** Filters of the toolbar; empty strings mean "any". */
export interface GraphFilters {
  namespace: string;
  /** `ns/name` of a claim: it and everything it uses. */
  claim: string;
  user: string;
  status: string;
  /** Hide unchanged nodes (with an overlay). */
  changesOnly: boolean;
}

export const NO_FILTERS: GraphFilters = { namespace: '', claim: '', user: '', status: '', changesOnly: false };
