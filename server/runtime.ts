/**
 * The running server's shared state: configuration, database, repositories
 * and services, created once per process (and kept across hot reloads).
 */
import { join } from 'node:path';
import { openDb, type DbHandle } from './db/client';
import { keyProbe, verifySecretKey } from './db/secret-key';
import { env, type Env } from './env';
import { drizzleRepos } from './repo/drizzle';
import type { Repos } from './repo/types';
import { loggable } from './db/log-safe';
import { deployDemo, seedDemo } from './seed/demo';
import { createServices, type Services } from './services';

export interface Runtime {
  env: Env;
  db: DbHandle;
  repos: Repos;
  services: Services;
}

const globalForRuntime = globalThis as unknown as { __keelsonRuntime?: Promise<Runtime> };

export function getRuntime(): Promise<Runtime> {
  globalForRuntime.__keelsonRuntime ??= boot().catch((e) => {
    globalForRuntime.__keelsonRuntime = undefined;
    throw e;
  });
  return globalForRuntime.__keelsonRuntime;
}

async function boot(): Promise<Runtime> {
  const e = env();
  const db = await openDb({ url: e.databaseUrl, pgliteDir: join(e.dataDir, 'pglite'), pgliteThread: true });
  // A key that is not the secrets' own stops the start, saying so, rather than failing each reveal (SecretKeyMismatch).
  await verifySecretKey(db.db, keyProbe(e.secretKey, e.secretKeyFile ? `the key in ${e.secretKeyFile}` : 'KEELSON_SECRET_KEY'));
  // The embedded database belongs to this process alone; a shared PostgreSQL may be written by others.
  const repos = drizzleRepos(db.db, { exclusive: db.kind === 'pglite' });
  const seeded = e.seed === 'demo' ? await seedDemo(repos, 'keelson', { allSources: true }) : [];
  const services = createServices(repos, e);
  // The newest generation always has its resolution and revision — also after
  // seeding, or when the process stopped between a write and its revision.
  // A demo just seeded gets its tenant and starts deployed (its revision
  // accepted) before the console serves anyone: a newcomer's first look is
  // the whole demo, not one filling in. Only the first start waits for it.
  const head = await repos.policy.head();
  if (seeded.length > 0) {
    await deployDemo(repos, services).catch((err) => {
      console.error(`deploying the demo failed: ${loggable(err)}`);
      services.revisions.schedule(head);
    });
  } else if (head > 0) services.revisions.schedule(head);
  return { env: e, db, repos, services };
}
