'use client';
/** Domain admins: every user's roles and which ACL rule or tenant granted each; ending a user's console sessions. */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { Alert, ErrorState, LoadingState, errorMessage } from '../ui/states';

export function RoleMap() {
  const trpc = useTRPC();
  const q = useQuery(trpc.tenants.roleMap.queryOptions());
  const end = useMutation(trpc.users.endSessions.mutationOptions());
  const [status, setStatus] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const onEnd = async (user: string) => {
    setStatus(null);
    try {
      const r = await end.mutateAsync({ user });
      setStatus({ kind: 'success', text: `${r.user} is signed out everywhere (${r.ended} session${r.ended === 1 ? '' : 's'} ended).` });
    } catch (err) {
      setStatus({ kind: 'error', text: `Could not end ${user}'s sessions: ${errorMessage(err)}` });
    }
  };
  if (q.isPending) return <LoadingState />;
  if (q.isError) return <ErrorState error={q.error} />;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Users and roles</h1>
          <p>Roles come from ACL rules on users' labels, from KEELSON_DOMAIN_ADMINS, and from tenant membership.</p>
        </div>
      </div>
      {status && (
        <Alert kind={status.kind} testId="sessions-status">
          {status.text}
        </Alert>
      )}
      <div className="table-wrap">
        <table className="table" data-testid="role-map">
          <thead>
            <tr>
              <th>User</th>
              <th>Roles (granted by)</th>
              <th>Sessions</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((u) => (
              <tr key={u.user}>
                <td>{u.user}</td>
                <td>
                  {u.grants.length === 0 ? (
                    <span className="muted">none: may view only</span>
                  ) : (
                    <ul className="changes">
                      {u.grants.map((g, i) => (
                        <li key={i}>
                          <strong>{g.role}</strong> in {g.namespaces === '*' ? 'every namespace' : g.namespaces.join(', ')} <span className="muted">({g.source})</span>
                        </li>
                      ))}
                    </ul>
                  )}
                  {u.errors.map((e) => (
                    <div key={e} className="sev-error">
                      {e}
                    </div>
                  ))}
                </td>
                <td>
                  <button type="button" className="btn btn-small" disabled={end.isPending} onClick={() => void onEnd(u.user)} aria-label={`End sessions of ${u.user}`}>
                    End sessions
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
