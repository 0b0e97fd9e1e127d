/**
 * Domain errors. Services throw AppError with a code; only the API layer
 * (server/api/errors.ts) turns codes into tRPC/HTTP statuses. It sits below
 * every server layer, since the lower ones answer with it too (db/ turns an
 * outage into UNAVAILABLE).
 * `message` is shown to users, so it must say what to do, and never leak
 * internals or secrets.
 */
import type { Diagnostic } from './engine/diagnostics';

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
  /** A valid request that a limit refuses (a mark, a quota): details say which. */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  /** Something the server depends on (the database) cannot be reached: retry later (details.retryAfterSeconds). */
  UNAVAILABLE: 'UNAVAILABLE',
  INTERNAL: 'INTERNAL',
} as const;
export type AppErrorCode = (typeof AppErrorCode)[keyof typeof AppErrorCode];

/**
 * Brand instead of `instanceof`: Next.js may bundle this module twice (the
 * server runtime is created from instrumentation, requests run in route
 * bundles), and a class check across copies fails.
 */
const APP_ERROR = Symbol.for('keelson.AppError');

export function isAppError(e: unknown): e is AppError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[APP_ERROR] === true;
}

export class AppError extends Error {
  readonly [APP_ERROR] = true;
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
