import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { openDb, writeMigratedPgliteCopy } from './client';
import * as schema from './schema';

test('throw-away databases: each is migrated, holds its singleton rows, and shares nothing with another', async () => {
  const first = await openDb({ pgliteDir: 'memory://' });
  const second = await openDb({ pgliteDir: 'memory://' });
  try {
    await first.db.update(schema.policyHead).set({ generation: 41 });
    const third = await openDb({ pgliteDir: 'memory://' });
    try {
      for (const h of [second, third]) {
        assert.deepEqual(
          (await h.db.select({ generation: schema.policyHead.generation }).from(schema.policyHead)).map((r) => r.generation),
          [0],
        );
        assert.equal((await h.db.select().from(schema.deploymentHead)).length, 1);
      }
      assert.deepEqual((await first.db.select({ generation: schema.policyHead.generation }).from(schema.policyHead))[0], { generation: 41 });
      // The migrations are recorded as applied, so the next open of the same database runs none of them again.
      const applied = await third.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
      assert.ok(((applied as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0) > 0);
    } finally {
      await third.close();
    }
  } finally {
    await first.close();
    await second.close();
  }
});

test('the migrated copy npm test writes once is where another process\'s throw-away databases start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-copy-'));
  try {
    const file = join(dir, 'copy.tar');
    await writeMigratedPgliteCopy(file);
    // Marked, so the child's database shows it came from this file and was not migrated anew.
    const marked = await PGlite.create('memory://', { loadDataDir: new Blob([readFileSync(file)]) });
    await marked.query('update policy_head set generation = 7');
    writeFileSync(file, Buffer.from(await (await marked.dumpDataDir('none')).arrayBuffer()));
    await marked.close();
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    // A process of its own, as each test file is: it reads the copy instead of migrating.
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', `
        import { openDb } from ${JSON.stringify(join(import.meta.dirname, 'client.ts'))};
        const h = await openDb({ pgliteDir: 'memory://' });
        const r = await h.db.execute('select generation from policy_head');
        console.log(JSON.stringify(r.rows));
        await h.close();
      `],
      { encoding: 'utf8', env: { ...env, KEELSON_PGLITE_COPY: file} },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout.trim().split('\n').at(-1)!), [{ generation: 7 }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
