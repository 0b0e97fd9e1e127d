/**
 * Domain errors. Services throw AppError with a code; only the API layer
 * (server/api/errors.ts) turns codes into tRPC/HTTP statuses.
 * `message` is shown to users, so it must say what to do, and never leak
 * internals or secrets.
 */
import type { Diagnostic } from '../engine/diagnostics';

export const AppErrorCode = {
  /** Not signed in. */
  UNAUTHORIZED: 'UNAUTHORIZED',
  /** Signed in, but lacks the right. */
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  /** The write was based on a state that has since moved (stale base, lost race). */
  CONFLICT: 'CONFLICT',
  /** Bad input: details carry diagnostics naming object, field and line. */
  INVALID_INPUT: 'INVALID_INPUT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  INTERNAL: 'INTERNAL',
} as const;
export type AppErrorCode = (typeof AppErrorCode)[keyof typeof AppErrorCode];

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly diagnostics?: Diagnostic[];
  readonly details?: Record<string, unknown>;

  constructor(code: AppErrorCode, message: string, opts: { diagnostics?: Diagnostic[]; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.diagnostics = opts.diagnostics;
    this.details = opts.details;
  }
}

export const unauthorized = (what = 'do this') => new AppError('UNAUTHORIZED', `Sign in to ${what}.`);
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} does not exist.`);
