'use client';
import type { BudgetedGraph } from './types';

/** What the node budget left out of the drawing, and the way to it. */
export function BudgetNote({ g, budget, onShow, onFold }: { g: BudgetedGraph; budget: number; onShow: () => void; onFold?: () => void }) {
  const fmt = (n: number) => n.toLocaleString('en-US');
  return (
    <>
      <strong>
        {fmt(g.hidden)} of {fmt(g.total)} nodes not shown
      </strong>{' '}
      <span className="muted">
        (budget {fmt(budget)}; problems and changes first). They are counted in {g.buckets.length} grey group{g.buckets.length === 1 ? '' : 's'}: click one to
        expand it.
      </span>
      <button type="button" className="btn btn-small" onClick={onShow} style={{ marginLeft: 8 }}>
        Go to {g.buckets.length === 1 ? 'it' : 'the next'}
      </button>
      {onFold && (
        <button type="button" className="btn btn-small" onClick={onFold} style={{ marginLeft: 6 }}>
          Fold again
        </button>
      )}
    </>
  );
}
