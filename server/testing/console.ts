/**
 * The console's two APIs on loopback for tests that drive them as a client
 * would: the REST API and tRPC, both authenticating bearer API tokens with
 * the real token service as the Next.js routes do (there is no session
 * here: a request without a token is anonymous).
 */
import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { guardRequest, trpcBodyRefusal } from '../api/http-limits';
import { contextForRequest } from '../api/request-context';
import { appRouter } from '../api/root';
import { withinRequest } from '../repo/fresh-reads';
import { bearerOrSession } from '../auth/bearer';
import { API_PREFIX, restApi } from '../rest';
import { DM_PREFIX, dmApi } from '../rest/dm';
import { RateLimiter } from '../rest/rate-limit';
import type { Services } from '../services';
import { serveForTests, testAuth, type TestServer } from './rest';

export async function serveConsoleForTests(services: Services): Promise<TestServer> {
  const rest = restApi({
    services: async () => services,
    authenticate: bearerOrSession((t) => services.tokens.authenticate(t), async () => null),
    rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }),
  });
  return serveForTests(async (req) => {
    const path = new URL(req.url).pathname;
    if (path.startsWith(`${API_PREFIX}/`) || path === API_PREFIX) return rest(req);
    if (path.startsWith('/api/trpc/')) {
      // As the console's route (app/api/trpc): the request's reads may share answers sent after it began.
      return withinRequest(() => fetchRequestHandler({ endpoint: '/api/trpc', req, router: appRouter, createContext: ({ req }) => contextForRequest(req, services, async () => null) }));
    }
    return new Response('not found', { status: 404 });
  });
}

/**
 * Every door of the console on one event loop, as `npm start` has them, with
 * the tests' bearer `test:<user>` (./rest.ts): the REST API, Deployment
 * Manager's, tRPC (behind the route's body and batch limits) and `GET /`,
 * answered as the console answers it (a redirect to the objects page) — the
 * request the hostile benchmark times to see whether the loop is free.
 */
export async function serveEveryDoorForTests(services: Services): Promise<TestServer> {
  const opts = { services: async () => services, authenticate: testAuth, rateLimit: new RateLimiter({ perSecond: 1e9, burst: 1e9 }) };
  const rest = restApi(opts);
  const dm = dmApi(opts);
  const contextOf = async (req: Request) => {
    const who = await testAuth(req);
    if ('refuse' in who) throw new TRPCError({ code: 'UNAUTHORIZED', message: who.refuse });
    return { actor: who.actor, services };
  };
  // As the console's route (app/api/trpc): the body counted, a large one refused to a caller with no role before tRPC parses it.
  const trpc = async (incoming: Request) => {
    const req = await guardRequest(incoming, { endpoint: '/api/trpc' });
    if (req instanceof Response) return req;
    const refused = await trpcBodyRefusal(req, await contextOf(req));
    if (refused) return refused;
    return withinRequest(() =>
      fetchRequestHandler({
        endpoint: '/api/trpc',
        req,
        router: appRouter,
        // As the console's route: a query with a large input (a preview) arrives as POST.
        allowMethodOverride: true,
        createContext: ({ req }) => contextOf(req),
      }),
    );
  };
  return serveForTests(
    async (req) => {
      const path = new URL(req.url).pathname;
      if (path === '/') return new Response(null, { status: 307, headers: { location: '/objects' } });
      if (path.startsWith(`${API_PREFIX}/`)) return rest(req);
      return new Response('not found', { status: 404 });
    },
    [
      { prefix: '/api/trpc/', handle: trpc },
      { prefix: `${DM_PREFIX}/`, handle: dm },
    ],
  );
}
