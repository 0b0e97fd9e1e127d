/**
 * The apply worker keeps its promises under contention: leases are judged
 * by the database's clock, a worker that loses its lease records nothing
 * more, backoff is capped, and the oldest job is never skipped because
 * another worker is busy claiming it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { jobs } from '../db/schema';
import { DrizzleRevisionRepository } from '../repo/revisions';
import { backends } from '../testing/backends';
import type { DbHandle } from '../db/client';
import type { Actuator, ApplyStep } from './actuator';
import { backoff, MAX_BACKOFF_MS, runOnce } from './worker';

const step = (index: number, key: string) => ({
  index,
  action: 'create' as const,
  key,
  namespace: 'main',
  deployName: `a-${key}`,
  instanceId: '1',
  owner: 's',
  component: key,
  target: { clusterNamespace: 'system', cluster: 'c', namespace: 'default' },
  code: null,
  claims: ['main/c'],
  waitsFor: [],
});

test('backoff doubles per try and is capped at 5 minutes', () => {
  assert.equal(backoff(2000, 1), 2000);
  assert.equal(backoff(2000, 3), 8000);
  assert.equal(backoff(2000, 40), MAX_BACKOFF_MS);
  assert.equal(MAX_BACKOFF_MS, 300_000);
});

for (const backend of backends()) {
  describe(`apply worker leases on ${backend.name}`, () => {
    let h: DbHandle & { url?: string };
    let revs: DrizzleRevisionRepository;
    let gen = 0;
    before(async () => {
      h = await backend.open();
      revs = new DrizzleRevisionRepository(h.db);
    });
    after(() => h.close());

    /** An accepted revision with `n` steps and its queued job. */
    async function acceptedRevision(n: number): Promise<{ revisionId: number; jobId: number }> {
      const plan = { steps: Array.from({ length: n }, (_, i) => step(i, `k${gen}-${i}`)), actions: [] };
      const head = await revs.head();
      const created = await revs.insert({ generation: ++gen, baseRevisionId: head.acceptedRevisionId, status: 'pending', author: 'a', rollbackOf: null, counts: {}, cost: {}, quota: [], plan, sections: [{ namespace: 'main', overMarks: false, counts: {} }] });
      assert.equal(created.status, 'created');
      const id = (created as { revision: { id: number } }).revision.id;
      const d = await revs.decide({ revisionId: id, namespaces: ['main'], decision: 'accept', actor: 'ops' });
      assert.equal(d.status, 'ok');
      return { revisionId: id, jobId: (d as { jobId: number }).jobId };
    }
    const drain = async () => {
      const idle: Actuator = { name: 'idle', async begin() {}, async apply() { return { status: 'done' as const }; }, async finish() { return { changed: false }; } };
      while (await runOnce({ revisions: revs, actuator: idle, workerId: 'drain', leaseMs: 60_000 })) {
        /* finish whatever is queued */
      }
      await h.db.update(jobs).set({ status: 'done' }).where(sql`status in ('queued', 'running')`);
    };

    // PGlite runs in this process and reads its clock from it; a skewed worker needs a server of its own.
    test("a worker whose clock runs hours ahead does not take over a live lease", async () => {
      if (backend.name === 'pglite') {
        // Embedded: the database's clock is this process's clock; a stale lease by that clock is still taken over.
        await drain();
        const { jobId } = await acceptedRevision(1);
        assert.equal((await revs.claim('worker-a', 60_000))?.id, jobId);
        assert.equal(await revs.claim('worker-b', 60_000), undefined);
        await h.db.update(jobs).set({ lockedAt: sql`now() - interval '2 minutes'` }).where(eq(jobs.id, jobId));
        assert.equal((await revs.claim('worker-b', 60_000))?.id, jobId);
        await drain();
        return;
      }
      await drain();
      const { jobId } = await acceptedRevision(1);
      const a = await revs.claim('worker-a', 60_000);
      assert.equal(a?.id, jobId);
      const realNow = Date.now;
      Date.now = () => realNow() + 3 * 3600_000;
      try {
        assert.equal(await revs.claim('worker-b', 60_000), undefined, 'the lease is live by the database clock');
      } finally {
        Date.now = realNow;
      }
      // Once the lease is really old (by the database), another worker may take over.
      await h.db.update(jobs).set({ lockedAt: sql`now() - interval '2 minutes'` }).where(eq(jobs.id, jobId));
      assert.equal((await revs.claim('worker-b', 60_000))?.id, jobId);
      await drain();
    });

    test('a worker that lost its lease mid-step records nothing for that step and stops', async () => {
      await drain();
      const { revisionId, jobId } = await acceptedRevision(2);
      const applied: string[] = [];
      const thief: Actuator = {
        name: 'slow',
        async begin() {},
        async apply(s: ApplyStep) {
          applied.push(s.key);
          // Meanwhile the lease expired and another worker took the job.
          await h.db.update(jobs).set({ lockedBy: 'worker-b', lockedAt: sql`now()` }).where(eq(jobs.id, jobId));
          return { status: 'done' as const };
        },
        async finish() {
          return { changed: true, commit: 'x' };
        },
      };
      assert.equal(await runOnce({ revisions: revs, actuator: thief, workerId: 'worker-a', leaseMs: 60_000 }), true);
      assert.equal(applied.length, 1, 'no further step was started');
      const steps = await revs.steps(revisionId);
      assert.deepEqual(steps.map((s) => s.status), ['pending', 'pending'], 'the outcome is left to the new holder');
      const [j] = await h.db.select().from(jobs).where(eq(jobs.id, jobId));
      assert.equal(j!.lockedBy, 'worker-b', 'the new holder keeps the job');
      await drain();
    });

    if (backend.name === 'postgres') {
      test('while another worker is claiming the oldest job, a claim waits instead of taking the next one', async () => {
        await drain();
        const first = await acceptedRevision(1);
        await acceptedRevision(1);
        // Another worker's claim transaction holds the oldest job's row.
        // The order comes from the database, not from sleeps: the other worker holds the row before this
        // claim starts, and lets go only once the claim is seen waiting for that row's lock.
        const other = postgres(h.url!, { max: 1, onnotice: () => {} });
        const watcher = postgres(h.url!, { max: 1, onnotice: () => {} });
        try {
          let held!: () => void;
          let release!: () => void;
          const holdsRow = new Promise<void>((r) => (held = r));
          const released = new Promise<void>((r) => (release = r));
          const holding = other.begin(async (tx) => {
            await tx`select id from jobs where id = ${first.jobId} for update`;
            held();
            await released;
            await tx`update jobs set status = 'running', locked_by = 'worker-x', locked_at = now() where id = ${first.jobId}`;
          });
          await holdsRow;
          let answered = false;
          const claiming = revs.claim('worker-a', 60_000).finally(() => (answered = true));
          // Until the claim's statement waits on a lock (pg_stat_activity says so), asked again each turn; a claim
          // that does not wait (one that skipped the locked row) answers first and is judged below.
          while (!answered && (await watcher`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%from jobs%'`).length === 0) {
            await new Promise((r) => setImmediate(r));
          }
          release();
          const mine = await claiming;
          await holding;
          assert.equal(mine, undefined, 'not the second job: revisions apply strictly in order');
        } finally {
          await Promise.all([other.end(), watcher.end()]);
        }
        await drain();
      });
    }
  });
}
