'use client';
/** My tenants (all of them, for domain admins), pending invitations, and creating a tenant. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { Alert, EmptyState, ErrorState, LoadingState, errorMessage } from '../ui/states';

export function TenantsList() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.tenants.list.queryOptions());
  const create = useMutation(trpc.tenants.create.mutationOptions());
  const [name, setName] = useState('');
  const [namespaces, setNamespaces] = useState('');
  const [status, setStatus] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  const onCreate = async (e: FormEvent) => {
    e.preventDefault();
    setStatus(null);
    try {
      const nss = namespaces.split(',').map((s) => s.trim()).filter(Boolean);
      await create.mutateAsync({ name: name.trim(), namespaces: nss });
      setStatus({ kind: 'success', text: `Tenant ${name.trim()} created; you are its owner.` });
      setName('');
      setNamespaces('');
      await qc.invalidateQueries({ queryKey: trpc.tenants.pathKey() });
    } catch (err) {
      setStatus({ kind: 'error', text: errorMessage(err) });
    }
  };

  if (list.isPending) return <LoadingState label="Loading tenants…" />;
  if (list.isError) return <ErrorState error={list.error} retry={() => list.refetch()} />;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Tenants</h1>
          <p>A tenant owns namespaces: its owners and admins administer them, plain members consume services there.</p>
        </div>
      </div>
      {list.data.invitations.length > 0 && <Invitations invitations={list.data.invitations} />}
      <section className="panel" aria-label="Your tenants">
        <h2>Your tenants</h2>
        {list.data.tenants.length === 0 ? (
          <EmptyState title="You belong to no tenant yet">
            <p>Create one below, or accept an invitation.</p>
          </EmptyState>
        ) : (
          <table className="table" data-testid="tenants-table">
            <thead>
              <tr>
                <th>Tenant</th>
                <th>Your role</th>
              </tr>
            </thead>
            <tbody>
              {list.data.tenants.map((t) => (
                <tr key={t.name}>
                  <td>
                    <Link href={`/tenants/${encodeURIComponent(t.name)}`}>{t.name}</Link>
                  </td>
                  <td>{t.role ?? <span className="muted">operator (domain admin)</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel" aria-label="Create a tenant">
        <h2>Create a tenant</h2>
        {status && (
          <Alert kind={status.kind} testId="tenant-status">
            {status.text}
          </Alert>
        )}
        <form onSubmit={onCreate} className="actions" style={{ alignItems: 'flex-end' }}>
          <div>
            <label htmlFor="tenant-name">Name</label>
            <input id="tenant-name" type="text" value={name} onChange={(e) => setName(e.target.value)} required />
          </div>
          <div style={{ flex: 1 }}>
            <label htmlFor="tenant-namespaces">Namespaces (comma-separated)</label>
            <input id="tenant-namespaces" type="text" value={namespaces} onChange={(e) => setNamespaces(e.target.value)} placeholder="team-a, team-a-staging" style={{ width: '100%' }} />
          </div>
          <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim()}>
            Create tenant
          </button>
        </form>
        <p className="hint">A namespace that already holds policy can join a tenant only through its namespace admins or a domain admin.</p>
      </section>
    </>
  );
}

export function Invitations({ invitations }: { invitations: { id: number; tenant: string; role: string; invitedBy: string }[] }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const answer = useMutation(trpc.tenants.answer.mutationOptions());
  const [error, setError] = useState('');
  const reply = async (id: number, accept: boolean, role: string) => {
    setError('');
    try {
      await answer.mutateAsync({ invitationId: id, accept, role: role as 'owner' | 'admin' | 'plain' });
      await qc.invalidateQueries({ queryKey: trpc.tenants.pathKey() });
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <section className="panel" aria-label="Invitations" data-testid="invitations">
      <h2>Invitations</h2>
      {error && <Alert kind="error">{error}</Alert>}
      <ul className="changes">
        {invitations.map((i) => (
          <li key={i.id} style={{ marginBottom: 6 }}>
            <strong>{i.invitedBy}</strong> invites you to tenant <strong>{i.tenant}</strong> as <strong>{i.role}</strong>{' '}
            <button type="button" className="btn btn-small btn-primary" onClick={() => reply(i.id, true, i.role)} disabled={answer.isPending}>
              Accept invitation to {i.tenant}
            </button>{' '}
            <button type="button" className="btn btn-small" onClick={() => reply(i.id, false, i.role)} disabled={answer.isPending}>
              Decline
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
