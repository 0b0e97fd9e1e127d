/**
 * Limits on what one HTTP request may make the server hold or do, checked
 * before tRPC sees the request:
 *  - the body is read with a byte counter and refused past the limit, so a
 *    chunked upload (no Content-Length) or a lying Content-Length cannot
 *    make the server buffer more than the limit;
 *  - a batch holds at most MAX_BATCH calls (a batch of thousands of cheap
 *    calls would otherwise be one request doing thousands of queries),
 *    counted as tRPC counts them, after decoding the path.
 */
import { MAX_REQUEST_BYTES } from '../engine/model/kinds';
import type { AccessService } from '../services/access';
import type { MaybeActor } from '../services/actor';
import { isAppError, unauthorized, type AppError } from '../errors';
import { MAX_BATCH } from '../http/batch';
import { BAD_PATH_ENCODING, decodesCleanly } from '../http/percent-encoding';
import { APP_ERROR_TO_TRPC } from './errors';
import { readCapped } from '../http/read-capped';

export { MAX_BATCH };

/** Room for the JSON envelope around a maximal policy text. */
export const MAX_BODY_BYTES = MAX_REQUEST_BYTES + 64 * 1024;

function refuse(status: number, code: string, message: string): Response {
  return Response.json({ error: { message, code } }, { status });
}

/**
 * How many calls a tRPC request makes: `/api/trpc/a,b,c?batch=1` is three,
 * and so is `a%2Cb%2Cc` (tRPC decodes the path before it splits it); null
 * when the path does not decode.
 */
export function batchSize(url: URL, endpoint: string): number | null {
  if (url.searchParams.get('batch') !== '1') return 1;
  const raw = url.pathname.slice(url.pathname.indexOf(endpoint) + endpoint.length).replace(/^\//, '');
  if (!decodesCleanly(raw)) return null;
  const path = decodeURIComponent(raw);
  return path === '' ? 0 : path.split(',').length;
}

/**
 * Either a Response refusing the request, or the request with its body read
 * (at most `maxBytes`) and buffered, ready for the tRPC handler.
 */
export async function guardRequest(req: Request, opts: { endpoint: string; maxBytes?: number; maxBatch?: number }): Promise<Request | Response> {
  const maxBytes = opts.maxBytes ?? MAX_BODY_BYTES;
  const maxBatch = opts.maxBatch ?? MAX_BATCH;
  const calls = batchSize(new URL(req.url), opts.endpoint);
  if (calls === null) return refuse(400, 'BAD_REQUEST', BAD_PATH_ENCODING);
  if (calls > maxBatch) {
    return refuse(400, 'BAD_REQUEST', `The request batches ${calls} calls; at most ${maxBatch} are allowed in one request.`);
  }
  const declared = req.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    return refuse(413, 'PAYLOAD_TOO_LARGE', `The request is ${declared} bytes, over the limit of ${mib(maxBytes)}.`);
  }
  if (!req.body || req.method === 'GET' || req.method === 'HEAD') return req;
  // Count what actually arrives: Content-Length may be absent (chunked) or wrong.
  const read = await readCapped(req.body, maxBytes);
  if ('over' in read) return refuse(413, 'PAYLOAD_TOO_LARGE', `The request body is over the limit of ${mib(maxBytes)}; reading stopped at ${read.over} bytes.`);
  const body = read.bytes;
  const headers = new Headers(req.headers);
  headers.set('content-length', String(body.byteLength));
  headers.delete('transfer-encoding');
  return new Request(req.url, { method: req.method, headers, body, signal: req.signal });
}

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * A body over this many bytes is parsed only for a caller who may change
 * something somewhere. Nothing someone with no role may do takes more (a
 * tenant, a token, an invitation are a few hundred bytes); the doors that
 * take policy text refuse them anyway (services/admission.ts), but only
 * after the transport has parsed the body — for 10 MiB of JSON, a stall of
 * the thread that answers everyone.
 */
export const OPEN_BODY_BYTES = 64 * 1024;

/** The refusal (401, 403) of a body of `bytes` from this caller before it is parsed, or undefined. Used by tRPC's route and the REST dispatcher alike. */
export async function largeBodyRefusal(bytes: number, actor: MaybeActor, access: Pick<AccessService, 'assertMayManageSomewhere'>): Promise<AppError | undefined> {
  if (bytes <= OPEN_BODY_BYTES) return undefined;
  if (!actor) return unauthorized(`send a body of ${bytes} bytes`);
  try {
    await access.assertMayManageSomewhere(actor, `send a body of ${bytes} bytes`);
    return undefined;
  } catch (e) {
    if (isAppError(e)) return e;
    throw e;
  }
}

/**
 * For tRPC's route: the refusal of a request whose body (read and counted by
 * `guardRequest`) is large and whose caller may not send one — before tRPC
 * parses it. `context` is the request's (who is asking).
 */
export async function trpcBodyRefusal(req: Request, context: { actor: MaybeActor; services: { access: Pick<AccessService, 'assertMayManageSomewhere'> } }): Promise<Response | undefined> {
  const refused = await largeBodyRefusal(Number(req.headers.get('content-length') ?? 0), context.actor, context.services.access);
  if (!refused) return undefined;
  const m = APP_ERROR_TO_TRPC[refused.code];
  return refuse(m.http, m.trpc, refused.message);
}
