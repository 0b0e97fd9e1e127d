'use client';
/**
 * Policy history: every generation (who, when, why, what changed), and the
 * difference between any two generations in Monaco's diff editor.
 */
import { useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useTRPC } from '@/components/trpc/client';
import { DiffEditor } from '../editor';
import { objectHref } from '../objects/links';
import { EmptyState, ErrorState, LoadingState } from '../ui/states';
import { Time } from '../ui/time';

export function PolicyHistory() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const gens = useQuery(trpc.policy.generations.queryOptions({ limit: 200 }));
  const head = gens.data?.[0]?.generation ?? 0;
  const to = clamp(num(params.get('to')) ?? head, 0, head);
  const from = clamp(num(params.get('from')) ?? Math.max(to - 1, 0), 0, head);

  const diff = useQuery({
    ...trpc.policy.diff.queryOptions({ from, to }),
    enabled: gens.isSuccess && head > 0,
  });

  const select = (next: { from?: number; to?: number }) => {
    const q = new URLSearchParams(params.toString());
    q.set('from', String(next.from ?? from));
    q.set('to', String(next.to ?? to));
    router.replace(`${pathname}?${q.toString()}`, { scroll: false });
  };

  if (gens.isPending) return <LoadingState label="Loading history…" />;
  if (gens.isError) return <ErrorState error={gens.error} retry={() => gens.refetch()} />;
  if (gens.data.length === 0) {
    return (
      <>
        <h1>History</h1>
        <EmptyState title="No policy generations yet">
          <p>Every saved change becomes a generation here.</p>
        </EmptyState>
      </>
    );
  }
  const options = [...gens.data.map((g) => g.generation), 0];
  return (
    <>
      <div className="page-head">
        <div>
          <h1>History</h1>
          <p>Every write is a generation; nothing is overwritten.</p>
        </div>
        <div className="actions" role="group" aria-label="Compare generations">
          <label htmlFor="from-gen" style={{ margin: 0 }}>
            Compare
          </label>
          <select id="from-gen" value={from} onChange={(e) => select({ from: Number(e.target.value) })}>
            {options.map((g) => (
              <option key={g} value={g}>
                {g === 0 ? 'empty (0)' : `generation ${g}`}
              </option>
            ))}
          </select>
          <label htmlFor="to-gen" style={{ margin: 0 }}>
            with
          </label>
          <select id="to-gen" value={to} onChange={(e) => select({ to: Number(e.target.value) })}>
            {options.map((g) => (
              <option key={g} value={g}>
                {g === 0 ? 'empty (0)' : `generation ${g}`}
              </option>
            ))}
          </select>
        </div>
      </div>
      <section className="panel" aria-label="Differences">
        <div className="toolbar">
          <h2 style={{ margin: 0 }}>
            Generation {from} → {to}
          </h2>
          {diff.data && (
            <span className="hint" data-testid="diff-summary">
              {diff.data.changed.length === 0 ? 'No differences' : `${diff.data.changed.length} object${diff.data.changed.length === 1 ? '' : 's'} differ`}
            </span>
          )}
        </div>
        {diff.isPending ? (
          <LoadingState label="Comparing…" />
        ) : diff.isError ? (
          <ErrorState error={diff.error} retry={() => diff.refetch()} />
        ) : (
          <>
            {diff.data.changed.length > 0 && (
              <p className="hint">
                Changed:{' '}
                {diff.data.changed.map((c, i) => (
                  <span key={`${c.kind}/${c.namespace}/${c.name}`}>
                    {i > 0 && ', '}
                    <Link href={objectHref(c)}>
                      {c.kind} {c.namespace}/{c.name}
                    </Link>
                  </span>
                ))}
              </p>
            )}
            <DiffEditor original={diff.data.from} modified={diff.data.to} ariaLabel={`Policy generation ${from} compared with ${to}`} />
          </>
        )}
      </section>
      <section className="panel" aria-label="Generations">
        <h2>Generations</h2>
        <div className="table-wrap">
          <table className="table" data-testid="generations-table">
            <thead>
              <tr>
                <th className="num">#</th>
                <th>When</th>
                <th>Who</th>
                <th>Message</th>
                <th>Changes</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {gens.data.map((g) => (
                <tr key={g.generation} aria-selected={g.generation === to}>
                  <td className="num">{g.generation}</td>
                  <td>
                    <Time value={g.createdAt} />
                  </td>
                  <td>{g.author}</td>
                  <td>
                    {g.message}
                    {g.restoredFrom != null && <span className="badge">restores #{g.restoredFrom}</span>}
                  </td>
                  <td>
                    <ul className="changes">
                      {g.changes.slice(0, 6).map((c) => (
                        <li key={`${c.op}/${c.kind}/${c.namespace}/${c.name}`}>
                          <span className={`op-${c.op}`}>{c.op}</span> {c.kind} {c.namespace}/{c.name}
                        </li>
                      ))}
                      {g.changes.length > 6 && <li className="muted">and {g.changes.length - 6} more</li>}
                    </ul>
                  </td>
                  <td>
                    <button type="button" className="btn btn-small" onClick={() => select({ from: Math.max(g.generation - 1, 0), to: g.generation })}>
                      Show diff
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}

function num(v: string | null): number | undefined {
  if (v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isInteger(n) ? n : undefined;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(Math.max(n, lo), hi);
}
