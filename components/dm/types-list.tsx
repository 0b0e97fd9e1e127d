'use client';
/**
 * Deployment Manager's types page: every type in the current layouts
 * (templates and primitives) and where each is used — resource, deployment,
 * manifest and JSON path in the layout. Filter by typing.
 */
import { useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useId, useMemo, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { claimHref } from '../claims/status';
import { EmptyState, ErrorState, LoadingState } from '../ui/states';

export function DmTypes() {
  const trpc = useTRPC();
  const q = useQuery(trpc.dm.types.queryOptions());
  const [filter, setFilter] = useState('');
  const id = useId();
  const byType = useMemo(() => {
    const m = new Map<string, NonNullable<typeof q.data>>();
    for (const i of q.data ?? []) if (!filter || i.type.toLowerCase().includes(filter.toLowerCase())) m.set(i.type, [...(m.get(i.type) ?? []), i]);
    return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [q.data, filter]);
  if (q.isPending) return <LoadingState label="Expanding deployments…" />;
  if (q.isError) return <ErrorState error={q.error} retry={() => void q.refetch()} />;
  if (q.data.length === 0) return <EmptyState title="No types in use">Deployment Manager deployments you add (kind: deployment) list their templates and primitives here.</EmptyState>;
  return (
    <>
      <p>
        <label htmlFor={id}>Type </label>
        <input id={id} value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="filter" data-testid="dm-types-filter" />
      </p>
      {byType.map(([type, uses]) => (
        <section key={type} className="panel" data-testid={`dm-type-${type}`}>
          <h2>
            {type} <span className="muted">· {uses.length}</span>
          </h2>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th>Resource</th>
                  <th>Deployment</th>
                  <th>Manifest</th>
                  <th>Path in the layout</th>
                </tr>
              </thead>
              <tbody>
                {uses.map((u) => {
                  const [ns, name] = u.deployment.split('/') as [string, string];
                  return (
                    <tr key={`${u.deployment}${u.path}`}>
                      <td>{u.name}</td>
                      <td>
                        <Link href={claimHref({ kind: 'deployment', namespace: ns, name })}>{u.deployment}</Link>
                      </td>
                      <td>{u.manifest}</td>
                      <td>
                        <code>{u.path}</code>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </>
  );
}
