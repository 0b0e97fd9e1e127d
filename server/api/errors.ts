/**
 * The one table from domain error codes to tRPC codes and HTTP statuses.
 */
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { AppErrorCode } from '../errors';

export const APP_ERROR_TO_TRPC: Record<AppErrorCode, { trpc: TRPC_ERROR_CODE_KEY; http: number }> = {
  UNAUTHORIZED: { trpc: 'UNAUTHORIZED', http: 401 },
  FORBIDDEN: { trpc: 'FORBIDDEN', http: 403 },
  NOT_FOUND: { trpc: 'NOT_FOUND', http: 404 },
  CONFLICT: { trpc: 'CONFLICT', http: 409 },
  INVALID_INPUT: { trpc: 'UNPROCESSABLE_CONTENT', http: 422 },
  PAYLOAD_TOO_LARGE: { trpc: 'PAYLOAD_TOO_LARGE', http: 413 },
  LIMIT_EXCEEDED: { trpc: 'UNPROCESSABLE_CONTENT', http: 422 },
  UNAVAILABLE: { trpc: 'SERVICE_UNAVAILABLE', http: 503 },
  INTERNAL: { trpc: 'INTERNAL_SERVER_ERROR', http: 500 },
};
