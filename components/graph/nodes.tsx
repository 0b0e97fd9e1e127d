'use client';
/**
 * Custom React Flow nodes, one memoised component per node type, and the
 * module-level `nodeTypes` map (a new object per render would make React
 * Flow remount every node: xyflow's error002). Nodes render only what they
 * are given; colours for overlays, actual state and problems come from the
 * data-* attributes flow.ts puts on React Flow's node element, so toggling
 * an overlay is a CSS change, not a re-render of thousands of nodes.
 */
import { Handle, Position, useStore, type NodeProps, type NodeTypes, type ReactFlowState } from '@xyflow/react';
import { memo } from 'react';
import { bucketSummary } from './budget';
import type { BucketFlowNode, ClaimFlowNode, InstanceFlowNode, ObjectFlowNode, ScopeFlowNode } from './types';

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
      </div>
      <div className="gnode-label">{n.name}</div>
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
      </div>
      <div className="gnode-label">{n.label}</div>
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
      <div className="gnode-kind">{n.kind === 'component' && n.consumes ? 'service component' : n.kind}</div>
      <div className="gnode-label">{n.label}</div>
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

/** The zoom, in steps of 0.05 up to 1: a scope re-renders only when its title size changes. */
const zoomStep = (s: ReactFlowState) => Math.max(0.05, Math.round(Math.min(1, s.transform[2]) * 20) / 20);

export const ScopeNode = memo(function ScopeNode({ data }: NodeProps<ScopeFlowNode>) {
  const { group, hidden } = data;
  const kind = group.kind === 'target' ? 'cluster / namespace' : group.kind === 'users' ? '' : 'namespace';
  // Namespace boxes keep a readable title at any zoom: the title grows as the view zooms out. The variable is
  // set here, on the few scope boxes, not on the canvas: there it would restyle every node on each zoom step.
  const zoom = useStore(zoomStep);
  return (
    <div className="gscope" style={{ ['--graph-zoom' as string]: String(zoom) }}>
      <div className="gscope-head">
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
