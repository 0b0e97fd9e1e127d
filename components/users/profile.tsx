'use client';
import { useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useTRPC } from '@/components/trpc/client';
import { EmptyState, ErrorState, LoadingState } from '../ui/states';
import { ApiTokens } from './api-tokens';

export function ProfileView() {
  const trpc = useTRPC();
  const me = useQuery(trpc.users.me.queryOptions());
  if (me.isPending) return <LoadingState />;
  if (me.isError) return <ErrorState error={me.error} retry={() => me.refetch()} />;
  const labels = Object.entries(me.data.labels).sort(([a], [b]) => a.localeCompare(b));
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{me.data.name}</h1>
          <p>Your identity as policy sees it: criteria and ACL rules read these labels.</p>
        </div>
      </div>
      <section className="panel">
        <dl className="kv">
          <dt>User name</dt>
          <dd data-testid="profile-name">{me.data.name}</dd>
          <dt>Signed in with</dt>
          <dd>{me.data.provider === 'oidc' ? 'OpenID Connect' : 'Local account'}</dd>
          {me.data.email && (
            <>
              <dt>Email</dt>
              <dd>{me.data.email}</dd>
            </>
          )}
        </dl>
      </section>
      <MyRoles />
      <section className="panel" aria-label="Labels">
        <h2>Labels</h2>
        {labels.length === 0 ? (
          <EmptyState title="No labels">
            <p>Labels come from the users file or from your identity provider’s claims.</p>
          </EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="labels-table">
              <thead>
                <tr>
                  <th>Label</th>
                  <th>Value</th>
                </tr>
              </thead>
              <tbody>
                {labels.map(([k, v]) => (
                  <tr key={k}>
                    <td>
                      <code>{k}</code>
                    </td>
                    <td>{v}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <ApiTokens />
    </>
  );
}

function MyRoles() {
  const trpc = useTRPC();
  const q = useQuery(trpc.tenants.myRoles.queryOptions());
  if (!q.data) return null;
  return (
    <section className="panel" aria-label="Roles">
      <h2>Roles</h2>
      {q.data.grants.length === 0 ? (
        <p className="muted">No roles: you may view everything and change nothing.</p>
      ) : (
        <ul className="changes" data-testid="my-roles">
          {q.data.grants.map((g, i) => (
            <li key={i}>
              <strong>{g.role}</strong> in {g.namespaces === '*' ? 'every namespace' : g.namespaces.join(', ')} <span className="muted">({g.source})</span>
            </li>
          ))}
        </ul>
      )}
      {q.data.tenants.length > 0 && (
        <p>
          Tenants:{' '}
          {q.data.tenants.map((t, i) => (
            <span key={t.tenant}>
              {i > 0 && ', '}
              <Link href={`/tenants/${encodeURIComponent(t.tenant)}`}>{t.tenant}</Link> ({t.role})
            </span>
          ))}
        </p>
      )}
    </section>
  );
}
