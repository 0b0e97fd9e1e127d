/**
 * A console process for the reliability tests: the services and the REST
 * API over the PostgreSQL database in DATABASE_URL, on a free loopback
 * port (printed as `LISTEN <url>`), with the tests' bearer `test:<user>`;
 * the console's tRPC API beside it (/api/trpc/), with the same bearer.
 * Without a bearer, the console's session: next-auth's routes are served
 * (/api/auth/, with the console's options and NEXTAUTH_SECRET), and a
 * request's session cookie is read as the console reads it.
 * Several of these share one database, as console processes behind a load
 * balancer do; the apply worker runs elsewhere (`npm run worker`).
 */
import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '../api/root';
import { openDb } from '../db/client';
import { drizzleRepos } from '../repo/drizzle';
import { withinRequest } from '../repo/fresh-reads';
import { buildAuthOptions, sessionActor } from '../auth/options';
import { bearerOrSession } from '../auth/bearer';
import { restApi } from '../rest';
import type { Authenticate } from '../rest/dispatch';
import { RateLimiter } from '../rest/rate-limit';
import { createServices } from '../services';
import { seedDemo } from '../seed/demo';
import { TIERED_OFFERING } from './cluster';
import { authRoute, sessionOf } from './next-auth';
import { serveForTests, testAuth } from './rest';

// PostgreSQL (DATABASE_URL), or the embedded PGlite in PGLITE_DIR for a single process.
const url = process.env.DATABASE_URL;
const pgliteDir = process.env.PGLITE_DIR;
if (!url && !pgliteDir) throw new Error('console-process needs DATABASE_URL or PGLITE_DIR');
const db = await openDb(url ? { url, max: 10 } : { pgliteDir, pgliteThread: true });
// acme-* may be taken as a tenant's namespaces without a domain admin, as the REST tests do.
// As the server runs: the embedded database is this process's alone (exclusive), and resolutions run on worker threads (KEELSON_RESOLVER_THREADS' default).
const repos = drizzleRepos(db.db, { exclusive: !url });
const services = createServices(repos, {
  usersFile: undefined,
  domainAdmins: ['Sam'],
  freeNamespaces: (process.env.KEELSON_FREE_NAMESPACES ?? 'acme-*').split(','),
  resolver: { threads: 2, timeoutMs: 60_000, memoryMb: 2048 },
});
// KEELSON_TEST_PREPARE=1: the demo and the tiered offering, when the database has none (a PGlite only this process can open).
if (process.env.KEELSON_TEST_PREPARE === '1') {
  if ((await repos.policy.head()) === 0) await seedDemo(repos);
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  if (!(await repos.policy.getObject({ kind: 'bundle', namespace: 'acme-web', name: 'webshop' }))) {
    await services.policy.apply(sam, { text: TIERED_OFFERING, baseGeneration: await repos.policy.head() });
  }
}
// Sessions as the console keeps them: consoles given one NEXTAUTH_SECRET read each other's cookies.
const auth = buildAuthOptions({ authSecret: process.env.NEXTAUTH_SECRET ?? 'console-process-session-secret', authUrl: 'http://127.0.0.1', sessionSeconds: 3600, oidc: undefined }, async () => services);
const authenticate: Authenticate = (req) =>
  req.headers.get('authorization') !== null ? testAuth(req) : bearerOrSession(async () => null, async () => sessionActor(services, await sessionOf(req, auth)))(req);
// tRPC beside the REST API, as the console's pages call it (the load test's object lists, revision pages, graphs and saves).
const trpc = {
  prefix: '/api/trpc/',
  // As the console's route (app/api/trpc): the request's reads may share answers sent after it began (repo/fresh-reads.ts).
  handle: (req: Request) =>
    withinRequest(() =>
      fetchRequestHandler({
        endpoint: '/api/trpc',
        req,
        router: appRouter,
        createContext: async ({ req }) => {
          const who = await authenticate(req);
          if ('refuse' in who) throw new TRPCError({ code: who.code ?? 'UNAUTHORIZED', message: who.refuse });
          return { actor: who.actor, services };
        },
      }),
    ),
};
const server = await serveForTests(restApi({ services: async () => services, authenticate, rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }) }), [trpc, authRoute(auth)]);
process.stdout.write(`LISTEN ${server.url}\n`);
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    void server
      .close()
      .then(() => services.resolution.close())
      .finally(() => process.exit(0));
  });
}
