'use client';
/** One tenant: members and their roles, pending invitations, namespaces, environments. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { ConfirmDialog } from '../ui/confirm';
import { TenantEnvironments } from './tenant-environments';
import { TenantRules } from './tenant-rules';
import { Alert, ErrorState, LoadingState, errorMessage } from '../ui/states';

type Role = 'owner' | 'admin' | 'plain';
const ROLES: Role[] = ['owner', 'admin', 'plain'];

export function TenantDetail({ name, me }: { name: string; me: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const t = useQuery(trpc.tenants.get.queryOptions({ name }));
  const invite = useMutation(trpc.tenants.invite.mutationOptions());
  const changeRole = useMutation(trpc.tenants.changeRole.mutationOptions());
  const removeMember = useMutation(trpc.tenants.removeMember.mutationOptions());
  const addNamespace = useMutation(trpc.tenants.addNamespace.mutationOptions());
  const remove = useMutation(trpc.tenants.remove.mutationOptions());
  const [status, setStatus] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const [user, setUser] = useState('');
  const [role, setRole] = useState<Role>('plain');
  const [ns, setNs] = useState('');
  const [confirmRemove, setConfirmRemove] = useState(false);

  const run = async (p: Promise<unknown>, ok: string) => {
    setStatus(null);
    try {
      await p;
      setStatus({ kind: 'success', text: ok });
    } catch (e) {
      setStatus({ kind: 'error', text: errorMessage(e) });
    }
    await qc.invalidateQueries({ queryKey: trpc.tenants.pathKey() });
  };

  if (t.isPending) return <LoadingState />;
  if (t.isError) return <ErrorState error={t.error} retry={() => t.refetch()} />;
  const d = t.data;
  const canAdmin = d.myRole === 'owner' || d.myRole === 'admin' || d.myRole === null;
  return (
    <>
      <div className="page-head">
        <div>
          <div className="breadcrumbs">
            <Link href="/tenants">Tenants</Link> / {d.name}
          </div>
          <h1>{d.name}</h1>
          <p>
            Created by {d.createdBy} · your role: <strong data-testid="my-tenant-role">{d.myRole ?? 'operator (domain admin)'}</strong>
          </p>
        </div>
        <div className="actions">
          {d.myRole && (
            <button type="button" className="btn" onClick={() => run(removeMember.mutateAsync({ tenant: d.name, user: me }).then(() => router.push('/tenants')), 'You left the tenant.')}>
              Leave tenant
            </button>
          )}
          {d.myRole === 'owner' && (
            <button type="button" className="btn btn-danger" onClick={() => setConfirmRemove(true)}>
              Remove tenant
            </button>
          )}
        </div>
      </div>
      {status && (
        <Alert kind={status.kind} testId="tenant-status">
          {status.text}
        </Alert>
      )}
      <section className="panel" aria-label="Members">
        <h2>Members</h2>
        <table className="table" data-testid="members-table">
          <thead>
            <tr>
              <th>User</th>
              <th>Role</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {d.members.map((m) => (
              <tr key={m.user}>
                <td>{m.user}</td>
                <td>
                  {canAdmin ? (
                    <select
                      aria-label={`Role of ${m.user}`}
                      value={m.role}
                      onChange={(e) => run(changeRole.mutateAsync({ tenant: d.name, user: m.user, role: e.target.value as Role }), `${m.user} is now ${e.target.value}.`)}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  ) : (
                    m.role
                  )}
                </td>
                <td>
                  {canAdmin && m.user !== me.toLowerCase() && (
                    <button type="button" className="btn btn-small btn-danger" onClick={() => run(removeMember.mutateAsync({ tenant: d.name, user: m.user }), `${m.user} was removed.`)}>
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {d.invitations.length > 0 && (
          <>
            <h3 style={{ marginTop: 12 }}>Pending invitations</h3>
            <ul className="changes" data-testid="pending-invitations">
              {d.invitations.map((i) => (
                <li key={i.id}>
                  {i.user} as {i.role} (invited by {i.invitedBy})
                </li>
              ))}
            </ul>
          </>
        )}
        {canAdmin && (
          <form
            className="actions"
            style={{ marginTop: 12, alignItems: 'flex-end' }}
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              void run(invite.mutateAsync({ tenant: d.name, user: user.trim(), role }), `Invited ${user.trim()} as ${role}; they must accept.`).then(() => setUser(''));
            }}
          >
            <div>
              <label htmlFor="invite-user">Invite user</label>
              <input id="invite-user" type="text" value={user} onChange={(e) => setUser(e.target.value)} required />
            </div>
            <div>
              <label htmlFor="invite-role">Role</label>
              <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" className="btn btn-primary" disabled={!user.trim() || invite.isPending}>
              Invite
            </button>
          </form>
        )}
      </section>
      <section className="panel" aria-label="Namespaces">
        <h2>Namespaces</h2>
        {d.namespaces.length === 0 ? <p className="muted">None yet.</p> : <p data-testid="tenant-namespaces">{d.namespaces.join(', ')}</p>}
        {canAdmin && (
          <form
            className="actions"
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              void run(addNamespace.mutateAsync({ tenant: d.name, namespace: ns.trim() }), `Namespace ${ns.trim()} added.`).then(() => setNs(''));
            }}
          >
            <label className="sr-only" htmlFor="add-ns">
              Namespace
            </label>
            <input id="add-ns" type="text" placeholder="namespace" value={ns} onChange={(e) => setNs(e.target.value)} />
            <button type="submit" className="btn" disabled={!ns.trim()}>
              Add namespace
            </button>
          </form>
        )}
      </section>
      <TenantEnvironments tenant={d.name} />
      <section className="panel" aria-label="Links">
        <h2>Links</h2>
        {d.links.length === 0 ? (
          <p className="muted">No service of this tenant is linked to another yet.</p>
        ) : (
          <ul className="changes" data-testid="tenant-links">
            {d.links.map((l) => (
              <li key={`${l.client}:${l.clientChannel}→${l.server}:${l.serverChannel}`}>
                service {l.client}, client channel {l.clientChannel} → service {l.server}, server channel {l.serverChannel}
              </li>
            ))}
          </ul>
        )}
      </section>
      <TenantRules tenant={d.name} rules={d.rules} canEdit={d.myRole === 'owner' || d.myRole === 'admin' || d.myRole === null} />
      <ConfirmDialog
        open={confirmRemove}
        title={`Remove tenant ${d.name}?`}
        confirmLabel="Remove"
        destructive
        busy={remove.isPending}
        onCancel={() => setConfirmRemove(false)}
        onConfirm={() => {
          setConfirmRemove(false);
          void run(remove.mutateAsync({ tenant: d.name }).then(() => router.push('/tenants')), 'Tenant removed.');
        }}
      >
        <p>Its namespaces stop belonging to it. This is refused while it runs services or has other owners.</p>
      </ConfirmDialog>
    </>
  );
}
