'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { EmptyState, ErrorState, LoadingState } from '../ui/states';
import { Time } from '../ui/time';
import { ACTION_KINDS, carriedText, carriesOthers, money, statusClass } from './format';

/** Revisions per page: the server's most (REVISIONS_PAGE_MAX); older ones page by the oldest id shown. */
const PAGE = 100;

export function RevisionsList() {
  const trpc = useTRPC();
  /** The page shown: revisions before this id (undefined: the newest), and the pages walked to get here, for the way back. */
  const [before, setBefore] = useState<number | undefined>(undefined);
  const [trail, setTrail] = useState<(number | undefined)[]>([]);
  const list = useQuery({
    ...trpc.revisions.list.queryOptions({ limit: PAGE, before }),
    placeholderData: keepPreviousData,
    // Keep statuses live while something is moving.
    refetchInterval: (q) => (q.state.data?.some((r) => ['accepted', 'applying'].includes(r.status)) ? 1500 : 10_000),
  });
  if (list.isPending) return <LoadingState label="Loading revisions…" />;
  if (list.isError) return <ErrorState error={list.error} retry={() => list.refetch()} />;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Revisions</h1>
          <p>Every policy change becomes a revision: its diff, plan, cost and checks, accepted or rejected per namespace before anything is applied.</p>
        </div>
      </div>
      {list.data.length === 0 && before === undefined ? (
        <EmptyState title="No revisions yet">
          <p>Change the policy and a revision appears here.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="revisions-table">
            <thead>
              <tr>
                <th className="num">#</th>
                <th>Status</th>
                <th className="num">Generation</th>
                <th>Author</th>
                <th>When</th>
                {ACTION_KINDS.map((k) => (
                  <th key={k} className="num">
                    {k}
                  </th>
                ))}
                <th className="num">Cost / month</th>
                <th>Sections</th>
                <th>Accepted by</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((r) => (
                <tr key={r.id}>
                  <td className="num">
                    <Link href={`/revisions/${r.id}`}>#{r.id}</Link>
                  </td>
                  <td>
                    <span className={statusClass(r.status)} data-testid="revision-status">
                      {r.status}
                    </span>
                    {r.rollbackOf && <span className="badge">rollback to #{r.rollbackOf}</span>}
                  </td>
                  <td className="num">
                    <Link href={`/history?to=${r.generation}`}>{r.generation}</Link>
                  </td>
                  <td>
                    {r.author}
                    {/* Who made the revision is not always whose changes it holds: a pending change rides along in the next. */}
                    {carriesOthers(r.carries, r.author) && (
                      <div className="hint" data-testid="revision-carries">
                        carries: {carriedText(r.carries)}
                      </div>
                    )}
                  </td>
                  <td>
                    <Time value={r.createdAt} />
                  </td>
                  {ACTION_KINDS.map((k) => (
                    <td key={k} className="num">
                      {r.counts[k] || ''}
                    </td>
                  ))}
                  <td className="num">{r.costDelta ? money(r.costDelta, r.currency) : '—'}</td>
                  <td>
                    {r.sections.map((s) => (
                      <span key={s.namespace} className={statusClass(s.status === 'accepted' ? 'applied' : s.status === 'rejected' ? 'rejected' : 'pending')} title={s.status}>
                        {s.namespace}
                      </span>
                    ))}
                  </td>
                  <td>{r.acceptedBy.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(before !== undefined || list.data.length === PAGE) && (
        <nav className="toolbar" aria-label="Revision pages" style={{ marginTop: 8 }}>
          <span className="muted" role="status" aria-live="polite">
            {list.isPlaceholderData
              ? 'Loading…'
              : list.data.length === 0
                ? 'No older revisions.'
                : `Showing #${list.data[0]!.id} to #${list.data[list.data.length - 1]!.id}${before === undefined ? ' (the newest)' : ''}`}
          </span>
          <span className="actions">
            <button
              type="button"
              className="btn btn-small"
              disabled={before === undefined}
              onClick={() => {
                setBefore(undefined);
                setTrail([]);
              }}
            >
              Newest
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={before === undefined}
              onClick={() => {
                setBefore(trail[trail.length - 1]);
                setTrail(trail.slice(0, -1));
              }}
            >
              Newer
            </button>
            <button
              type="button"
              className="btn btn-small"
              // A full page may have more behind it; a short one is the last.
              disabled={list.data.length < PAGE}
              onClick={() => {
                setTrail([...trail, before]);
                setBefore(list.data[list.data.length - 1]!.id);
              }}
            >
              Older
            </button>
          </span>
        </nav>
      )}
    </>
  );
}
