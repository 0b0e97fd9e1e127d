import { NextResponse, type NextRequest } from 'next/server';
import { encodingProblem } from '@/server/http/percent-encoding';

/**
 * Passes the requested path to server layouts (so sign-in can return there).
 * Authorisation itself happens in layouts and tRPC procedures, not here.
 *
 * API paths with an escape in them come here too: one that does not decode
 * is answered 400 in that API's shape, because Next.js's routing decodes
 * the dynamic segments of our API routes before the handlers run and
 * answers a bare 500 when it cannot.
 */
export function proxy(req: NextRequest) {
  const path = req.nextUrl.pathname;
  if (path.startsWith('/api/')) return badApiEncoding(req) ?? NextResponse.next();
  const headers = new Headers(req.headers);
  headers.set('x-keelson-path', path + req.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

function badApiEncoding(req: NextRequest): Response | undefined {
  // The URL as sent: nextUrl may hold a normalised copy.
  const problem = encodingProblem(new URL(req.url));
  if (!problem) return undefined;
  const path = req.nextUrl.pathname;
  // The REST and DM APIs' envelope (server/rest/errors.ts); elsewhere the request guards' (server/api/http-limits.ts).
  if (path.startsWith('/api/1.0-beta/') || path.startsWith('/api/dm/')) return Response.json({ code: 'BadRequest', content: { message: problem } }, { status: 400 });
  return Response.json({ error: { message: problem, code: 'BAD_REQUEST' } }, { status: 400 });
}

// API paths only when they hold an escape (`%`): the others never pass through here.
export const config = { matcher: ['/((?!api|_next|favicon\.ico|favicon\.svg|robots\.txt).*)', '/api/:path(.*%.*)'] };
