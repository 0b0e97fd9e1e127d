import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@/server/api/root';
import { createRequestContext } from '@/server/api/context';
import { guardRequest } from '@/server/api/http-limits';

async function handler(incoming: Request) {
  // Bodies are counted as they arrive and batches capped before tRPC runs anything.
  const req = await guardRequest(incoming, { endpoint: '/api/trpc' });
  if (req instanceof Response) return req;
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: createRequestContext,
    // Queries with big inputs (a preview of a whole object) arrive as POST; they still only read.
    allowMethodOverride: true,
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`tRPC ${path}:`, error.cause ?? error);
    },
  });
}

export { handler as GET, handler as POST };
