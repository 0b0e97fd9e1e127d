/**
 * The console's two APIs on loopback for tests that drive them as a client
 * would: the REST API and tRPC, both authenticating bearer API tokens with
 * the real token service as the Next.js routes do (there is no session
 * here: a request without a token is anonymous).
 */
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { contextForRequest } from '../api/request-context';
import { appRouter } from '../api/root';
import { withinRequest } from '../repo/fresh-reads';
import { API_PREFIX, bearerOrSession, restApi } from '../rest';
import { RateLimiter } from '../rest/rate-limit';
import type { Services } from '../services';
import { serveForTests, type TestServer } from './rest';

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
