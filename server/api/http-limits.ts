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
import { MAX_BATCH } from './batch';
import { BAD_PATH_ENCODING, decodesCleanly } from './percent-encoding';
import { readCapped } from './read-capped';

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
