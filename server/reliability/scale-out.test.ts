/**
 * Scale-out on real parts: two console processes and two apply workers
 * (`npm run worker`) share one PostgreSQL server and one remote GitOps
 * repository served by real git (`git http-backend` on loopback). Services
 * are created and their revisions accepted through either console at
 * random; every revision is applied exactly once, in order, and the
 * remote's history is one line with one commit per applied revision.
 *
 * `npm test` runs 12 revisions; `npm run test:reliability` runs 50
 * (KEELSON_RELIABILITY_REVISIONS).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { drizzleRepos } from '../repo/drizzle';
import { createServices } from '../services';
import { seedDemo } from '../seed/demo';
import { backends } from '../testing/backends';
import { Cluster, createAndAccept, prepareTenant } from '../testing/cluster';
import { startGitServer, type GitServer } from '../testing/git-server';

const REVISIONS = Number(process.env.KEELSON_RELIABILITY_REVISIONS ?? 12);
const postgres = backends().find((b) => b.name === 'postgres');

describe('scale-out: two consoles, two workers, one PostgreSQL, one git remote', { skip: postgres ? false : 'needs the PostgreSQL server npm test starts (KEELSON_TEST_PG_URL)' }, () => {
  let db: Awaited<ReturnType<NonNullable<typeof postgres>['open']>>;
  let remote: GitServer;
  const cluster = new Cluster();
  const dirs: string[] = [];
  const consoles: string[] = [];

  before(async () => {
    db = await postgres!.open();
    await seedDemo(drizzleRepos(db.db));
    remote = await startGitServer();
    for (let i = 0; i < 2; i++) consoles.push((await cluster.start('server/testing/console-process.ts', { DATABASE_URL: db.url! }, `console ${i + 1}`)).url);
    for (let i = 0; i < 2; i++) {
      const data = mkdtempSync(join(tmpdir(), 'keelson-worker-'));
      dirs.push(data);
      await cluster.start('server/apply/worker-main.ts', { DATABASE_URL: db.url!, KEELSON_DATA_DIR: data, KEELSON_GITOPS_REMOTE: remote.url, KEELSON_WORKER_LEASE_MS: '5000', KEELSON_SEED: 'none' }, `worker ${i + 1}`);
    }
  });
  after(async () => {
    cluster.killAll();
    await remote?.close();
    await db?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const any = () => consoles[Math.floor(Math.random() * consoles.length)]!;

  test(`${REVISIONS} revisions created and accepted through either console: each applied once, in order, as one line of history`, { timeout: 900_000 }, async () => {
    await prepareTenant(consoles[0]!, createServices(drizzleRepos(db.db), { usersFile: undefined, domainAdmins: ['Sam'] }));
    const accepted: number[] = [];
    const started = Date.now();
    for (let i = 0; i < REVISIONS; i++) accepted.push(await createAndAccept(any(), any(), `t${i}`));
    const revs = drizzleRepos(db.db).revisions;
    const deadline = Date.now() + 300_000;
    for (;;) {
      const statuses = await Promise.all(accepted.map(async (id) => (await revs.get(id))!.status));
      if (statuses.every((s) => s === 'applied')) break;
      if (Date.now() > deadline) assert.fail(`not all applied: ${statuses.join(', ')}\n${cluster.logs.slice(-20).join('')}`);
      await new Promise((ok) => setTimeout(ok, 300));
    }
    for (const id of accepted) {
      const events = (await revs.events(id)).filter((e) => e.kind === 'applied');
      assert.equal(events.length, 1, `revision ${id} was applied ${events.length} times`);
    }
    const subjects = remote.subjects();
    const commits = subjects.map((s) => Number(/^Apply revision (\d+) /.exec(s)?.[1]));
    assert.ok(commits.every(Number.isFinite), subjects.join('\n'));
    // The demo's own revision may have been accepted at seed; every revision accepted here is exactly one commit, in order.
    const ours = commits.filter((c) => accepted.includes(c));
    assert.deepEqual(ours, accepted, 'one commit per accepted revision, in revision order');
    assert.deepEqual(commits, [...commits].sort((a, b) => a - b));
    assert.equal(remote.merges(), 0, 'one line of history');
    // Figures for `npm run test:reliability -- --long` (scripts/reliability.mjs gathers `figure` lines).
    const byWorker = new Map<string, number>();
    for (const id of accepted) for (const e of await revs.events(id)) if (e.kind === 'applied') byWorker.set(e.actor ?? '?', (byWorker.get(e.actor ?? '?') ?? 0) + 1);
    console.log(`figure scale-out.processes 2 consoles + 2 workers + PostgreSQL + git http-backend`);
    console.log(`figure scale-out.revisions_accepted ${accepted.length}`);
    console.log(`figure scale-out.seconds ${((Date.now() - started) / 1000).toFixed(1)}`);
    console.log(`figure scale-out.applied_per_worker ${[...byWorker.values()].sort((a, b) => b - a).join(' / ')}`);
    console.log(`figure scale-out.remote_commits ${commits.length} (merges 0, duplicates 0)`);
    console.log(`figure scale-out.lost 0`);
  });
});
