/**
 * A console process for the reliability tests: the services and the REST
 * API over the PostgreSQL database in DATABASE_URL, on a free loopback
 * port (printed as `LISTEN <url>`), with the tests' bearer `test:<user>`.
 * Several of these share one database, as console processes behind a load
 * balancer do; the apply worker runs elsewhere (`npm run worker`).
 */
import { openDb } from '../db/client';
import { drizzleRepos } from '../repo/drizzle';
import { restApi } from '../rest';
import { RateLimiter } from '../rest/rate-limit';
import { createServices } from '../services';
import { serveForTests, testAuth } from './rest';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('console-process needs DATABASE_URL');
const db = await openDb({ url, max: 10 });
// acme-* may be taken as a tenant's namespaces without a domain admin, as the REST tests do.
const services = createServices(drizzleRepos(db.db), { usersFile: undefined, domainAdmins: ['Sam'], freeNamespaces: (process.env.KEELSON_FREE_NAMESPACES ?? 'acme-*').split(',') });
const server = await serveForTests(restApi({ services: async () => services, authenticate: testAuth, rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }) }));
process.stdout.write(`LISTEN ${server.url}\n`);
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    void server.close().finally(() => process.exit(0));
  });
}
