/**
 * `npm run worker`: the apply loop as its own process, beside one or more
 * console instances on the same PostgreSQL server (DATABASE_URL). With the
 * embedded PGlite, the console runs the loop itself (one process per data
 * folder).
 */
import { join } from 'node:path';
import { openDb, type DbHandle } from '../db/client';
import { dbUnavailableReason, isDbUnavailable } from '../db/unavailable';
import { env } from '../env';
import { drizzleRepos } from '../repo/drizzle';
import { reconcileSource } from './reconcile-source';
import { GitOpsActuator } from './gitops/actuator';
import { MAX_LOOP_BACKOFF_MS, workLoop } from './worker';

async function main() {
  const e = env();
  if (!e.databaseUrl && process.env.KEELSON_WORKER_ALLOW_PGLITE !== '1') {
    console.error('npm run worker needs DATABASE_URL: with the embedded PGlite the console runs the worker itself.');
    process.exit(2);
  }
  const db = await openWhenReachable(() => openDb({ url: e.databaseUrl, pgliteDir: join(e.dataDir, 'pglite') }));
  const controller = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => controller.abort());
  // Test hook (resume tests): exit abruptly after this many steps, as a crash would.
  const crashAfter = Number(process.env.KEELSON_TEST_CRASH_AFTER_STEPS ?? '0');
  let steps = 0;
  console.log(`keelson worker: applying to ${e.gitopsRemote ? `${e.gitopsRemote.replace(/\/\/[^@/]*@/, '//')} (scratch clone ${e.gitopsDir})` : e.gitopsDir}`);
  const repos = drizzleRepos(db.db);
  const actuator = new GitOpsActuator(e.gitopsDir, e.gitopsRemote ? { remote: e.gitopsRemote } : {});
  // Test hook (fault tests): exit abruptly right after a revision's commit is pushed, before it is recorded as applied.
  if (process.env.KEELSON_TEST_CRASH_AFTER_PUSH === '1') {
    const finish = actuator.finish.bind(actuator);
    actuator.finish = async (...args) => {
      const r = await finish(...args);
      if (r.changed) process.exit(137);
      return r;
    };
  }
  await workLoop({
    revisions: repos.revisions,
    actuator,
    leaseMs: Number(process.env.KEELSON_WORKER_LEASE_MS ?? 60_000),
    pollMs: 500,
    reconcile: { source: reconcileSource(repos) },
    signal: controller.signal,
    log: (m) => console.log(`keelson worker: ${m}`),
    afterStep: crashAfter > 0 ? () => {
      if (++steps >= crashAfter) process.exit(137);
    } : undefined,
  });
  await db.close();
}

/** Started while PostgreSQL is down or starting: wait for it with backoff, as the loop does once running, instead of exiting. */
async function openWhenReachable(open: () => Promise<DbHandle>): Promise<DbHandle> {
  for (let wait = 500; ; wait = Math.min(2 * wait, MAX_LOOP_BACKOFF_MS)) {
    try {
      return await open();
    } catch (err) {
      if (!isDbUnavailable(err)) throw err;
      console.log(`keelson worker: database unreachable (${dbUnavailableReason(err)}); retrying in ${wait / 1000} s`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

void main();
