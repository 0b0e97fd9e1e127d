/**
 * The database is unreachable (PostgreSQL stopped, restarting, the network
 * cut): one place that recognises it, so the APIs answer 503 Unavailable
 * with a retry-after instead of a 500, and the apply worker waits instead
 * of counting it as a failed apply. postgres.js reconnects by itself on
 * the next query once the server is back, so nothing here holds state.
 */
import { AppError, isAppError } from '../errors';

export const DB_UNAVAILABLE_MESSAGE = 'The database is unreachable; try again shortly.';
/** What clients are told to wait: a restart or failover usually takes a few seconds. */
export const DB_RETRY_AFTER_SECONDS = 5;

/** postgres.js's own connection errors (a socket closed under a query, the pool ended, no connection in time). */
const CLIENT_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);
/** The socket's errors on the way to the server. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * SQLSTATEs the server sends when it is going or not yet there:
 * admin_shutdown, crash_shutdown, cannot_connect_now (starting up, in
 * recovery), too_many_connections; class 08 is connection_exception.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

function unreachable(e: Record<string, unknown>): boolean {
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (!code) return false;
  if (CLIENT_CODES.has(code) || SOCKET_CODES.has(code)) return true;
  // A PostgresError carries the SQLSTATE in `code` (and its severity): 08xxx, 57P0x.
  return typeof e.severity === 'string' && (SERVER_CODES.has(code) || code.startsWith('08'));
}

/**
 * The error in `e` (or in what it wraps: drizzle's DrizzleQueryError, an
 * AggregateError of connect attempts) that says the database cannot be
 * reached, or undefined.
 */
function connectivityError(e: unknown, depth = 0): Record<string, unknown> | undefined {
  if (typeof e !== 'object' || e === null || depth > 5) return undefined;
  if (isAppError(e)) return e.code === 'UNAVAILABLE' ? (e as unknown as Record<string, unknown>) : undefined;
  // fetch's failures (a template URL that refuses) are TypeErrors wrapping socket errors: those are not the database.
  if (e instanceof TypeError) return undefined;
  const o = e as Record<string, unknown>;
  if (unreachable(o)) return o;
  for (const x of Array.isArray(o.errors) ? (o.errors as unknown[]) : []) {
    const found = connectivityError(x, depth + 1);
    if (found) return found;
  }
  return connectivityError(o.cause, depth + 1);
}

export function isDbUnavailable(e: unknown): boolean {
  return connectivityError(e) !== undefined;
}

/** For logs: what the connection said (`connect ECONNREFUSED 127.0.0.1:5432`, `57P01 terminating connection…`), without the query text drizzle adds. */
export function dbUnavailableReason(e: unknown): string {
  const found = connectivityError(e);
  if (!found) return String((e as Error)?.message ?? e);
  const message = String(found.message ?? '');
  return typeof found.severity === 'string' ? `${String(found.code)} ${message}` : message || String(found.code);
}

/** The AppError an API answers for a database outage (503 Unavailable, retry-after), or undefined when `e` is something else. */
export function dbUnavailableError(e: unknown): AppError | undefined {
  if (isAppError(e)) return e.code === 'UNAVAILABLE' ? e : undefined;
  if (!isDbUnavailable(e)) return undefined;
  return new AppError('UNAVAILABLE', DB_UNAVAILABLE_MESSAGE, { details: { retryAfterSeconds: DB_RETRY_AFTER_SECONDS } });
}

/** `e` as the API should see it: a database outage becomes AppError UNAVAILABLE, anything else is returned as it is. */
export function asAppErrorIfDbDown(e: unknown): unknown {
  return dbUnavailableError(e) ?? e;
}
