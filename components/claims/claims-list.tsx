'use client';
/** Every claim of a generation with its outcome: resolved, rejected (by policy) or error. */
import { useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useTRPC } from '@/components/trpc/client';
import { EmptyState, ErrorState, LoadingState } from '../ui/states';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { ClaimStatus, REQUEST_ROUTES, claimHref } from './status';

type ClaimsResult = inferRouterOutputs<AppRouter>['resolution']['claims'];

const STATUSES = ['resolved', 'rejected', 'error'] as const;

export function ClaimsList() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const status = params.get('status') ?? undefined;
  const q = (params.get('q') ?? '').toLowerCase();
  const generation = params.get('generation') ? Number(params.get('generation')) : undefined;
  const claims = useQuery(trpc.resolution.claims.queryOptions({ generation }));

  const set = (key: string, value?: string) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(key, value);
    else next.delete(key);
    router.replace(`${pathname}?${next}`, { scroll: false });
  };

  if (claims.isPending) return <LoadingState label="Resolving the policy…" />;
  if (claims.isError) return <ErrorState error={claims.error} retry={() => claims.refetch()} />;
  const { counts } = claims.data;
  const rows = claims.data.claims.filter(
    (c) => (!status || c.status === status) && (!q || `${c.namespace}/${c.name} ${c.user} ${c.service}`.toLowerCase().includes(q)),
  );
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Claims</h1>
          <p>
            Generation {claims.data.generation}: <strong data-testid="claims-resolved">{counts.resolved}</strong> resolved,{' '}
            <strong data-testid="claims-rejected">{counts.rejected}</strong> rejected, <strong data-testid="claims-error">{counts.error}</strong> with errors ·{' '}
            <span data-testid="instance-count">{counts.instances}</span> instances (resolved in {claims.data.durationMs} ms)
          </p>
        </div>
        <div className="actions">
          <input type="search" aria-label="Search claims" placeholder="Search claim, user, service" defaultValue={q} onChange={(e) => set('q', e.target.value || undefined)} style={{ width: 240 }} />
          <div role="group" aria-label="Filter by status" className="actions">
            <button type="button" className="btn btn-small" aria-pressed={!status} onClick={() => set('status')}>
              All {counts.total}
            </button>
            {STATUSES.map((s) => (
              <button key={s} type="button" className="btn btn-small" aria-pressed={status === s} onClick={() => set('status', status === s ? undefined : s)}>
                {s} {counts[s]}
              </button>
            ))}
          </div>
        </div>
      </div>
      {counts.total === 0 ? (
        <EmptyState title="No claims in this generation">
          <p>A claim asks for an instance of a service on behalf of a user.</p>
          <Link className="btn btn-primary" href="/objects/new?kind=claim">
            New claim
          </Link>
        </EmptyState>
      ) : rows.length === 0 ? (
        <EmptyState title="No claim matches these filters" />
      ) : (
        // DM deployments and Landscaper installations are not claims: each kind is listed apart, under its own name.
        REQUEST_GROUPS.map((g) => ({ ...g, rows: rows.filter((c) => (c.kind ?? 'claim') === g.kind) }))
          .filter((g) => g.rows.length > 0)
          .map((g) => (
            <section key={g.kind} aria-label={g.title} data-testid={`requests-${g.kind}`}>
              <h2>
                {g.title} <span className="muted">· {g.rows.length}</span>
              </h2>
              <RequestsTable rows={g.rows} generation={generation} testId={g.kind === 'claim' ? 'claims-table' : `${g.kind}s-table`} noun={g.noun} />
            </section>
          ))
      )}
    </>
  );
}

/** The request kinds in the order the page lists them, each with its own heading. */
const REQUEST_GROUPS = [
  { kind: 'claim', title: 'Claims', noun: 'Claim' },
  { kind: 'action', title: 'Capact actions', noun: 'Action' },
  { kind: 'deployment', title: 'DM deployments', noun: 'Deployment' },
  { kind: 'installation', title: 'Landscaper installations', noun: 'Installation' },
] as const satisfies readonly { kind: keyof typeof REQUEST_ROUTES; title: string; noun: string }[];

type Row = ClaimsResult['claims'][number];

function RequestsTable({ rows, generation, testId, noun }: { rows: Row[]; generation?: number; testId: string; noun: string }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid={testId}>
        <thead>
          <tr>
            <th>{noun}</th>
            <th>User</th>
            <th>Service</th>
            <th>Status</th>
            <th className="num">Instances</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={`${c.kind ?? 'claim'}/${c.namespace}/${c.name}`}>
              <td>
                <Link href={claimHref(c, generation)}>
                  {c.namespace}/{c.name}
                </Link>
              </td>
              <td>{c.user}</td>
              <td>{c.service}</td>
              <td>
                <ClaimStatus status={c.status} />
              </td>
              <td className="num">{c.instanceCount}</td>
              <td className="muted" style={{ maxWidth: 420 }}>
                {c.errors[0] ?? ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
