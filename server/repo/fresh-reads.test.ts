import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDb } from '../db/client';
import { drizzleRepos } from './drizzle';
import { FreshReads, shareReads, withinRequest } from './fresh-reads';

function counter() {
  let sent = 0;
  let value = 0;
  return {
    load: async () => (sent++, value),
    set: (v: number) => (value = v),
    get sent() {
      return sent;
    },
  };
}

describe('reads shared by requests on a shared database', () => {
  // As a repository on a shared database does when it is made.
  shareReads();

  test('on the embedded database requests carry nothing, and nothing is shared', async () => {
    // A process that only opened an exclusive (embedded) database never set the flag: run in a child to see it unset.
    const { spawnSync } = await import('node:child_process');
    const script = "import { FreshReads, withinRequest } from './server/repo/fresh-reads.ts'; import { drizzleRepos } from './server/repo/drizzle.ts'; drizzleRepos({}, { exclusive: true }); const r = new FreshReads(); let n = 0; await withinRequest(async () => { await r.read('k', async () => n++); await r.read('k', async () => n++); }); console.log(n);";
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(out.stdout.trim(), '2', out.stderr);
  });

  test('outside a request every read queries', async () => {
    const reads = new FreshReads<number>();
    const db = counter();
    await reads.read('head', db.load);
    await reads.read('head', db.load);
    assert.equal(db.sent, 2);
  });

  test('a request shares an answer sent after it began, and joins one still running; a request begun later does not take it', async () => {
    const reads = new FreshReads<number>();
    const db = counter();
    await withinRequest(async () => {
      const [a, b] = await Promise.all([reads.read('head', db.load), reads.read('head', db.load)]);
      assert.deepEqual([a, b, db.sent], [0, 0, 1], 'the second read joined the first');
      db.set(1); // another process commits
      assert.equal(await reads.read('head', db.load), 0, 'the request keeps the answer it was given');
      assert.equal(db.sent, 1);
    });
    await new Promise((r) => setTimeout(r, 2));
    await withinRequest(async () => {
      assert.equal(await reads.read('head', db.load), 1, 'begun after the commit: it reads anew, and sees it');
      assert.equal(db.sent, 2);
    });
  });

  test('after this process writes, nothing read before is shared, even with a request begun earlier', async () => {
    const reads = new FreshReads<number>();
    const db = counter();
    await withinRequest(async () => {
      await reads.read('head', db.load);
      db.set(1);
      reads.forget(); // this request (or another in the process) committed
      assert.equal(await reads.read('head', db.load), 1, 'its own write is read');
    });
  });

  test('a failed read is not shared', async () => {
    const reads = new FreshReads<number>();
    let calls = 0;
    await withinRequest(async () => {
      await assert.rejects(reads.read('head', async () => (calls++, Promise.reject(new Error('connection lost')))));
      assert.equal(await reads.read('head', async () => (calls++, 7)), 7);
    });
    assert.equal(calls, 2);
  });

  test('two consoles on one database: a commit made before a request began is always read, by either', async () => {
    const handle = await openDb({ pgliteDir: 'memory://' });
    try {
      // Two repositories as two processes would have them (not exclusive: neither is the only writer).
      const one = drizzleRepos(handle.db);
      const two = drizzleRepos(handle.db);
      const write = (repos: typeof one, base: number, name: string) =>
        repos.policy.commit({ baseGeneration: base, author: 'sam', message: name, upserts: [{ kind: 'cluster', namespace: 'system', name, text: `name: ${name}\n`, spec: { name } }], deletes: [] });
      await withinRequest(async () => {
        assert.equal(await two.policy.head(), 0);
        assert.equal((await write(one, 0, 'first')).status, 'committed');
      });
      await withinRequest(async () => assert.equal(await two.policy.head(), 1, 'the other console, in a request begun after the commit'));
      await withinRequest(async () => {
        assert.equal(await one.policy.head(), 1);
        assert.equal((await write(two, 1, 'second')).status, 'committed');
        assert.equal(await two.policy.head(), 2, 'the writer, in the request that wrote');
      });
      await withinRequest(async () => {
        const t = await one.tenants.create({ name: 'acme', owner: 'sam', namespaces: ['web'] });
        assert.ok(t.ok);
        assert.equal((await two.tenants.forReader('acme', 'sam'))?.role, 'owner', 'created by the other console before this read was sent');
        assert.equal((await two.tenants.forReader('acme', 'ann'))?.role, null);
        const inv = await two.tenants.invite({ tenantId: t.tenant.id, user: 'ann', role: 'plain', invitedBy: 'sam' });
        assert.ok(await two.tenants.answer(inv!.id, 'ann', true));
        assert.equal((await two.tenants.forReader('acme', 'ann'))?.role, 'plain', 'its own change, at once, in the same request');
      });
    } finally {
      await handle.close();
    }
  });
});
