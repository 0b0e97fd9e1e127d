import { NextResponse, type NextRequest } from 'next/server';

/**
 * Passes the requested path to server layouts (so sign-in can return there).
 * Authorisation itself happens in layouts and tRPC procedures, not here.
 */
export function proxy(req: NextRequest) {
  const headers = new Headers(req.headers);
  headers.set('x-keelson-path', req.nextUrl.pathname + req.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

export const config = { matcher: ['/((?!api|_next|favicon\.ico|favicon\.svg|robots\.txt).*)'] };
