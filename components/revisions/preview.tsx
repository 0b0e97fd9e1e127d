'use client';
/**
 * Before saving: the revision that saving would create — diff counts, cost
 * change, affected claims and sections — computed on the server without
 * writing anything.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTRPC } from '@/app/_trpc/client';
import { claimHref } from '../claims/status';
import { Spinner } from '../ui/spinner';
import { errorMessage } from '../ui/states';
import Link from 'next/link';
import { countsText, money } from './format';

const PREVIEW_DEBOUNCE_MS = 150;

export function RevisionPreview({ text, enabled }: { text: string; enabled: boolean }) {
  const trpc = useTRPC();
  const [debounced, setDebounced] = useState(text);
  useEffect(() => {
    // Short: the answer is due within half a second of the last keystroke (issue 37); a burst of typing still asks once.
    const t = setTimeout(() => setDebounced(text), PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text]);
  const q = useQuery({ ...trpc.revisions.preview.queryOptions({ text: debounced }), enabled: enabled && debounced === text, staleTime: 60_000 });
  if (!enabled) return null;
  return (
    <aside className="preview" aria-label="Preview of the revision" data-testid="preview">
      <strong>If you save:</strong>{' '}
      {debounced !== text || q.isFetching ? (
        <Spinner label="computing the revision…" />
      ) : q.isError ? (
        <span className="sev-error">{errorMessage(q.error)}</span>
      ) : !q.data ? null : !q.data.ok ? (
        <span className="muted">{q.data.message}</span>
      ) : q.data.noop ? (
        <span data-testid="preview-summary">no change to what is deployed (a no-op revision).</span>
      ) : (
        <>
          <span data-testid="preview-summary">
            a revision with {countsText(q.data.counts)}; cost {money(q.data.cost.delta.monthly, q.data.currency)} per month
          </span>
          {q.data.baseRevisionId === null && (
            <div className="muted" data-testid="preview-from-empty">
              Nothing is deployed yet, so this compares with an empty deployment: it lists everything the policy would deploy, not only your change.
            </div>
          )}
          {q.data.sections.length > 0 && (
            <div className="muted">
              Sections to accept:{' '}
              {q.data.sections.map((s) => (
                <span
                  key={s.namespace}
                  className={`badge ${s.overMarks || s.needsDomainAdmin.length > 0 ? 'badge-error' : ''}`}
                  title={s.needsDomainAdmin.length > 0 ? s.needsDomainAdmin.join('\n') : undefined}
                >
                  {s.namespace}
                  {s.overMarks ? ' (over marks)' : ''}
                  {s.needsDomainAdmin.length > 0 ? ' (needs a domain admin)' : ''}
                </span>
              ))}
            </div>
          )}
          {q.data.claims.length > 0 && (
            <div data-testid="preview-claims">
              Claims affected:{' '}
              {q.data.claims.map((c, i) => (
                <span key={`${c.namespace}/${c.name}`}>
                  {i > 0 && ', '}
                  <Link href={claimHref(c)}>
                    {c.namespace}/{c.name}
                  </Link>{' '}
                  <span className={`badge ${c.status === 'resolved' ? 'badge-ok' : 'badge-error'}`}>{c.status}</span>
                </span>
              ))}
            </div>
          )}
          {q.data.quota.length > 0 && <div className="sev-error">Over marks: {q.data.quota.map((x) => `${x.cluster} ${x.dimension} ${x.after}/${x.mark} ${x.unit}`).join(', ')}</div>}
        </>
      )}
    </aside>
  );
}
