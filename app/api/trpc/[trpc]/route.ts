import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@/server/api/root';
import { createRequestContext } from '@/server/api/context';
import { TRPC_HANDLER_LIMITS } from '@/server/http/batch';
import { guardRequest, OPEN_BODY_BYTES, trpcBodyRefusal } from '@/server/api/http-limits';
import type { TrpcContext } from '@/server/api/trpc';
import { DB_RETRY_AFTER_SECONDS } from '@/server/db/unavailable';
import { withinRequest } from '@/server/repo/fresh-reads';

const CONSOLE_HEADER = 'x-keelson-console';
const EXPECTED_BY_CONSOLE = new Set(['NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'BAD_REQUEST', 'PRECONDITION_FAILED', 'UNPROCESSABLE_CONTENT']);

async function handler(incoming: Request) {
  // Bodies are counted as they arrive and batches capped before tRPC runs anything.
  const req = await guardRequest(incoming, { endpoint: '/api/trpc' });
  if (req instanceof Response) return req;
  // The request's reads may share answers sent after it began (server/repo/fresh-reads.ts).
  return withinRequest(() => answer(req));
}

async function answer(req: Request) {
  // A large body is parsed only for a caller who may change something somewhere: who is asking is asked first
  // (when that fails, tRPC asks again and answers the failure as it always does).
  let context: TrpcContext | undefined;
  if (Number(req.headers.get('content-length') ?? 0) > OPEN_BODY_BYTES) {
    context = await createRequestContext({ req }).catch(() => undefined);
    const refused = context && (await trpcBodyRefusal(req, context));
    if (refused) return refused;
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: context ? async () => context : createRequestContext,
    ...TRPC_HANDLER_LIMITS,
    // Queries with big inputs (a preview of a whole object) arrive as POST; they still only read.
    allowMethodOverride: true,
    responseMeta({ errors }) {
      // The console's own calls: refusals it expects and explains on the page
      // (no right, nothing there, a stale base) travel as 200 with the error
      // in the body, which the tRPC client reads the same way, so the
      // browser does not log each one as a failed request. Every other
      // client (the CLI, scripts) gets the real HTTP status.
      if (errors.length > 0 && req.headers.get(CONSOLE_HEADER) === '1' && errors.every((e) => EXPECTED_BY_CONSOLE.has(e.code))) return { status: 200 };
      // The database is down (server/db/unavailable.ts): 503, and when to try again.
      if (errors.some((e) => e.code === 'SERVICE_UNAVAILABLE')) return { headers: new Headers({ 'retry-after': String(DB_RETRY_AFTER_SECONDS) }) };
      return {};
    },
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`tRPC ${path}:`, error.cause ?? error);
    },
  });
}

export { handler as GET, handler as POST };
