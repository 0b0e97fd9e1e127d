'use client';
/**
 * The details of the node opened in a graph: a policy object's YAML
 * (read-only Monaco, with a link to the editor), a claim's outcome with its
 * decision trace and errors, an instance's rendered parameters, discovery,
 * target, claims, actual state and apply events.
 */
import { useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useEffect, useRef } from 'react';
import { stringify } from 'yaml';
import { useTRPC } from '@/components/trpc/client';
import { claimHref, ClaimStatus } from '../claims/status';
import { DecisionTrace } from '../claims/trace';
import { Failures } from '../claims/failures';
import { DiffEditor, YamlEditor } from '../editor';
import { objectHref } from '../objects/links';
import { Time } from '../ui/time';
import { Alert, ErrorState, LoadingState } from '../ui/states';
import { describeNode } from './model';
import type { GraphNode, NodeOf } from './types';
import { useInstance, useInstanceEvents } from './use-instance';

export interface GraphPanelProps {
  node: GraphNode;
  /** The generation the node's data comes from (a removed node: the older one). */
  generation: number | undefined;
  revisionId?: number;
  /** Claims of the graph (policy view), for a user's list. */
  claimsOfUser?: (user: string) => NodeOf<'claim'>[];
  highlightedClaim: string | null;
  onHighlightClaim: (claim: string | null) => void;
  onSelectNode: (id: string) => void;
  onClose: () => void;
}

const OVERLAY_TEXT: Record<string, string> = {
  added: 'Added',
  updated: 'Changed',
  removed: 'Removed',
  unchanged: 'Unchanged',
};

export function GraphPanel(props: GraphPanelProps) {
  const { node, onClose } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  // Keyboard users land in the panel; Escape (below) returns them to the graph.
  useEffect(() => heading.current?.focus(), [node.id]);
  return (
    <aside
      className="graph-panel"
      aria-label="Details"
      data-testid="graph-panel"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !(e.target as HTMLElement).closest('.monaco-editor')) onClose();
      }}
    >
      <div className="graph-panel-head">
        <div>
          <span className="badge badge-kind">{node.kind}</span>
          <h2 ref={heading} tabIndex={-1}>
            {node.label}
          </h2>
          <p className="muted">{describeNode(node)}</p>
        </div>
        <button type="button" className="btn btn-small" onClick={onClose} aria-label="Close details">
          ✕
        </button>
      </div>
      {node.overlay && (
        <p className={`graph-overlay-note overlay-${node.overlay}`} data-testid="panel-overlay">
          {OVERLAY_TEXT[node.overlay]} {props.revisionId ? `by revision #${props.revisionId}` : 'between the generations compared'}
        </p>
      )}
      <PanelBody {...props} />
    </aside>
  );
}

function PanelBody(props: GraphPanelProps) {
  const n = props.node;
  switch (n.kind) {
    case 'claim':
      return <ClaimBody {...props} node={n} />;
    case 'instance':
      return <InstanceBody {...props} node={n} />;
    case 'user':
      return <UserBody {...props} node={n} />;
    case 'service':
      return <ObjectYaml kind="service" namespace={n.namespace} name={n.name} generation={props.generation} />;
    case 'context':
      return <ObjectYaml kind="service" namespace={n.namespace} name={n.service} generation={props.generation} note={`Context ${n.name} is defined in service ${n.service}.`} />;
    case 'bundle':
      return <ObjectYaml kind="bundle" namespace={n.namespace} name={n.name} generation={props.generation} />;
    case 'component':
      return (
        <ObjectYaml
          kind="bundle"
          namespace={n.namespace}
          name={n.bundle}
          generation={props.generation}
          note={`Component ${n.name} is defined in bundle ${n.bundle}${n.consumes ? `; it consumes service ${n.consumes}` : ''}.`}
        />
      );
  }
}

function ObjectYaml({ kind, namespace, name, generation, note }: { kind: string; namespace: string; name: string; generation: number | undefined; note?: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.policy.get.queryOptions({ kind, namespace, name, generation }));
  return (
    <section className="graph-panel-section">
      {note && <p className="muted">{note}</p>}
      <div className="toolbar">
        <h3 style={{ margin: 0 }}>
          {kind} {namespace}/{name}
        </h3>
        <Link className="btn btn-small" href={objectHref({ kind, namespace, name })}>
          Open in editor
        </Link>
      </div>
      {q.isPending ? (
        <LoadingState label="Loading YAML…" />
      ) : q.isError ? (
        <ErrorState error={q.error} retry={() => q.refetch()} />
      ) : (
        <>
          {generation !== undefined && generation !== q.data.head && <p className="hint">As of generation {generation}; the editor opens the newest (generation {q.data.head}).</p>}
          <YamlEditor
            value={q.data.text}
            uri={`file:///graph/${encodeURIComponent(kind)}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}@${generation ?? 'head'}.yaml`}
            readOnly
            height={340}
            ariaLabel={`YAML of ${kind} ${namespace}/${name} (read-only)`}
          />
        </>
      )}
    </section>
  );
}

function ClaimBody({ node, generation, highlightedClaim, onHighlightClaim }: GraphPanelProps & { node: NodeOf<'claim'> }) {
  const trpc = useTRPC();
  const key = `${node.namespace}/${node.name}`;
  const q = useQuery(trpc.resolution.claim.queryOptions({ namespace: node.namespace, name: node.name, generation }));
  const on = highlightedClaim === key;
  return (
    <>
      <section className="graph-panel-section">
        <div className="actions">
          <ClaimStatus status={node.status} />
          <span>
            user <strong>{node.user}</strong> · service <strong>{node.service}</strong>
          </span>
        </div>
        <div className="actions" style={{ marginTop: 8 }}>
          <button type="button" className="btn btn-small" aria-pressed={on} onClick={() => onHighlightClaim(on ? null : key)}>
            {on ? 'Stop highlighting' : 'Highlight what it uses'}
          </button>
          <Link className="btn btn-small" href={claimHref(node, generation)}>
            Claim page
          </Link>
          <Link className="btn btn-small" href={objectHref({ kind: 'claim', namespace: node.namespace, name: node.name })}>
            Open in editor
          </Link>
        </div>
      </section>
      <section className="graph-panel-section" aria-label="Decision trace">
        <h3>Decision trace</h3>
        {q.isPending ? (
          <LoadingState label="Resolving the claim…" />
        ) : q.isError ? (
          <ErrorState error={q.error} retry={() => q.refetch()} />
        ) : (
          <>
            <Failures outcome={q.data.outcome} testId="panel-claim-error" />
            <DecisionTrace steps={q.data.outcome.trace} testId="panel-trace" indent={14} />
            <p className="muted">Uses {q.data.instances.length} instance{q.data.instances.length === 1 ? '' : 's'}.</p>
          </>
        )}
      </section>
    </>
  );
}

function UserBody({ node, claimsOfUser, onSelectNode }: GraphPanelProps & { node: NodeOf<'user'> }) {
  const claims = claimsOfUser?.(node.user) ?? [];
  return (
    <section className="graph-panel-section">
      <h3>Claims ({claims.length})</h3>
      <ul className="graph-list">
        {claims.map((c) => (
          <li key={c.id}>
            <button type="button" className="link-button" onClick={() => onSelectNode(c.id)}>
              {c.namespace}/{c.name}
            </button>{' '}
            <ClaimStatus status={c.status} />
          </li>
        ))}
      </ul>
    </section>
  );
}

const ACTUAL_TEXT: Record<string, string> = {
  applied: 'applied',
  applying: 'being applied',
  failed: 'apply failed',
  drifted: 'drifted: deployed from another revision than the one applied last',
  'not-applied': 'not applied yet',
};

function InstanceBody({ node, generation, revisionId, highlightedClaim, onHighlightClaim }: GraphPanelProps & { node: NodeOf<'instance'> }) {
  const removed = node.overlay === 'removed';
  return (
    <>
      <section className="graph-panel-section">
        <dl className="kv">
          <dt>Key</dt>
          <dd className="mono graph-break">{node.key}</dd>
          <dt>Deploy name</dt>
          <dd className="mono">{node.deployName}</dd>
          <dt>Target</dt>
          <dd>
            {node.cluster} / {node.k8sNamespace}
          </dd>
          <dt>Code</dt>
          <dd>{node.code ?? '—'}</dd>
          {node.actual && (
            <>
              <dt>Actual</dt>
              <dd>
                <span className={`gactual gactual-${node.actual}`} aria-hidden /> {ACTUAL_TEXT[node.actual]}
              </dd>
            </>
          )}
        </dl>
        {node.error && (
          <Alert kind="error" testId="panel-instance-error">
            {node.error}
          </Alert>
        )}
      </section>
      <section className="graph-panel-section" aria-label="Claims">
        <h3>
          Used by {node.claims.length} claim{node.claims.length === 1 ? '' : 's'}
        </h3>
        <ul className="graph-list">
          {node.claims.map((c) => (
            <li key={c}>
              <button type="button" className="link-button" aria-pressed={highlightedClaim === c} onClick={() => onHighlightClaim(highlightedClaim === c ? null : c)}>
                {c}
              </button>{' '}
              {highlightedClaim === c && <span className="badge badge-kind">highlighted</span>}
            </li>
          ))}
        </ul>
      </section>
      {revisionId !== undefined && node.overlay && node.overlay !== 'unchanged' && <RevisionChange revisionId={revisionId} instanceKey={node.key} />}
      {!removed && <InstanceParams node={node} generation={generation} />}
      <InstanceEventsList instanceKey={node.key} generation={generation} revisionId={revisionId} />
    </>
  );
}

function InstanceParams({ node, generation }: { node: NodeOf<'instance'>; generation: number | undefined }) {
  const q = useInstance(node.key, generation);
  return (
    <section className="graph-panel-section" aria-label="Rendered parameters">
      <h3>Parameters, discovery, target</h3>
      {q.status === 'pending' ? (
        <LoadingState label="Loading the instance…" />
      ) : q.status === 'error' ? (
        <ErrorState error={q.error} retry={q.retry} />
      ) : q.status === 'missing' ? (
        <p className="muted">{q.reason}</p>
      ) : (
        <YamlEditor
          value={stringify({ code: q.instance.code, discovery: q.instance.discovery, target: q.instance.target, labels: q.instance.labels, dependsOn: q.instance.dependsOn }, { lineWidth: 0 })}
          uri={`file:///graph/instance/${encodeURIComponent(node.deployName)}@${generation ?? 'head'}.yaml`}
          readOnly
          height={320}
          ariaLabel={`Rendered parameters of ${node.label} (read-only)`}
        />
      )}
    </section>
  );
}

function RevisionChange({ revisionId, instanceKey }: { revisionId: number; instanceKey: string }) {
  const trpc = useTRPC();
  const diff = useQuery(trpc.revisions.instanceDiff.queryOptions({ revisionId, key: instanceKey }));
  return (
    <section className="graph-panel-section" aria-label="Change">
      <div className="toolbar">
        <h3 style={{ margin: 0 }}>In revision #{revisionId}</h3>
        <Link className="btn btn-small" href={`/revisions/${revisionId}`}>
          Revision
        </Link>
      </div>
      {diff.isPending ? <LoadingState /> : diff.isError ? <ErrorState error={diff.error} /> : <DiffEditor original={diff.data.before} modified={diff.data.after} height={260} ariaLabel="Before and after" />}
    </section>
  );
}

function InstanceEventsList({ instanceKey, generation, revisionId }: { instanceKey: string; generation: number | undefined; revisionId: number | undefined }) {
  const ev = useInstanceEvents(instanceKey, generation);
  return (
    <section className="graph-panel-section" aria-label="Apply events">
      <h3>Apply events</h3>
      {ev.status === 'pending' ? (
        <LoadingState />
      ) : ev.status === 'none' ? (
        <p className="muted">{ev.reason}</p>
      ) : ev.events.length === 0 ? (
        <p className="muted">No apply step has touched this instance yet.</p>
      ) : (
        <ol className="events" data-testid="panel-events">
          {ev.events.map((e) => (
            <li key={e.id} className={`event-${e.kind}`}>
              <span className="muted">
                <Time value={e.at} />
              </span>{' '}
              <Link href={`/revisions/${e.revisionId}`} aria-current={e.revisionId === revisionId ? 'true' : undefined}>
                #{e.revisionId}
              </Link>{' '}
              {e.message}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
