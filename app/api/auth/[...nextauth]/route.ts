import NextAuth from 'next-auth';
import { NextRequest } from 'next/server';
import { authOptions } from '@/server/console-auth';
import { guardRequest } from '@/server/api/http-limits';
import { refuseOverLimit } from '@/server/auth/rate-limit';

/** A sign-in form is a few hundred bytes; nothing here needs more. */
const MAX_AUTH_BODY_BYTES = 64 * 1024;

async function handler(incoming: NextRequest, ctx: { params: Promise<{ nextauth: string[] }> }) {
  // next-auth buffers the whole form: count the bytes first (chunked uploads carry no Content-Length).
  const req = await guardRequest(incoming, { endpoint: '/api/auth', maxBytes: MAX_AUTH_BODY_BYTES, maxBatch: Infinity });
  if (req instanceof Response) return req;
  // The action and provider as next-auth reads them (its route parameters), not a guess from the path's end.
  const [action, provider] = (await ctx.params).nextauth ?? [];
  const limited = await refuseOverLimit(req, { action, provider });
  if (limited) return limited;
  return NextAuth(authOptions())(req === incoming ? incoming : new NextRequest(req), ctx);
}

export { handler as GET, handler as POST };
