'use client';
/** Domain admins: every user's roles and which ACL rule or tenant granted each. */
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/app/_trpc/client';
import { ErrorState, LoadingState } from '../ui/states';

export function RoleMap() {
  const trpc = useTRPC();
  const q = useQuery(trpc.tenants.roleMap.queryOptions());
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
      <div className="table-wrap">
        <table className="table" data-testid="role-map">
          <thead>
            <tr>
              <th>User</th>
              <th>Roles (granted by)</th>
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
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
