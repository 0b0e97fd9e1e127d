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

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="state state-error alert alert-error" role="alert">
      <strong>Could not load this.</strong> <span>{errorMessage(error)}</span>
      {retry && (
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
