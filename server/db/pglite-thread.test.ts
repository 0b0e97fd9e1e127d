/**
 * The embedded database on its own thread behaves as PGlite in-process
 * does for everything drizzle and the repositories ask of it: rows, a
 * transaction committed or rolled back whole, PostgreSQL's error codes for
 * callers that read them, concurrent transactions one after another, and a
 * folder that opens again with what was written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDb } from './client';
import { drizzleRepos } from '../repo/drizzle';
import { sendNow } from '../repo/send-now';

const claim = (name: string) => ({ kind: 'claim', namespace: 'main', name, text: `kind: claim\nmetadata: {namespace: main, name: ${name}}\nuser: a\nservice: s\n`, spec: { user: 'a', service: 's' } });

describe('PGlite on its own thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-pglite-thread-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('commits, reads, refuses with PostgreSQL’s code, rolls back whole, and keeps what it wrote', async () => {
    const h = await openDb({ pgliteDir: join(dir, 'db'), pgliteThread: true });
    try {
      const repos = drizzleRepos(h.db, { exclusive: true });
      // Migrations ran on the thread; commits are transactions through it.
      const r1 = await repos.policy.commit({ baseGeneration: 0, author: 'a', message: 'one', upserts: [claim('one')], deletes: [] });
      assert.equal(r1.status, 'committed');
      const listed = await repos.policy.listObjects();
      assert.deepEqual(listed.map((o) => o.name), ['one']);
      assert.deepEqual(listed[0]!.spec, { user: 'a', service: 's' }, 'jsonb comes back as objects');

      // A unique violation keeps its SQLSTATE for the callers that tell conflicts from failures.
      await assert.rejects(h.db.execute(sql`insert into policy_generations (generation, author, message, changes) values (1, 'x', 'again', '[]'::jsonb)`), (e: unknown) => {
        const err = e as { code?: string; cause?: { code?: string } };
        assert.equal(err.code ?? err.cause?.code, '23505');
        return true;
      });

      // A transaction whose callback throws leaves nothing behind.
      await assert.rejects(
        h.db.transaction(async (tx) => {
          await tx.execute(sql`update policy_head set generation = 99 where id = 1`);
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      assert.equal(await drizzleRepos(h.db).policy.head(), 1, 'the rolled-back update is not visible');

      // Concurrent commits queue on the head row: one wins, the other learns the new head.
      const [a, b] = await Promise.all([
        repos.policy.commit({ baseGeneration: 1, author: 'a', message: 'a', upserts: [claim('a')], deletes: [] }),
        repos.policy.commit({ baseGeneration: 1, author: 'b', message: 'b', upserts: [claim('b')], deletes: [] }),
      ]);
      assert.deepEqual([a.status, b.status].sort(), ['committed', 'conflict']);
    } finally {
      await h.close();
    }
    const again = await openDb({ pgliteDir: join(dir, 'db'), pgliteThread: true });
    try {
      const repos = drizzleRepos(again.db);
      assert.equal(await repos.policy.head(), 2);
      assert.equal((await repos.policy.listObjects()).length, 2, 'one, and the winner of the race');
    } finally {
      await again.close();
    }
  });

  test('a transaction’s statements sent together run in order, and one failing rolls back all of them', async () => {
    const h = await openDb({ pgliteDir: 'memory://', pgliteThread: true });
    try {
      // Sent without waiting for begin's answer or for each other: each sees the one before it.
      const seen = await h.db.transaction(async (tx) => {
        const first = sendNow(tx.execute(sql`update policy_head set generation = 5 where id = 1`));
        const second = sendNow(tx.execute(sql`update policy_head set generation = generation * 2 where id = 1`));
        const third = sendNow(tx.execute(sql`select generation from policy_head where id = 1`));
        const [, , r] = await Promise.all([first, second, third]);
        return (r as unknown as { rows: { generation: number }[] }).rows[0]!.generation;
      });
      assert.equal(seen, 10, 'run in the order sent');
      assert.equal(await drizzleRepos(h.db).policy.head(), 10);

      // The second of three fails: the first is rolled back with it, and the third never takes effect.
      await assert.rejects(
        h.db.transaction(async (tx) => {
          await Promise.all([
            sendNow(tx.execute(sql`update policy_head set generation = 77 where id = 1`)),
            sendNow(tx.execute(sql`insert into policy_head (id, generation) values (1, 0)`)),
            sendNow(tx.execute(sql`update policy_head set generation = 88 where id = 1`)),
          ]);
        }),
        (e: Error & { cause?: { code?: string } }) => {
          assert.equal((e as { code?: string }).code ?? e.cause?.code, '23505', 'the duplicate key is what is reported');
          return true;
        },
      );
      assert.equal(await drizzleRepos(h.db).policy.head(), 10, 'nothing of the failed transaction is visible');

      // A transaction's first statement, sent while another holds the connection, waits for its own transaction to
      // open after that one commits, and reads what it committed.
      let release!: () => void;
      let holding!: () => void;
      const held = new Promise<void>((ok) => (holding = ok));
      const first = h.db.transaction(async (tx) => {
        await tx.execute(sql`update policy_head set generation = 20 where id = 1`);
        holding();
        await new Promise<void>((ok) => (release = ok));
        await tx.execute(sql`update policy_head set generation = generation + 1 where id = 1`);
      });
      await held;
      const second = h.db.transaction(async (tx) => ((await tx.execute(sql`select generation from policy_head where id = 1`)) as unknown as { rows: { generation: number }[] }).rows[0]!.generation);
      await new Promise((ok) => setTimeout(ok, 50));
      release();
      await first;
      assert.equal(await second, 21, 'the second transaction ran after the first, whole');

      // A transaction that sends nothing commits, and the database goes on.
      assert.equal(await h.db.transaction(async () => 'empty'), 'empty');
      assert.equal(await drizzleRepos(h.db).policy.head(), 21);
    } finally {
      await h.close();
    }
  });

  test('statements after close fail clearly instead of hanging', async () => {
    const h = await openDb({ pgliteDir: 'memory://', pgliteThread: true });
    await h.close();
    await assert.rejects(drizzleRepos(h.db).policy.head(), (e: Error & { cause?: Error }) => {
      assert.match(e.cause?.message ?? e.message, /is closed/);
      return true;
    });
  });
});
