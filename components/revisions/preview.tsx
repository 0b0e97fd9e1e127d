'use client';
/**
 * Before saving: the revision that saving would create — what it changes
 * (instances with their parameter diff, claims whose outcome changes), the
 * sections and who must accept each, the cost — computed on the server
 * without writing anything, as the user types.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTRPC } from '@/components/trpc/client';
import type { Preview } from '@/server/services/revisions.types';
import { claimHref } from '../claims/status';
import { DiffEditor } from '../editor';
import { Spinner } from '../ui/spinner';
import { errorMessage } from '../ui/states';
import Link from '@/components/ui/link';
import { countsText, money, shortKey } from './format';

/**
 * Quiet time after the last keystroke before asking: short, because the answer
 * is due within half a second of the last keystroke (issue 37), yet a burst of
 * typing still asks once; a keystroke cancels the ask in flight.
 */
const DEBOUNCE_MS = 150;

/**
 * The text the preview asks about: the editor's text once no key was typed
 * for DEBOUNCE_MS. The clock starts at the keystroke (`typed`, called from
 * the editor's change event), not at the render that follows it: a render
 * of the editor page and Monaco's own work after an edit delayed an effect's
 * timer by another 150 ms. Text replaced whole (an import, a restored draft)
 * is asked about at once (`replaced`).
 */
export function useSettledText(initial: string) {
  const [settled, setSettled] = useState(initial);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const typed = useCallback((t: string) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setSettled(t), DEBOUNCE_MS);
  }, []);
  const replaced = useCallback((t: string) => {
    clearTimeout(timer.current);
    setSettled(t);
  }, []);
  return { settled, typed, replaced };
}

type Shown = Extract<Preview, { ok: true }>;

/** `text` is the editor's text now, `settled` what `useSettledText` says is worth asking about. */
export function RevisionPreview({ text, settled, enabled }: { text: string; settled: string; enabled: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const debounced = settled;
  // A keystroke makes the answer being computed stale: drop its request rather than wait for it.
  useEffect(() => {
    if (text !== debounced) void queryClient.cancelQueries({ queryKey: trpc.revisions.preview.queryKey({ text: debounced }) });
  }, [text, debounced, queryClient, trpc]);
  const q = useQuery({
    // abortOnUnmount hands the query's signal to the request, so a cancelled or superseded preview is aborted on the wire too.
    ...trpc.revisions.preview.queryOptions({ text: debounced }, { trpc: { abortOnUnmount: true } }),
    enabled: enabled && debounced === text,
    staleTime: 60_000,
  });
  if (!enabled) return null;
  const busy = debounced !== text || q.isFetching;
  return (
    <aside className="preview" aria-label="Preview of the revision" aria-busy={busy} data-testid="preview">
      <strong>If you save:</strong>{' '}
      {busy ? (
        <Spinner label="computing the revision…" />
      ) : q.isError ? (
        <span className="sev-error">{errorMessage(q.error)}</span>
      ) : !q.data ? null : !q.data.ok ? (
        <span className="muted">{q.data.message}</span>
      ) : q.data.noop ? (
        <span data-testid="preview-summary">No change to the deployment (a no-op revision).</span>
      ) : (
        <PreviewBody p={q.data} />
      )}
    </aside>
  );
}

function PreviewBody({ p }: { p: Shown }) {
  return (
    <>
      <span data-testid="preview-summary">
        a revision with {countsText(p.counts)}; cost {money(p.cost.delta.monthly, p.currency)} per month
      </span>
      {p.baseRevisionId === null && (
        <div className="muted" data-testid="preview-from-empty">
          Nothing is deployed yet, so this compares with an empty deployment: it lists everything the policy would deploy, not only your change.
        </div>
      )}
      {p.instances.length > 0 && (
        <PreviewList title="Instances that change" testId="preview-instances" more={p.instancesTotal - p.instances.length}>
          {p.instances.map((i) => (
            <ChangedInstance key={i.key} instance={i} />
          ))}
        </PreviewList>
      )}
      {p.sections.length > 0 && (
        <PreviewList title="Sections to accept" testId="preview-sections" more={0}>
          {p.sections.map((s) => (
            <li key={s.namespace} data-testid={`preview-section-${s.namespace}`}>
              <span className={`badge ${s.overMarks || s.needsDomainAdmin.length > 0 || s.unresolvedReferences.length > 0 ? 'badge-error' : 'badge-kind'}`}>{s.namespace}</span>{' '}
              <span className="muted">{countsText(s.counts as Record<string, number>)}</span> · accepted by <span data-testid={`preview-acceptors-${s.namespace}`}>{s.acceptedBy}</span>
              {s.youMayAccept ? (
                <span className="badge badge-ok" style={{ marginLeft: 6 }}>
                  you may accept it
                </span>
              ) : (
                s.reason && <div className="hint">{s.reason}</div>
              )}
              {s.needsDomainAdmin.length > 0 && <div className="hint">{s.needsDomainAdmin.join('; ')}</div>}
            </li>
          ))}
        </PreviewList>
      )}
      {p.outcomes.length > 0 && (
        <PreviewList title="Claims whose outcome changes" testId="preview-outcomes" more={p.outcomesTotal - p.outcomes.length}>
          {p.outcomes.map((o) => (
            <li key={`${o.kind ?? 'claim'}|${o.namespace}/${o.name}`}>
              <Link href={claimHref({ namespace: o.namespace, name: o.name, kind: o.kind ?? undefined })}>
                {o.namespace}/{o.name}
              </Link>
              : <Outcome o={o.before} /> → <Outcome o={o.after} />
            </li>
          ))}
        </PreviewList>
      )}
      {p.claims.length > 0 && (
        <div data-testid="preview-claims" className="muted">
          Claims affected:{' '}
          {p.claims.map((c, i) => (
            <span key={`${c.namespace}/${c.name}`}>
              {i > 0 && ', '}
              <Link href={claimHref(c)}>
                {c.namespace}/{c.name}
              </Link>
            </span>
          ))}
        </div>
      )}
      {p.quota.length > 0 && <div className="sev-error">Over marks: {p.quota.map((x) => `${x.cluster} ${x.dimension} ${x.after}/${x.mark} ${x.unit}`).join(', ')}</div>}
    </>
  );
}

/** A short titled list that says how many rows it leaves out. */
function PreviewList({ title, testId, more, children }: { title: string; testId: string; more: number; children: ReactNode }) {
  return (
    <div data-testid={testId} style={{ marginTop: 6 }}>
      <div className="muted">{title}</div>
      <ul style={{ margin: '2px 0', paddingLeft: 18 }}>
        {children}
        {more > 0 && <li className="muted">and {more} more</li>}
      </ul>
    </div>
  );
}

/** A changed instance: its action and what changed; opened, the parameter diff the revision page shows. */
function ChangedInstance({ instance: i }: { instance: Shown['instances'][number] }) {
  const [open, setOpen] = useState(false);
  const name = shortKey(i.key);
  return (
    <li data-testid="preview-instance">
      <span className={`op-${i.action}`}>{i.action}</span>{' '}
      <button type="button" className="link-button mono" aria-expanded={open} onClick={() => setOpen(!open)} title={i.key}>
        {name}
      </button>{' '}
      {i.notes.map((n) => (
        <span key={n} className="badge">
          {n}
        </span>
      ))}
      {open && <DiffEditor original={i.before} modified={i.after} height={240} ariaLabel={`Parameters of ${name}, before and after`} />}
    </li>
  );
}

function Outcome({ o }: { o: Shown['outcomes'][number]['before'] }) {
  if (!o) return <span className="muted">none</span>;
  return (
    <span>
      <span className={`badge ${o.status === 'resolved' ? 'badge-ok' : 'badge-error'}`}>{o.status}</span>
      {o.to && <span className="mono"> {o.to}</span>}
      {o.error && <span className="hint"> {o.error}</span>}
    </span>
  );
}
