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

  test('statements after close fail clearly instead of hanging', async () => {
    const h = await openDb({ pgliteDir: 'memory://', pgliteThread: true });
    await h.close();
    await assert.rejects(drizzleRepos(h.db).policy.head(), (e: Error & { cause?: Error }) => {
      assert.match(e.cause?.message ?? e.message, /is closed/);
      return true;
    });
  });
});
