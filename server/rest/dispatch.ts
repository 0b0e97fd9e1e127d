/**
 * One function from a request to an answer for the whole REST API: match
 * the route, authenticate, rate-limit, read and validate the input, call the
 * handler, and answer `{data, events}` or `{code, content}`. Framework-free
 * and transport-free: the Next.js route puts it behind Web Request/Response
 * (`webHandler`), plain Node HTTP servers (the contract tests, the API
 * benchmark) behind Node's request and response (`nodeHandler`), and both
 * run the same code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { clientAddress } from '../auth/rate-limit';
import { largeBodyRefusal, MAX_BODY_BYTES } from '../api/http-limits';
import { encodingProblem } from '../http/percent-encoding';
import type { MaybeActor } from '../services/actor';
import { isAppError } from '../errors';
import { asAppErrorIfDbDown } from '../db/unavailable';
import { withinRequest } from '../repo/fresh-reads';
import { loggable } from '../db/log-safe';
import type { Services } from '../services';
import { errorReply, REST_ERRORS } from './errors';
import { RateLimiter } from './rate-limit';
import type { FormFile, HttpMethod, RestRoute } from './route';
import { readCapped } from '../http/read-capped';

export const API_VERSION = '1.0-beta';
export const API_PREFIX = `/api/${API_VERSION}`;

/**
 * What the dispatcher reads of a request. A Web Request is one; the Node
 * adapter makes a lighter one (building a Web Request and Response per call
 * was a third of the API's time on a busy process).
 */
export interface RestRequest {
  readonly method: string;
  /** Absolute URL. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
}

/** An answer before it is put on a transport: a JSON body, or an answer already built (the docs page). */
export interface RestReply {
  status: number;
  headers?: Record<string, string>;
  /** The JSON body; undefined: none. */
  json?: unknown;
  /** `json` serialised already (an answer shared by many requests: see `sharedAnswers`). */
  text?: string;
  response?: Response;
}

/**
 * Answers a service hands to many requests as one frozen value (a tenant's
 * service list: the same for every reader of a generation) are checked
 * against the route's schema and serialised once, not per request. At 600
 * services the two take about 1 ms a list (zod 0.1–0.5 ms, JSON 0.4–0.6 ms
 * for 112 kB), and the load test asks for about 75 lists a second.
 */
const sharedAnswers = new WeakMap<object, { route: RestRoute; status: number; body: Record<string, unknown>; text: string }>();

export type RestCore = (req: RestRequest) => Promise<RestReply>;

/**
 * Who calls, and how they proved it (a token, or the console's session); or
 * a refusal: a bad bearer token (UNAUTHORIZED, the default), a cross-site
 * write through the session (FORBIDDEN).
 */
export type Authenticate = (req: RestRequest) => Promise<{ actor: MaybeActor; via?: 'token' | 'session' } | { refuse: string; code?: 'UNAUTHORIZED' | 'FORBIDDEN' }>;

export interface RestHandlerOptions {
  routes: readonly RestRoute[];
  services: () => Promise<Services>;
  authenticate: Authenticate;
  /** Default: 20 requests a second, bursts of 60, per user (per address when anonymous). */
  rateLimit?: RateLimiter;
  /** Extra answers outside the route table (the OpenAPI document, the docs page). */
  extra?: (req: RestRequest, path: string) => Promise<Response | undefined> | Response | undefined;
  /** Proxies in front (KEELSON_TRUSTED_PROXIES), for the anonymous rate-limit key. */
  trustedProxies?: number;
  maxBodyBytes?: number;
  /** The path the routes are under (default: the Axebow API's, API_PREFIX). */
  prefix?: string;
}

interface Compiled {
  route: RestRoute;
  segments: { literal?: string; param?: string }[];
  /** Literal segments count: more specific routes are tried first. */
  literals: number;
}

export function compileRoutes(routes: readonly RestRoute[]): Compiled[] {
  const seen = new Set<string>();
  const out = routes.map((route) => {
    const segments = route.path
      .split('/')
      .filter(Boolean)
      .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
    const shape = `${route.method} ${segments.map((s) => (s.param ? ':' : s.literal)).join('/')}`;
    if (seen.has(shape)) throw new Error(`two REST routes for ${shape}`);
    seen.add(shape);
    return { route, segments, literals: segments.filter((s) => s.literal).length };
  });
  return out.sort((a, b) => b.literals - a.literals);
}

function match(c: Compiled, parts: string[]): Record<string, string> | undefined {
  if (c.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const s = c.segments[i]!;
    if (s.literal !== undefined) {
      if (s.literal !== parts[i]) return undefined;
    } else params[s.param!] = parts[i]!;
  }
  return params;
}

/** Zod issues as the error body lists them: where, and what is wrong. */
function issues(where: string, e: z.ZodError): { where: string; path: string; message: string }[] {
  return e.issues.map((i) => ({ where, path: i.path.map(String).join('.'), message: i.message }));
}

/**
 * The body, parsed. `admit` is asked with its size once it is read (bytes
 * only: an answer before the client finished sending would reset its
 * connection) and before anything is parsed: a large body from a caller
 * with no role is refused for the price of a rights check.
 */
async function readBody(
  req: RestRequest,
  limit: number,
  takesForm: boolean,
  admit: (bytes: number) => Promise<RestReply | undefined>,
): Promise<{ value: unknown; form?: boolean } | { refuse: RestReply }> {
  const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    return { refuse: errorReply(413, 'PayloadTooLarge', { message: `The body is ${declared} bytes; at most ${limit} are accepted.` }) };
  }
  if (!req.body) return { value: undefined };
  // Count what arrives, whatever Content-Length said.
  const read = await readCapped(req.body, limit);
  if ('over' in read) return { refuse: errorReply(413, 'PayloadTooLarge', { message: `The body is over the limit of ${limit} bytes.` }) };
  const whole = read.bytes;
  const refused = await admit(whole.byteLength);
  if (refused) return { refuse: refused };
  if (whole.byteLength === 0) return { value: undefined };
  if (takesForm && type === 'multipart/form-data') {
    try {
      const form = await new Response(Buffer.from(whole), { headers: { 'content-type': req.headers.get('content-type')! } }).formData();
      const value: Record<string, string | FormFile> = {};
      for (const [name, part] of form.entries()) {
        value[name] = typeof part === 'string' ? part : { filename: part.name, type: part.type, bytes: new Uint8Array(await part.arrayBuffer()) };
      }
      return { value, form: true };
    } catch (e) {
      return { refuse: errorReply(400, 'BadRequest', { message: `The body is not a valid multipart form: ${(e as Error).message}` }) };
    }
  }
  if (type !== 'application/json') {
    const accepted = takesForm ? 'application/json or multipart/form-data' : 'application/json';
    return { refuse: errorReply(415, 'UnsupportedMediaType', { message: `Send the body as ${accepted} (got ${type || 'no content type'}).` }) };
  }
  const text = new TextDecoder().decode(whole);
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { refuse: errorReply(400, 'BadRequest', { message: `The body is not valid JSON: ${(e as Error).message}` }) };
  }
}

export function createRestCore(opts: RestHandlerOptions): RestCore {
  const compiled = compileRoutes(opts.routes);
  const limiter = opts.rateLimit ?? new RateLimiter({ perSecond: 20, burst: 60 });
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  // Read once: clientAddress's default reads the environment, which costs per call.
  const trustedProxies = opts.trustedProxies ?? (Number(process.env.KEELSON_TRUSTED_PROXIES ?? 0) || 0);

  // Each request's reads may share answers sent after it began (repo/fresh-reads.ts).
  return (req) => withinRequest(() => answer(req));

  async function answer(req: RestRequest): Promise<RestReply> {
    const url = new URL(req.url);
    const prefix = opts.prefix ?? API_PREFIX;
    const at = url.pathname.indexOf(prefix);
    const path = at < 0 ? url.pathname : url.pathname.slice(at + prefix.length) || '/';
    // Before anything reads them: URLSearchParams would read a bad escape in the query as U+FFFD.
    const badEncoding = encodingProblem(url);
    if (badEncoding) return errorReply(400, 'BadRequest', { message: badEncoding });
    const extra = await opts.extra?.(req, path);
    if (extra) return { status: extra.status, response: extra };

    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    const method = req.method.toUpperCase() as HttpMethod;
    const candidates = compiled.filter((c) => match(c, parts));
    const found = candidates.find((c) => c.route.method === method);
    if (!found) {
      if (candidates.length > 0) {
        const allow = [...new Set(candidates.map((c) => c.route.method))].join(', ');
        return errorReply(405, 'MethodNotAllowed', { message: `${method} is not supported here; use ${allow}.` }, { allow });
      }
      return errorReply(404, 'NotFound', { message: `No API route ${method} ${prefix}${path}.` });
    }
    const { route } = found;
    const params = match(found, parts)!;

    const who = await opts.authenticate(req);
    if ('refuse' in who) {
      const m = REST_ERRORS[who.code ?? 'UNAUTHORIZED'];
      return errorReply(m.status, m.code, { message: who.refuse });
    }
    const { actor } = who;
    const via = who.via ?? 'session';
    if (route.auth === 'user' && !actor) {
      return errorReply(401, 'Unauthenticated', { message: 'Sign in, or send a token as "Authorization: Bearer <token>".' });
    }
    const address = clientAddress(req.headers, trustedProxies);
    const wait = limiter.take(actor ? `user:${actor.id}` : `addr:${address}`);
    if (wait > 0) {
      return errorReply(429, 'TooManyRequests', { message: `Too many requests; try again in ${wait} s.`, retryAfterSeconds: wait }, { 'retry-after': String(wait) });
    }

    const problems: ReturnType<typeof issues> = [];
    const parse = (where: string, schema: z.ZodType | undefined, value: unknown) => {
      if (!schema) return undefined;
      const r = schema.safeParse(value);
      if (!r.success) {
        problems.push(...issues(where, r.error));
        return undefined;
      }
      return r.data;
    };
    const p = parse('path', route.params, params);
    const q = parse('query', route.query, Object.fromEntries(url.searchParams));
    let bodyValue: unknown;
    let isForm = false;
    if (route.body || route.form) {
      const read = await readBody(req, maxBody, route.form !== undefined, async (bytes) => {
        const refused = await largeBodyRefusal(bytes, actor, (await opts.services()).access);
        return refused && errorReply(REST_ERRORS[refused.code].status, REST_ERRORS[refused.code].code, { message: refused.message });
      });
      if ('refuse' in read) return read.refuse;
      bodyValue = read.value;
      isForm = read.form === true;
    }
    const b = isForm ? undefined : parse('body', route.body, bodyValue);
    const form = isForm ? parse('form', route.form!.schema, bodyValue) : undefined;
    if (problems.length > 0) {
      const first = problems[0]!;
      return errorReply(400, 'BadRequest', {
        message: `${first.where}${first.path ? ` ${first.path}` : ''}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
        issues: problems,
      });
    }

    try {
      const services = await opts.services();
      const result = await route.handler({ actor, services, address, via }, { params: p, query: q, body: b, ...(isForm ? { form } : {}) } as never);
      const status = result.status ?? route.status ?? 200;
      if (status === 204) return { status };
      const shared = typeof result.data === 'object' && result.data !== null && Object.isFrozen(result.data) && !result.events?.length && route.envelope !== false ? result.data : undefined;
      const known = shared && sharedAnswers.get(shared);
      if (known && known.route === route && known.status === status) return { status, json: known.body, text: known.text };
      const data = result.data !== undefined && route.response ? route.response.parse(result.data) : result.data;
      // A foreign API's shape (Deployment Manager's): the data is the body.
      if (route.envelope === false) return { status, json: data ?? null };
      const body: Record<string, unknown> = {};
      if (data !== undefined) body.data = data;
      if (result.events?.length) body.events = result.events;
      if (shared) {
        const text = JSON.stringify(body);
        sharedAnswers.set(shared, { route, status, body, text });
        return { status, json: body, text };
      }
      return { status, json: body };
    } catch (thrown) {
      const e = asAppErrorIfDbDown(thrown); // a database outage is a 503 Unavailable with a retry-after, not a 500
      if (isAppError(e)) {
        const m = REST_ERRORS[e.code];
        // A service may name the Axebow code (and, rarely, the status) a refusal travels as.
        const status = typeof e.details?.restStatus === 'number' ? e.details.restStatus : m.status;
        const retry = e.details?.retryAfterSeconds;
        return errorReply(
          status,
          (e.details?.restCode as string | undefined) ?? m.code,
          {
            message: e.message,
            ...(e.details ? Object.fromEntries(Object.entries(e.details).filter(([k]) => k !== 'restCode' && k !== 'restStatus')) : {}),
            ...(e.diagnostics ? { diagnostics: e.diagnostics } : {}),
          },
          typeof retry === 'number' ? { 'retry-after': String(retry) } : undefined,
        );
      }
      console.error(`REST ${method} ${path}: ${loggable(e)}`);
      return errorReply(500, 'InternalError', { message: 'The server failed to answer; the fault is logged.' });
    }
  }
}

/** The dispatcher as the Web's fetch handler (the Next.js route). */
export function createRestHandler(opts: RestHandlerOptions): (req: Request) => Promise<Response> {
  return webHandler(createRestCore(opts));
}

export function toResponse(r: RestReply): Response {
  if (r.response) return r.response;
  if (r.json === undefined) return new Response(null, { status: r.status, headers: r.headers });
  if (r.text !== undefined) return new Response(r.text, { status: r.status, headers: { ...r.headers, 'content-type': 'application/json' } });
  return Response.json(r.json, { status: r.status, headers: r.headers });
}

export function webHandler(core: RestCore): (req: Request) => Promise<Response> {
  return async (req) => {
    const began = performance.now();
    const res = toResponse(await core(req));
    res.headers.set('server-timing', serverTiming(began));
    return res;
  };
}

/**
 * How long the server worked on an answer, as a Server-Timing header
 * (browsers' developer tools show it; the load test reads it). From the
 * handler's start to the answer's text: the time a request waited to be
 * read, and the time its answer takes to travel, are not in it.
 */
function serverTiming(began: number): string {
  return `app;dur=${(performance.now() - began).toFixed(1)}`;
}

/** Node's header list as the dispatcher reads headers (repeated headers joined, as Headers.get joins them). */
function nodeHeaders(req: IncomingMessage): RestRequest['headers'] {
  return {
    get(name) {
      const v = req.headers[name.toLowerCase()];
      if (v === undefined) {
        // As Next.js does for a direct client: the socket's address stands in for X-Forwarded-For.
        return name.toLowerCase() === 'x-forwarded-for' ? (req.socket.remoteAddress ?? null) : null;
      }
      return Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

export type NodeRestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** An API as a Web fetch handler (the Next.js route), with `node` for a plain Node HTTP server. */
export type RestApi = ((req: Request) => Promise<Response>) & { node: NodeRestHandler };

/** The dispatcher behind a Node HTTP server, with no Web Request or Response in between. */
export function nodeHandler(core: RestCore): NodeRestHandler {
  return async (req, res) => {
    const began = performance.now();
    let reply: RestReply;
    try {
      const method = req.method ?? 'GET';
      // Only the path and query are read: the Host header (the client's to write) is not part of the URL.
      let url: string | undefined;
      try {
        url = new URL(req.url ?? '/', 'http://localhost').href;
      } catch {
        url = undefined;
      }
      reply = url
        ? await core({ method, url, headers: nodeHeaders(req), body: method === 'GET' || method === 'HEAD' ? null : req })
        : errorReply(400, 'BadRequest', { message: 'The request target is not a valid URL.' });
    } catch (e) {
      console.error(`REST ${req.method} ${req.url}: ${loggable(e)}`);
      reply = errorReply(500, 'InternalError', { message: 'The server failed to answer; the fault is logged.' });
    }
    // A body refused unread (413 on its declared length) is left to Node, which reads and drops the rest
    // after the answer. Closing the connection instead reset it under a client still sending, and the
    // client saw the reset, not the 413.
    if (reply.response) {
      res.statusCode = reply.response.status;
      reply.response.headers.forEach((v, k) => res.setHeader(k, v));
      const bytes = Buffer.from(await reply.response.arrayBuffer());
      res.setHeader('server-timing', serverTiming(began));
      res.end(bytes);
      return;
    }
    const text = reply.json === undefined ? undefined : (reply.text ?? JSON.stringify(reply.json));
    res.writeHead(reply.status, {
      ...reply.headers,
      ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }),
      'server-timing': serverTiming(began),
    });
    res.end(text);
  };
}
