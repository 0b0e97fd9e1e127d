/**
 * next-auth's own request handling outside Next.js, for test console
 * processes: its routes (/api/auth/csrf, callback/local, signout, session)
 * and the session of a request, read as `getServerSession` reads it. The
 * handler is next-auth's core, loaded by file (its package exports only the
 * Next.js adapters, which need a Next.js request context); the console's
 * routes use those adapters with the same options (server/auth/options.ts).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { NextAuthOptions } from 'next-auth';

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('next-auth'));

interface InternalResponse {
  status?: number;
  body?: unknown;
  headers?: { key: string; value: string }[];
  cookies?: unknown[];
  redirect?: string;
}
interface InternalRequest {
  action: string;
  method: string;
  cookies: Record<string, string>;
  headers: Record<string, string>;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  providerId?: string;
  error?: string;
}

const { AuthHandler } = require(join(root, 'core/index.js')) as { AuthHandler(p: { req: InternalRequest; options: NextAuthOptions }): Promise<InternalResponse> };
const { getBody, toResponse } = require(join(root, 'next/utils.js')) as { getBody(req: Request): Promise<Record<string, unknown> | undefined>; toResponse(r: InternalResponse): Response };

function cookiesOf(req: { headers: { get(name: string): string | null } }): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (req.headers.get('cookie') ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) cookies[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return cookies;
}

/** next-auth's routes under /api/auth/, handled as its App Router adapter handles them (next-auth/next: NextAuthRouteHandler). */
export function authRoute(options: NextAuthOptions): { prefix: string; handle: (req: Request) => Promise<Response> } {
  return {
    prefix: '/api/auth/',
    async handle(req) {
      const url = new URL(req.url);
      const [action, providerId] = url.pathname.split('/').slice(3);
      const query = Object.fromEntries(url.searchParams);
      const body = await getBody(req);
      const answer = await AuthHandler({
        req: { body, query, cookies: cookiesOf(req), headers: Object.fromEntries(req.headers), method: req.method, action: action!, providerId, error: query.error ?? providerId },
        options,
      });
      const response = toResponse(answer);
      const redirect = response.headers.get('location');
      if (body?.json !== 'true' || !redirect) return response;
      response.headers.delete('location');
      response.headers.set('content-type', 'application/json');
      return new Response(JSON.stringify({ url: redirect }), { status: answer.status, headers: response.headers });
    },
  };
}

/** The session a request's cookie holds (next-auth's session callback's answer), or null: what `getServerSession` answers. */
export async function sessionOf(req: { headers: { get(name: string): string | null } }, options: NextAuthOptions): Promise<unknown> {
  const r = await AuthHandler({ req: { action: 'session', method: 'GET', cookies: cookiesOf(req), headers: {} }, options: { ...options, providers: [] } });
  const body = r.body as Record<string, unknown> | undefined;
  return body && typeof body === 'object' && Object.keys(body).length > 0 && (r.status ?? 200) === 200 ? body : null;
}
