/**
 * The REST API's error table: a domain error code (server/services/errors.ts)
 * becomes an HTTP status and an Axebow error body `{code, content}`.
 */
import { dbUnavailableError } from '../db/unavailable';
import type { RestCore, RestReply } from './dispatch';
import type { AppErrorCode } from '../errors';

export const REST_ERRORS: Record<AppErrorCode, { status: number; code: string }> = {
  UNAUTHORIZED: { status: 401, code: 'Unauthenticated' },
  FORBIDDEN: { status: 403, code: 'Forbidden' },
  NOT_FOUND: { status: 404, code: 'NotFound' },
  CONFLICT: { status: 409, code: 'Conflict' },
  // Axebow: 400 for a request the client got wrong.
  INVALID_INPUT: { status: 400, code: 'BadRequest' },
  PAYLOAD_TOO_LARGE: { status: 413, code: 'PayloadTooLarge' },
  // Axebow: 422 for a request its marks refuse.
  LIMIT_EXCEEDED: { status: 422, code: 'MarkExceeded' },
  // The database is down or restarting (server/db/unavailable.ts): answered with a retry-after.
  UNAVAILABLE: { status: 503, code: 'Unavailable' },
  INTERNAL: { status: 500, code: 'InternalError' },
};

/** `{code, content}` with a status. `content` is always an object with at least a `message`. */
export function errorReply(status: number, code: string, content: Record<string, unknown>, headers?: Record<string, string>): RestReply {
  return { status, json: { code, content }, ...(headers ? { headers } : {}) };
}

/**
 * A handler whose thrown errors (the dispatcher answers what routes throw;
 * authentication runs before that and reads API tokens from the database)
 * are answered 503 Unavailable when the database is down, as route errors are.
 */
export function answeringDbOutage(handler: RestCore): RestCore {
  return async (req) => {
    try {
      return await handler(req);
    } catch (e) {
      const down = dbUnavailableError(e);
      if (!down) throw e;
      const m = REST_ERRORS.UNAVAILABLE;
      const retry = Number(down.details?.retryAfterSeconds);
      return errorReply(m.status, m.code, { message: down.message, retryAfterSeconds: retry }, { 'retry-after': String(retry) });
    }
  };
}
