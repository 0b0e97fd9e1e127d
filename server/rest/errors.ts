/**
 * The REST API's error table: a domain error code (server/services/errors.ts)
 * becomes an HTTP status and an Axebow error body `{code, content}`.
 */
import type { AppErrorCode } from '../services/errors';

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
  INTERNAL: { status: 500, code: 'InternalError' },
};

/** `{code, content}` with a status. `content` is always an object with at least a `message`. */
export function errorResponse(status: number, code: string, content: Record<string, unknown>, headers?: HeadersInit): Response {
  return Response.json({ code, content }, { status, headers });
}
