'use client';
/**
 * The plan table of a revision, one page at a time from the server: a
 * revision may change 20,000 instances, and the browser holds one page of
 * its actions (the first comes with the revision itself). Filters (section,
 * action, text) and paging run on the server; rows are grouped by section
 * as the whole plan would be.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useEffect, useId, useRef, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import type { AppRouter } from '@/server/api/root';
import { ErrorState } from '../ui/states';
import { ACTION_KINDS, shortKey, statusClass } from './format';

type Page = Extract<inferRouterOutputs<AppRouter>['revisions']['planPage'], { of: 'actions' }>;
type Row = Page['actions'][number];
type ActionKind = Row['kind'];

/** Rows per page: enough to scan, few enough to render at once. */
export const PLAN_ROWS = 100;

export function PlanTable({
  revisionId,
  namespaces,
  first,
  live,
  selected,
  onSelect,
}: {
  revisionId: number;
  /** The revision's sections, for the section filter. */
  namespaces: string[];
  /** The first page, as the revision's own answer carried it (shown at once, no second request). */
  first: Page;
  /** Applying: statuses move, so the shown page is asked again now and then. */
  live: boolean;
  selected: string | null;
  onSelect: (key: string) => void;
}) {
  const trpc = useTRPC();
  const ids = useId();
  const [offset, setOffset] = useState(0);
  const [namespace, setNamespace] = useState('');
  const [action, setAction] = useState<ActionKind | ''>('');
  const [typed, setTyped] = useState('');
  const [text, setText] = useState('');
  // Ask once typing pauses, not per keystroke; a new filter starts from its first page.
  useEffect(() => {
    const t = setTimeout(() => {
      if (typed.trim() === text) return;
      setText(typed.trim());
      setOffset(0);
    }, 300);
    return () => clearTimeout(t);
  }, [typed, text]);

  const unfiltered = !namespace && !action && !text;
  const input = { id: revisionId, of: 'actions' as const, offset, limit: PLAN_ROWS, namespace: namespace || undefined, action: action || undefined, text: text || undefined };
  const page = useQuery({
    ...trpc.revisions.planPage.queryOptions(input),
    placeholderData: keepPreviousData,
    initialData: unfiltered && offset === 0 ? first : undefined,
    // The first page came with the revision just now; live statuses are asked again below.
    staleTime: 10_000,
    refetchInterval: live ? 1500 : false,
  });

  // The last page that came, so a failed one keeps the counts and the way back.
  const got = page.data?.of === 'actions' ? page.data : undefined;
  const lastGood = useRef<Page>(first);
  if (got) lastGood.current = got;
  const failed = page.isError;
  const data = got ?? lastGood.current;
  const rows = failed ? [] : data.actions;
  const total = data.total;
  const from = total === 0 ? 0 : data.offset + 1;
  const to = data.offset + rows.length;
  const loading = page.isFetching && page.isPlaceholderData;
  const groups: { ns: string; rows: Row[] }[] = [];
  for (const r of rows) {
    const last = groups[groups.length - 1];
    if (last?.ns === r.namespace) last.rows.push(r);
    else groups.push({ ns: r.namespace, rows: [r] });
  }
  // Not disabled while a page loads (a disabled button drops the keyboard's focus); a click then asks for the page after the one asked for.
  const go = (next: number) => setOffset(Math.max(0, next));

  return (
    <div data-testid="plan-pages" aria-busy={loading}>
      {first.all > PLAN_ROWS && (
        <div className="toolbar" role="search" aria-label="Filter the plan">
          <div className="actions">
            <label htmlFor={`${ids}-ns`} className="muted">
              Section
            </label>
            <select
              id={`${ids}-ns`}
              value={namespace}
              onChange={(e) => {
                setNamespace(e.target.value);
                setOffset(0);
              }}
            >
              <option value="">all sections</option>
              {namespaces.map((ns) => (
                <option key={ns} value={ns}>
                  {ns}
                </option>
              ))}
            </select>
            <label htmlFor={`${ids}-action`} className="muted">
              Action
            </label>
            <select
              id={`${ids}-action`}
              value={action}
              onChange={(e) => {
                setAction(e.target.value as ActionKind | '');
                setOffset(0);
              }}
            >
              <option value="">all actions</option>
              {ACTION_KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
            <input type="search" aria-label="Filter by instance key or claim" placeholder="Instance key or claim contains…" value={typed} onChange={(e) => setTyped(e.target.value)} style={{ minWidth: 220 }} />
          </div>
        </div>
      )}
      {failed ? (
        <ErrorState error={page.error} retry={() => void page.refetch()} />
      ) : total === 0 ? (
        <p className="muted">{unfiltered ? 'No actions.' : 'No actions match the filter.'}</p>
      ) : (
        groups.map((g, gi) => (
          <div key={`${g.ns}|${gi}`} className="plan-section">
            <h3>{g.ns}</h3>
            <table className="table plan-table" style={loading ? { opacity: 0.6 } : undefined}>
              <tbody>
                {g.rows.map((a, i) => (
                  <tr key={`${a.kind}|${a.key}|${a.claim ?? ''}|${i}`} aria-selected={selected === a.key}>
                    <td style={{ width: 110 }}>
                      <span className={`op-${a.kind.replace('-claim', '')}`}>{a.kind}</span>
                    </td>
                    <td>
                      <button type="button" className="link-button mono" onClick={() => onSelect(a.key)} title={a.key}>
                        {shortKey(a.key)}
                      </button>
                      {a.claim && <span className="muted"> · {a.claim}</span>}
                      {a.notes?.map((n) => (
                        <span key={n} className="badge">
                          {n}
                        </span>
                      ))}
                    </td>
                    <td style={{ width: 90 }}>
                      {a.status && (
                        <span className={statusClass(a.status === 'done' ? 'applied' : a.status === 'failed' ? 'failed' : a.status === 'skipped' ? 'rejected' : 'pending')}>{a.status}</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))
      )}
      {(total > PLAN_ROWS || offset > 0) && (
        <nav className="toolbar" aria-label="Plan pages" style={{ marginTop: 8 }}>
          <span className="muted" role="status" aria-live="polite" data-testid="plan-range">
            {loading
              ? 'Loading…'
              : failed
                ? `Page from ${(offset + 1).toLocaleString('en')} of ${total.toLocaleString('en')} actions could not be loaded`
                : `Showing ${from.toLocaleString('en')}–${to.toLocaleString('en')} of ${total.toLocaleString('en')} actions`}
            {!unfiltered && data.all !== total && ` (${data.all.toLocaleString('en')} in all)`}
          </span>
          <span className="actions">
            <button type="button" className="btn btn-small" onClick={() => go(0)} disabled={offset === 0}>
              First page
            </button>
            <button type="button" className="btn btn-small" onClick={() => go(offset - PLAN_ROWS)} disabled={offset === 0}>
              Previous page
            </button>
            <button type="button" className="btn btn-small" onClick={() => go(offset + PLAN_ROWS)} disabled={offset + PLAN_ROWS >= total}>
              Next page
            </button>
          </span>
        </nav>
      )}
    </div>
  );
}
