/**
 * PostgreSQL stopped under load: a console process and an apply worker
 * (`npm run worker`) on a PostgreSQL server of the test's own, a steady
 * open-loop mix of REST reads and writes, then `pg_ctl stop -m fast` for a
 * while and a restart. While it is down every failed answer is a 503
 * Unavailable with a retry-after (never a 500); once it is back, requests
 * succeed again without restarting anything; the worker logs the outage
 * and carries on; nothing answered before the outage is lost.
 *
 * `npm test`: 3 s down; `npm run test:reliability`: 10 s (KEELSON_OUTAGE_SECONDS).
 * Its own server, not the one npm test shares (KEELSON_TEST_PG_URL): the
 * suites running beside this one must not see an outage.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDb, type DbHandle } from '../db/client';
import { DB_UNAVAILABLE_MESSAGE } from '../db/unavailable';
import { drizzleRepos } from '../repo/drizzle';
import { API_PREFIX } from '../rest/dispatch';
import { seedDemo } from '../seed/demo';
import { createServices } from '../services';
import { Cluster, createAndAccept, prepareTenant, type Started } from '../testing/cluster';
import { findPgBin, startPostgresServer, type PostgresServer } from '../testing/postgres-server';

const OUTAGE_SECONDS = Number(process.env.KEELSON_OUTAGE_SECONDS ?? 3);
// Light: other suites run beside this one inside npm test; the point is answers during the outage, not throughput.
const RATE = Number(process.env.KEELSON_OUTAGE_RATE ?? 10);
const BEFORE_SECONDS = 3;
const AFTER_SECONDS = 8;
/** How soon after PostgreSQL is back requests must succeed again. */
const RECOVERY_BOUND_S = 10;

type Family = 'list' | 'get' | 'create' | 'accept';
interface Answer {
  family: Family;
  sentAt: number;
  doneAt: number;
  /** 0: no HTTP answer at all (connection refused or reset). */
  status: number;
  code?: string;
  message?: string;
  retryAfter: string | null;
}

async function call(base: string, user: string, method: string, path: string, body?: unknown): Promise<{ status: number; code?: string; message?: string; data?: any; retryAfter: string | null }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${base}${API_PREFIX}${path}`, {
    method,
    headers: { authorization: `Bearer test:${user}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as { data?: unknown; code?: string; content?: { message?: string } };
  return { status: res.status, code: json.code, message: json.content?.message, data: json.data, retryAfter: res.headers.get('retry-after') };
}

const bin = findPgBin();

describe('outage: PostgreSQL stopped under load', { skip: bin ? false : "needs Debian's postgresql binaries under /usr/lib/postgresql (npm test installs them)" }, () => {
  let pg: PostgresServer;
  let db: DbHandle;
  let consoleUrl: string;
  let worker: Started;
  let workerOut = '';
  const cluster = new Cluster();
  const dirs: string[] = [];

  before(async () => {
    pg = await startPostgresServer();
    db = await openDb({ url: pg.url, max: 4 });
    await seedDemo(drizzleRepos(db.db));
    consoleUrl = (await cluster.start('server/testing/console-process.ts', { DATABASE_URL: pg.url }, 'console')).url;
    await prepareTenant(consoleUrl, createServices(drizzleRepos(db.db), { usersFile: undefined, domainAdmins: ['Sam'] }));
    const data = mkdtempSync(join(tmpdir(), 'keelson-outage-worker-'));
    dirs.push(data);
    // A short lease: a job the outage interrupts mid-apply is not held for the default minute.
    worker = await cluster.start('server/apply/worker-main.ts', { DATABASE_URL: pg.url, KEELSON_DATA_DIR: data, KEELSON_WORKER_LEASE_MS: '3000', KEELSON_SEED: 'none' }, 'worker');
    worker.child.stdout!.on('data', (b: Buffer) => (workerOut = (workerOut + b).slice(-50_000)));
    // Warm: the first writes of a process start its resolver threads and caches; the load should meet a console in its stride.
    for (const tier of ['warm1', 'warm2']) await createAndAccept(consoleUrl, consoleUrl, tier);
  });
  after(async () => {
    cluster.killAll();
    await db?.close().catch(() => undefined);
    await pg?.destroy();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test(`stopped for ${OUTAGE_SECONDS} s under ${RATE} req/s: 503 Unavailable meanwhile, no 500, recovery by itself, nothing lost`, { timeout: 600_000 }, async () => {
    const answers: Answer[] = [];
    const created: string[] = [];
    const pending: { name: string; revision: number }[] = [];
    const accepted: number[] = [];
    const inFlight: Promise<void>[] = [];
    let n = 0;
    let outage: Promise<void> | undefined;
    let stoppedAt = Infinity;
    let restartingAt = Infinity;
    let restartedAt = Infinity;
    let createdBeforeOutage: string[] = [];
    let headBeforeOutage = 0;

    const t0 = performance.now();
    const total = Math.round(RATE * (BEFORE_SECONDS + OUTAGE_SECONDS + AFTER_SECONDS));
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
      const elapsed = (performance.now() - t0) / 1000;
      if (!outage && elapsed >= BEFORE_SECONDS) {
        // What was committed before the outage: the answered creates, and the head generation, read just before the stop.
        createdBeforeOutage = [...created];
        headBeforeOutage = await drizzleRepos(db.db).policy.head();
        // The stop and the restart run beside the load, so it keeps its schedule.
        outage = pg.stop().then(async () => {
          stoppedAt = performance.now();
          await new Promise((ok) => setTimeout(ok, OUTAGE_SECONDS * 1000));
          restartingAt = performance.now();
          await pg.start();
          restartedAt = performance.now();
        });
      }
      const r = Math.random();
      const some = created[Math.floor(Math.random() * created.length)];
      let family: Family;
      let request: Promise<Awaited<ReturnType<typeof call>>>;
      let name = '';
      let acceptOf: number | undefined;
      if (r < 0.25 || !some) {
        family = 'create';
        name = `svc-o${n++}`;
        request = call(consoleUrl, 'Alice', 'POST', `/tenant/acme/service/${name}`, { service: 'acme-web/webshop', environment: 'main/prod', labels: { tier: name.slice(4) } });
      } else if (r < 0.35 && pending.length) {
        family = 'accept';
        const p = pending.shift()!;
        acceptOf = p.revision;
        request = call(consoleUrl, 'Sam', 'PUT', `/tenant/acme/service/${p.name}/revision/${p.revision}?accept=true`);
      } else if (r < 0.6) {
        family = 'get';
        request = call(consoleUrl, 'Alice', 'GET', `/tenant/acme/service/${some}?summary=true`);
      } else {
        family = 'list';
        request = call(consoleUrl, 'Alice', 'GET', '/tenant/acme/service');
      }
      const sentAt = performance.now();
      inFlight.push(
        request.then(
          (a) => {
            answers.push({ family, sentAt, doneAt: performance.now(), status: a.status, code: a.code, message: a.message, retryAfter: a.retryAfter });
            if (name && a.status === 202) {
              created.push(name);
              if (a.data?.revision?.id) pending.push({ name, revision: a.data.revision.id as number });
            }
            if (acceptOf !== undefined && a.status === 200) accepted.push(acceptOf);
          },
          () => void answers.push({ family, sentAt, doneAt: performance.now(), status: 0, retryAfter: null }),
        ),
      );
    }
    await Promise.all(inFlight);
    await outage;
    assert.ok(Number.isFinite(restartedAt), 'PostgreSQL was restarted within the run');

    // While it was down (and until the first success after the restart), every failure is a clear 503; never a 500 or a dropped connection.
    // Served: any answer but a 5xx or none (an acceptance a newer change superseded is a 409, as under any load).
    const ok = (a: Answer) => a.status > 0 && a.status < 500;
    const failed = answers.filter((a) => !ok(a));
    const unavailable = failed.filter((a) => a.status === 503 && a.code === 'Unavailable' && a.message === DB_UNAVAILABLE_MESSAGE && a.retryAfter !== null);
    const others = failed.filter((a) => !unavailable.includes(a));
    const fiveHundreds = answers.filter((a) => a.status === 500).length;
    assert.deepEqual(others.map((a) => `${a.family} ${a.status} ${a.code ?? ''} ${a.message ?? ''}`), [], 'every failed answer is a 503 Unavailable with a retry-after');
    assert.ok(unavailable.length > 0, 'requests during the outage were answered 503 (the outage was seen)');
    // (pg_ctl start returns a moment after the server accepts connections: the window ends when it is called.)
    const duringOutage = answers.filter((a) => a.sentAt >= stoppedAt && a.doneAt <= restartingAt);
    assert.ok(duringOutage.length > 0 && duringOutage.every((a) => !ok(a)), 'nothing succeeds while PostgreSQL is down');

    // Back: from `pg_ctl start` (PostgreSQL's own start-up included) to the last failed answer, or to the first success if
    // that came later; every request sent after that succeeds, and the whole takes at most RECOVERY_BOUND_S.
    const afterRestart = answers.filter((a) => a.sentAt >= restartingAt);
    const firstOk = afterRestart.filter(ok).sort((a, b) => a.doneAt - b.doneAt)[0];
    assert.ok(firstOk, 'requests succeed again after the restart');
    const settledAt = Math.max(firstOk.doneAt, ...afterRestart.filter((a) => !ok(a)).map((a) => a.doneAt));
    const recovery = (settledAt - restartingAt) / 1000;
    assert.ok(recovery <= RECOVERY_BOUND_S, `recovered in ${recovery.toFixed(2)} s (bound ${RECOVERY_BOUND_S} s)`);
    // And it keeps serving: the load's remaining requests, then (the schedule may have ended soon after a slow recovery on a busy machine) ten more.
    for (let i = 0; i < RATE; i++) {
      const a = await call(consoleUrl, 'Alice', 'GET', '/tenant/acme/service');
      assert.equal(a.status, 200, `served after the recovery: ${a.status} ${a.message ?? ''}`);
    }
    const lateFailures = afterRestart.filter((a) => !ok(a)).length;

    // Nothing committed before the outage is lost; generations stay gapless across it.
    const repos = drizzleRepos(db.db);
    const listed = (await call(consoleUrl, 'Alice', 'GET', '/tenant/acme/service')).data as { name: string }[];
    const names = listed.map((s) => s.name);
    for (const c of created) assert.equal(names.filter((x) => x === c).length, 1, `${c} answered 202: listed once`);
    const head = await repos.policy.head();
    assert.ok(head >= headBeforeOutage, `head ${head} ≥ ${headBeforeOutage} before the outage`);
    const generations = (await repos.policy.listGenerations({ limit: 100_000 })).map((g) => g.generation).sort((a, b) => a - b);
    assert.deepEqual(generations, Array.from({ length: head }, (_, i) => i + 1), 'generations without gaps or doubles');
    for (const id of accepted) assert.ok((await repos.revisions.sections([id])).some((s) => s.status === 'accepted'), `revision ${id} answered 200 is accepted`);

    // The worker lived through it (logged, backed off) and applies again: the last acceptance ends applied.
    assert.equal(worker.child.exitCode, null, `the worker is still running:\n${workerOut.slice(-2000)}`);
    assert.match(workerOut, /database unreachable/, 'the worker logged the outage');
    const last = await createAndAccept(consoleUrl, consoleUrl, 'after');
    const end = Date.now() + 120_000;
    while ((await repos.revisions.get(last))?.status !== 'applied') {
      if (Date.now() > end) assert.fail(`revision ${last} not applied within 120 s after the outage: ${(await repos.revisions.get(last))?.status}\n${workerOut.slice(-3000)}`);
      await new Promise((ok) => setTimeout(ok, 250));
    }

    const seconds = (restartingAt - stoppedAt) / 1000;
    console.log(`figure outage.seconds ${seconds.toFixed(1)} s stopped (pg_ctl stop -m fast) under ${RATE} req/s, ${answers.length} requests`);
    console.log(`figure outage.answers_503 ${unavailable.length} (all Unavailable with retry-after)`);
    console.log(`figure outage.answers_500 ${fiveHundreds}`);
    console.log(`figure outage.recovery_s ${recovery.toFixed(2)} (first success ${((firstOk.doneAt - restartingAt) / 1000).toFixed(2)} s after pg_ctl start; ${lateFailures} answers 503 after pg_ctl start)`);
    console.log(`figure outage.lost 0 (${createdBeforeOutage.length} creates answered before the outage, ${created.length} in all; generations 1..${head} gapless)`);
    console.log(`figure outage.worker survived (logged, backed off, applied revision ${last} accepted after it)`);
  });
});
