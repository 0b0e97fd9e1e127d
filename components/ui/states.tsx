'use client';
import type { ReactNode } from 'react';
import { Spinner } from './spinner';

/** tRPC/AppError → a sentence for people. */
export function errorMessage(err: unknown): string {
  if (!err) return 'Something went wrong.';
  const e = err as { message?: string; data?: { code?: string; httpStatus?: number } };
  if (e.data?.code === 'UNAUTHORIZED') return 'Your session has ended. Sign in again.';
  return e.message || 'Something went wrong.';
}

export function LoadingState({ label }: { label?: string }) {
  return (
    <div className="state state-loading">
      <Spinner label={label} />
    </div>
  );
}

/** Answers that trying again will not change (no right, nothing there, bad input). */
function isFinal(err: unknown): boolean {
  const code = (err as { data?: { code?: string } } | undefined)?.data?.code;
  return code === 'FORBIDDEN' || code === 'NOT_FOUND' || code === 'BAD_REQUEST' || code === 'UNAUTHORIZED' || code === 'PAYLOAD_TOO_LARGE';
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const final = isFinal(error);
  return (
    <div className="state state-error alert alert-error" role="alert">
      <strong>{final ? 'Not available.' : 'Could not load this.'}</strong> <span>{errorMessage(error)}</span>
      {final && (
        <>
          {' '}
          <a href="/objects">Back to the console</a>
        </>
      )}
      {retry && !final && (
        <button type="button" className="btn btn-small" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

export function Alert({ kind, children, testId }: { kind: 'error' | 'success' | 'info' | 'warning'; children: ReactNode; testId?: string }) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'} data-testid={testId}>
      {children}
    </div>
  );
}
