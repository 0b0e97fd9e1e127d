'use client';
/**
 * A tenant's environments: each one's marks and what the services placed
 * in it use (the newest accepted revision), with the tenant's total on the
 * environment's cluster shown apart — environments sharing a cluster each
 * count their own services, so their usage differs while the total agrees.
 */
import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useTRPC } from '@/components/trpc/client';
import type { AppRouter } from '@/server/api/root';
import { gib } from '../revisions/format';
import { ErrorState, LoadingState } from '../ui/states';

type Environment = inferRouterOutputs<AppRouter>['tenants']['environments'][number];
type Usage = Environment['usage'];

const usageText = (u: Usage) => `${u.vcpu} vCPU · ${gib(u.memory)} GiB · ${u.instances} instances · ${u.services} services`;
const marksText = (m: Environment['marks']) =>
  Object.keys(m).length === 0
    ? 'none of its own'
    : Object.entries(m)
        .map(([k, v]) => `${k} ${v}`)
        .join(' · ');

export function TenantEnvironments({ tenant }: { tenant: string }) {
  const trpc = useTRPC();
  const envs = useQuery(trpc.tenants.environments.queryOptions({ tenant }));
  return (
    <section className="panel" aria-label="Environments">
      <h2>Environments</h2>
      {envs.isPending ? (
        <LoadingState />
      ) : envs.isError ? (
        <ErrorState error={envs.error} retry={() => envs.refetch()} />
      ) : envs.data.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <table className="table" data-testid="environments-table">
          <thead>
            <tr>
              <th>Environment</th>
              <th>Cluster</th>
              <th>Marks</th>
              <th>Usage (its services)</th>
              <th>Cluster total (the tenant&apos;s)</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {envs.data.map((e) => (
              <tr key={`${e.account}/${e.name}`} data-testid={`environment-${e.account}-${e.name}`}>
                <td>
                  {e.account}/{e.name}
                </td>
                <td>
                  {e.cluster}
                  {e.namespace ? ` (${e.namespace})` : ''}
                </td>
                <td>{marksText(e.marks)}</td>
                <td data-testid="environment-usage">{usageText(e.usage)}</td>
                <td data-testid="environment-cluster-usage">{usageText(e.clusterUsage)}</td>
                <td>{e.status.state === 'ok' ? 'ok' : `over marks: ${e.status.over.join(', ')}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
