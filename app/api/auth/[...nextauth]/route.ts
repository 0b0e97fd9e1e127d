import NextAuth from 'next-auth';
import { NextRequest } from 'next/server';
import { authOptions } from '@/server/auth/options';
import { guardRequest } from '@/server/api/http-limits';
import { clientAddress, signInLimiter } from '@/server/auth/rate-limit';

/** A sign-in form is a few hundred bytes; nothing here needs more. */
const MAX_AUTH_BODY_BYTES = 64 * 1024;

async function handler(incoming: NextRequest, ctx: { params: Promise<{ nextauth: string[] }> }) {
  // next-auth buffers the whole form: count the bytes first (chunked uploads carry no Content-Length).
  const req = await guardRequest(incoming, { endpoint: '/api/auth', maxBytes: MAX_AUTH_BODY_BYTES, maxBatch: Infinity });
  if (req instanceof Response) return req;
  const limited = await tooManySignIns(req);
  if (limited) return limited;
  return NextAuth(authOptions())(req === incoming ? incoming : new NextRequest(req), ctx);
}

/** A local sign-in past the failure limit of its account or address: 429 before checking any password. */
async function tooManySignIns(req: Request): Promise<Response | null> {
  if (req.method !== 'POST' || !new URL(req.url).pathname.endsWith('/callback/local')) return null;
  const form = new URLSearchParams(await req.clone().text());
  const wait = signInLimiter().retryAfter(form.get('username') ?? '', clientAddress(req.headers));
  if (wait === 0) return null;
  // next-auth's client reads `url` and its `error` parameter; the form explains it.
  const url = new URL('/signin', req.url);
  url.searchParams.set('error', 'TooManyAttempts');
  return Response.json({ url: url.toString(), message: `Too many failed sign-ins: try again in ${wait} s.` }, { status: 429, headers: { 'Retry-After': String(wait) } });
}

export { handler as GET, handler as POST };
