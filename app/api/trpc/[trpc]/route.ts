import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@/server/api/root';
import { createRequestContext } from '@/server/api/context';
import { MAX_REQUEST_BYTES } from '@/server/engine/model/kinds';

async function handler(req: Request) {
  // Refuse oversized bodies before reading them.
  const length = Number(req.headers.get('content-length') ?? '0');
  if (length > MAX_REQUEST_BYTES + 64 * 1024) {
    return Response.json(
      { error: { message: `The request is ${length} bytes, over the limit of 10 MiB.`, code: 'PAYLOAD_TOO_LARGE' } },
      { status: 413 },
    );
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: createRequestContext,
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`tRPC ${path}:`, error.cause ?? error);
    },
  });
}

export { handler as GET, handler as POST };
