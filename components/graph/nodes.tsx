'use client';
/**
 * Custom React Flow nodes, one memoised component per node type, and the
 * module-level `nodeTypes` map (a new object per render would make React
 * Flow remount every node: xyflow's error002). Nodes render only what they
 * are given; colours for overlays, actual state and problems come from the
 * data-* attributes flow.ts puts on React Flow's node element, so toggling
 * an overlay is a CSS change, not a re-render of thousands of nodes.
 */
import { Handle, Position, type NodeProps, type NodeTypes } from '@xyflow/react';
import { createContext, memo, useContext, type MouseEvent } from 'react';
import { objectHref } from '../objects/links';
import { bucketSummary } from './budget';
import { NODE_SIZE } from './flow';
import { nodeObject } from './node-object';
import { groupKindLabel, labelAt } from './readable';
import type { BucketFlowNode, ClaimFlowNode, GraphNode, InstanceFlowNode, ObjectFlowNode, ScopeFlowNode } from './types';

/**
 * What nodes can ask of the canvas. One stable object for the canvas's
 * life, given through context rather than node data, so nodes stay the
 * same objects (and memoised) when it changes nothing.
 */
export interface GraphActions {
  /** Fold a namespace into its summary node, or unfold it. */
  toggleGroup(groupId: string): void;
}
export const GraphActionsContext = createContext<GraphActions | null>(null);

/**
 * The name, twice: whole (near) and short (far; larger, see readable.ts).
 * CSS shows one by the canvas's level of detail (.graph-far), so zooming
 * across the threshold restyles the canvas instead of re-rendering nodes.
 */
function Label({ text, width }: { text: string; width: number }) {
  const short = labelAt(text, 'short', width);
  return (
    <>
      <span className="gl-full">{text}</span>
      <span className="gl-short" aria-hidden>
        {breakable(short)}
      </span>
    </>
  );
}

/** A name wraps after `_`, `-`, `.` (`analytics_ / pipeline`), not in the middle of a word. */
function breakable(name: string) {
  const parts = name.split(/(?<=[_.-])/);
  return parts.length === 1 ? name : parts.map((p, i) => (i === 0 ? p : [<wbr key={i} />, p]));
}

const stop = (e: MouseEvent) => e.stopPropagation();

/** The node's object in the editor (policy objects, and an instance's claim-side object). */
function YamlLink({ node }: { node: GraphNode }) {
  const o = nodeObject(node);
  if (!o) return null;
  return (
    <a
      className="gnode-yaml nodrag nopan"
      href={objectHref(o)}
      onClick={stop}
      tabIndex={-1}
      title={`Open ${o.kind} ${o.namespace}/${o.name} in the editor`}
      aria-label={`YAML of ${o.kind} ${o.namespace}/${o.name}`}
    >
      YAML
    </a>
  );
}

/** Edges attach left (in) and right (out); people never drag connections here. */
function Ports() {
  return (
    <>
      <Handle type="target" position={Position.Left} className="gnode-port" isConnectable={false} />
      <Handle type="source" position={Position.Right} className="gnode-port" isConnectable={false} />
    </>
  );
}

/** Edges of this node that lead into folded groups and are not drawn. */
function Folded({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span className="gbadge gbadge-folded" title={`${count} connected node${count === 1 ? ' is' : 's are'} folded into a grey group`}>
      +{count} folded
    </span>
  );
}

const ACTUAL_LABEL: Record<string, string> = {
  applied: 'applied',
  applying: 'applying',
  failed: 'apply failed',
  drifted: 'drifted from desired',
  'not-applied': 'not applied',
};

export const ClaimNode = memo(function ClaimNode({ data }: NodeProps<ClaimFlowNode>) {
  const n = data.node;
  return (
    <div className="gnode gnode-claim" title={n.errors.join('\n') || undefined}>
      <Ports />
      <div className="gnode-kind">
        claim <span className="gnode-owner">· {n.user}</span>
        <YamlLink node={n} />
      </div>
      <div className="gnode-label">
        <Label text={n.name} width={NODE_SIZE.claim.width} />
      </div>
      <div className="gnode-sub">
        <span className="gnode-ns">{n.namespace}</span>
        {n.status !== 'resolved' && <span className={`gbadge gbadge-${n.status}`}>{n.status}</span>}
        {n.overlay && n.overlay !== 'unchanged' && <span className={`gbadge gbadge-${n.overlay}`}>{n.overlay}</span>}
        <Folded count={data.hiddenLinks} />
      </div>
    </div>
  );
});

export const InstanceNode = memo(function InstanceNode({ data }: NodeProps<InstanceFlowNode>) {
  const n = data.node;
  const shared = n.claims.length > 1;
  return (
    <div className="gnode gnode-instance" title={n.error ?? n.key}>
      <Ports />
      <div className="gnode-kind">
        instance{n.code ? ` · ${n.code}` : ''}
        {n.actual && <span className={`gactual gactual-${n.actual}`} title={ACTUAL_LABEL[n.actual]} aria-hidden />}
        <YamlLink node={n} />
      </div>
      <div className="gnode-label">
        <Label text={n.label} width={NODE_SIZE.instance.width} />
      </div>
      <div className="gnode-sub">
        <span className="gnode-ns">
          {n.namespace}/{n.owner}
        </span>
        {shared && (
          <span className="gbadge gbadge-shared" title={`Shared by ${n.claims.length} claims`}>
            {n.claims.length} claims
          </span>
        )}
        {n.error && <span className="gbadge gbadge-error">error</span>}
        {n.overlay && n.overlay !== 'unchanged' && <span className={`gbadge gbadge-${n.overlay}`}>{n.overlay}</span>}
        <Folded count={data.hiddenLinks} />
      </div>
    </div>
  );
});

export const ObjectNode = memo(function ObjectNode({ data }: NodeProps<ObjectFlowNode>) {
  const n = data.node;
  const sub = n.kind === 'user' ? null : n.kind === 'context' ? `${n.namespace}/${n.service}` : n.kind === 'component' ? `${n.namespace}/${n.bundle}${n.code ? ` · ${n.code}` : ''}` : n.namespace;
  return (
    <div className={`gnode gnode-${n.kind}`}>
      <Ports />
      <div className="gnode-kind">
        {n.kind === 'component' && n.consumes ? 'service component' : n.kind}
        <YamlLink node={n} />
      </div>
      <div className="gnode-label">
        <Label text={n.label} width={NODE_SIZE[n.kind].width} />
      </div>
      {sub !== null && (
        <div className="gnode-sub">
          <span className="gnode-ns">{sub}</span>
          {n.overlay && n.overlay !== 'unchanged' && <span className={`gbadge gbadge-${n.overlay}`}>{n.overlay}</span>}
          <Folded count={data.hiddenLinks} />
        </div>
      )}
    </div>
  );
});

export const BucketNode = memo(function BucketNode({ data }: NodeProps<BucketFlowNode>) {
  const b = data.bucket;
  if (b.summary) {
    // A folded namespace: its name is on its box; the node says what it holds.
    return (
      <div className="gnode gnode-bucket gnode-summary" title="Click to unfold">
        <Ports />
        <div className="gnode-label">
          <span>{b.count.toLocaleString('en-US')} nodes</span>
          {b.problems > 0 && <span className="gbadge gbadge-error">{b.problems} problems</span>}
        </div>
        <div className="gnode-sub">{bucketSummary(b)}</div>
        <div className="gnode-sub">folded · click to unfold</div>
      </div>
    );
  }
  return (
    <div className="gnode gnode-bucket" title="Click to expand">
      <Ports />
      <div className="gnode-label">
        {b.count.toLocaleString('en-US')} not shown
        {b.problems > 0 && <span className="gbadge gbadge-error">{b.problems} problems</span>}
      </div>
      <div className="gnode-sub">
        {bucketSummary(b)}
        {b.links > 0 && ` · ${b.links.toLocaleString('en-US')} links`}
      </div>
      <div className="gnode-sub gnode-ns">{b.label}</div>
    </div>
  );
});

export const ScopeNode = memo(function ScopeNode({ data }: NodeProps<ScopeFlowNode>) {
  const { group, hidden, folded } = data;
  const kind = groupKindLabel(group.kind);
  const actions = useContext(GraphActionsContext);
  // The box is laid out at least as wide as this title (readable.ts titleWidth): it is never cut.
  return (
    <div className="gscope">
      <div className="gscope-head">
        {kind && actions && (
          <button
            type="button"
            className="gscope-fold nodrag nopan"
            aria-expanded={!folded}
            aria-label={`${folded ? 'Unfold' : 'Fold'} ${kind} ${group.label}`}
            onClick={(e) => {
              e.stopPropagation();
              actions.toggleGroup(group.id);
            }}
          >
            {folded ? '▸' : '▾'}
          </button>
        )}
        {kind && <span className="gscope-kind">{kind}</span>} <strong>{group.label}</strong>
        {hidden > 0 && <span className="muted"> · {hidden.toLocaleString('en-US')} not shown</span>}
      </div>
    </div>
  );
});

export const nodeTypes = {
  claim: ClaimNode,
  instance: InstanceNode,
  object: ObjectNode,
  bucket: BucketNode,
  scope: ScopeNode,
} satisfies NodeTypes;

/** Overview map colours by node type and state (overview-map.tsx). */
export function minimapColor(n: { type?: string; data: Record<string, unknown> }): string {
  if (n.type === 'scope') return '#eef1f5';
  if (n.type === 'bucket') return '#c5cdd8';
  const node = n.data.node as { problem?: boolean; overlay?: string } | undefined;
  if (node?.problem) return '#c62828';
  if (node?.overlay === 'added') return '#1b7f3b';
  if (node?.overlay === 'updated') return '#b7791f';
  if (node?.overlay === 'removed') return '#c62828';
  return '#8aa4d6';
}
