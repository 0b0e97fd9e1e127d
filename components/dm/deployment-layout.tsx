'use client';
/**
 * A Deployment Manager deployment as DM showed it: its state, its manifests
 * (one per change; pick one to see it) and the layout of the chosen one as
 * a tree — templates holding what they expanded to, primitives at the
 * leaves, each with its type.
 */
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { Alert, ErrorState, LoadingState } from '../ui/states';

type LayoutNode = { name: string; type: string; resources?: LayoutNode[] };

function Tree({ nodes, depth = 0 }: { nodes: readonly LayoutNode[]; depth?: number }) {
  return (
    <ul className={depth === 0 ? 'dm-tree' : undefined}>
      {nodes.map((n, i) => (
        <li key={`${n.name}-${i}`} data-testid={`layout-${n.name}`}>
          <span className={n.resources?.length ? 'dm-template' : 'dm-primitive'}>{n.name}</span> <span className="muted">{n.type}</span>
          {n.resources?.length ? <Tree nodes={n.resources} depth={depth + 1} /> : null}
        </li>
      ))}
    </ul>
  );
}

export function DeploymentLayout({ namespace, name }: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const [manifest, setManifest] = useState<string | undefined>(undefined);
  const pick = useId();
  const q = useQuery(trpc.dm.deployment.queryOptions({ namespace, name, ...(manifest ? { manifest } : {}) }));
  if (q.isPending) return <LoadingState label="Expanding the deployment…" />;
  if (q.isError) return <ErrorState error={q.error} retry={() => void q.refetch()} />;
  const { deployment, manifests, manifest: m } = q.data;
  return (
    <section className="panel" aria-label="Layout" data-testid="dm-layout">
      <h2>
        Layout <span className="muted">· {deployment.state.status}</span>
      </h2>
      <p>
        <label htmlFor={pick}>Manifest </label>
        <select id={pick} value={m.name} onChange={(e) => setManifest(e.target.value)} data-testid="dm-manifest">
          {manifests.map((x) => (
            <option key={x} value={x}>
              {x}
              {x === deployment.latestManifest ? ' (newest)' : ''}
            </option>
          ))}
        </select>
      </p>
      {deployment.state.errors.map((e, i) => (
        <Alert key={i} kind="error">
          {e}
        </Alert>
      ))}
      {m.layout.resources.length === 0 ? <p className="muted">An empty manifest: the deployment was deleted here.</p> : <Tree nodes={m.layout.resources as LayoutNode[]} />}
    </section>
  );
}
