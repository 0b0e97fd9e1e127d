/**
 * Storage contract tests, run on PGlite and on a real PostgreSQL server,
 * plus the in-memory repository (it must keep the same contract).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backends } from '../testing/backends';
import type { DbHandle } from '../db/client';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { defaultMigrationsFolder, openDb } from '../db/client';
import { DrizzlePolicyRepo, drizzleRepos } from './drizzle';
import { DrizzleResolutionRepo } from './resolutions';
import { DrizzleRevisionRepository } from './revisions';
import { MemoryPolicyRepo, memoryRepos } from './memory';
import type { PolicyRepo, Repos } from './types';
import { shareReads, withinRequest } from './fresh-reads';
import { reorderedClaim } from '../testing/policies';

const bundle = (name: string, comment = '') => ({
  kind: 'bundle',
  namespace: 'main',
  name,
  text: `${comment}kind: bundle\nmetadata:\n  namespace: main\n  name: ${name}\n`,
  spec: { kind: 'bundle', metadata: { namespace: 'main', name } },
});

function contract(name: string, make: () => Promise<{ repo: PolicyRepo; close?: () => Promise<void> }>) {
  describe(`PolicyRepo on ${name}`, () => {
    let repo: PolicyRepo;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ repo, close } = await make());
    });
    after(async () => close?.());

    test('starts empty at generation 0', async () => {
      assert.equal(await repo.head(), 0);
      assert.deepEqual(await repo.listObjects(), []);
    });

    test('a write creates one generation with author, message and changes; YAML is kept verbatim', async () => {
      const r = await repo.commit({ baseGeneration: 0, author: 'alice', message: 'first', upserts: [bundle('a', '# keep me\n'), bundle('b')], deletes: [] });
      assert.equal(r.status, 'committed');
      if (r.status !== 'committed') return;
      assert.equal(r.generation.generation, 1);
      assert.equal(r.generation.author, 'alice');
      assert.deepEqual(r.generation.changes.map((c) => `${c.op} ${c.name}`), ['create a', 'create b']);
      const a = await repo.getObject({ kind: 'bundle', namespace: 'main', name: 'a' });
      assert.ok(a?.text.startsWith('# keep me\n'), 'comments survive storage');
      assert.deepEqual(a?.spec, bundle('a').spec);
      assert.equal(await repo.head(), 1);
    });

    test('a stale write is refused and writes nothing', async () => {
      const r = await repo.commit({ baseGeneration: 0, author: 'bob', message: 'stale', upserts: [bundle('c')], deletes: [] });
      assert.deepEqual(r, { status: 'conflict', head: 1 });
      assert.equal(await repo.head(), 1);
      assert.equal(await repo.getObject({ kind: 'bundle', namespace: 'main', name: 'c' }), undefined);
    });

    test('a write that changes nothing creates no generation', async () => {
      const r = await repo.commit({ baseGeneration: 1, author: 'alice', message: 'same', upserts: [bundle('a', '# keep me\n')], deletes: [] });
      assert.deepEqual(r, { status: 'unchanged', generation: 1 });
      assert.equal((await repo.listGenerations()).length, 1);
    });

    test('update and delete in one generation; every past generation reads back whole', async () => {
      const r = await repo.commit({
        baseGeneration: 1,
        author: 'carol',
        message: 'edit',
        upserts: [bundle('a', '# edited\n')],
        deletes: [{ kind: 'bundle', namespace: 'main', name: 'b' }],
      });
      assert.equal(r.status, 'committed');
      if (r.status === 'committed') assert.deepEqual(r.generation.changes.map((c) => `${c.op} ${c.name}`), ['update a', 'delete b']);
      const now = await repo.listObjects();
      assert.deepEqual(now.map((o) => o.name), ['a']);
      assert.ok(now[0]!.text.startsWith('# edited'));
      const then = await repo.listObjects({ generation: 1 });
      assert.deepEqual(then.map((o) => o.name), ['a', 'b']);
      assert.ok(then[0]!.text.startsWith('# keep me'));
      assert.deepEqual(await repo.listObjects({ generation: 0 }), []);
      const old = await repo.getObject({ kind: 'bundle', namespace: 'main', name: 'b' }, 1);
      assert.equal(old?.generation, 1);
      const gens = await repo.listGenerations();
      assert.deepEqual(gens.map((g) => g.generation), [2, 1]);
      assert.equal((await repo.getGeneration(2))?.message, 'edit');
      // Generations that changed one object (a service's history), found by the store.
      assert.deepEqual((await repo.listGenerations({ touching: { kind: 'bundle', name: 'b' } })).map((g) => g.generation), [2, 1]);
      assert.deepEqual((await repo.listGenerations({ touching: { kind: 'bundle', name: 'a' } })).map((g) => g.generation), [2, 1]);
      assert.deepEqual(await repo.listGenerations({ touching: { kind: 'claim', name: 'b' } }), []);
      assert.deepEqual((await repo.listGenerations({ touching: { kind: 'bundle', name: 'b' }, limit: 1 })).map((g) => g.generation), [2], 'the newest first, as many as asked');
      assert.deepEqual((await repo.listGenerations({ touching: { kind: 'bundle', name: 'b' }, before: 2 })).map((g) => g.generation), [1]);
      // Objects of some names only.
      assert.deepEqual((await repo.listObjects({ generation: 1, kind: 'bundle', names: ['b', 'zz'] })).map((o) => o.name), ['b']);
      assert.deepEqual(await repo.listObjects({ generation: 1, names: [] }), []);
    });

    test('deleting an object that does not exist is refused', async () => {
      const r = await repo.commit({ baseGeneration: 2, author: 'x', message: '', upserts: [], deletes: [{ kind: 'bundle', namespace: 'main', name: 'nope' }] });
      assert.equal(r.status, 'missing');
      assert.equal(await repo.head(), 2);
    });

    test('of concurrent writes on the same base exactly one wins', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          repo.commit({ baseGeneration: 2, author: `u${i}`, message: 'race', upserts: [bundle(`race${i}`)], deletes: [] }),
        ),
      );
      assert.equal(results.filter((r) => r.status === 'committed').length, 1);
      assert.equal(results.filter((r) => r.status === 'conflict').length, 5);
      assert.equal(await repo.head(), 3);
      assert.equal((await repo.listObjects()).filter((o) => o.name.startsWith('race')).length, 1);
    });

    test('one write of 2,000 objects, then an update of all of them, commits (a large import does not abort the database)', async () => {
      const names = Array.from({ length: 2000 }, (_, i) => `bulk-${i}`);
      const base = await repo.head();
      const created = await repo.commit({ baseGeneration: base, author: 'alice', message: 'import', upserts: names.map((n) => bundle(n)), deletes: [] });
      assert.equal(created.status, 'committed');
      const updated = await repo.commit({ baseGeneration: base + 1, author: 'alice', message: 'touch', upserts: names.map((n) => bundle(n, '# v2\n')), deletes: [] });
      assert.equal(updated.status, 'committed');
      if (updated.status !== 'committed') return;
      assert.equal(updated.generation.changes.filter((c) => c.op === 'update').length, 2000);
      const deleted = await repo.commit({ baseGeneration: base + 2, author: 'alice', message: 'clean up', upserts: [], deletes: names.map((n) => ({ kind: 'bundle', namespace: 'main', name: n })) });
      assert.equal(deleted.status, 'committed');
      assert.equal((await repo.listObjects()).filter((o) => o.name.startsWith('bulk-')).length, 0);
    });
  });
}

for (const b of backends()) {
  contract(b.name, async () => {
    const h: DbHandle = await b.open();
    return { repo: new DrizzlePolicyRepo(h.db), close: () => h.close() };
  });
}
contract('memory', async () => ({ repo: new MemoryPolicyRepo() }));

for (const b of backends()) {
  describe(`Resolutions and revision plans on ${b.name}`, () => {
    let h: DbHandle;
    let repo: DrizzleResolutionRepo;
    before(async () => {
      h = await b.open();
      repo = new DrizzleResolutionRepo(h.db);
    });
    after(async () => h.close());
    const summary = { durationMs: 5, claimsTotal: 1, claimsResolved: 1, claimsRejected: 0, claimsError: 0, instances: 1 };
    const state = { claims: [{ key: 'main/c', status: 'resolved', note: 'ünïcode ✓' }], instances: [{ key: 'k', provenance: { via: 'x' }, labels: { a: 'b' } }] };

    test('a state reads back exactly as stored, and is stored compressed (not as jsonb)', async () => {
      await repo.put({ generation: 7, ...summary, state });
      const back = await repo.get(7);
      assert.deepEqual(back?.state, state);
      assert.equal(back?.claimsTotal, 1);
      const raw = await h.db.execute(sql`select state is null as no_json, length(state_gz) as gz from resolutions where generation = 7`);
      const row = (Array.isArray(raw) ? raw[0] : (raw as { rows: Record<string, unknown>[] }).rows[0]) as { no_json: boolean; gz: number };
      assert.equal(row.no_json, true);
      assert.ok(Number(row.gz) > 0);
    });

    test('a row written before compression (jsonb state) still reads; one of an outdated shape reads as missing', async () => {
      await h.db.execute(sql`insert into resolutions (generation, duration_ms, claims_total, claims_resolved, claims_rejected, claims_error, instances, state)
        values (8, 1, 1, 1, 0, 0, 1, ${JSON.stringify(state)}::jsonb), (9, 1, 1, 1, 0, 0, 1, ${JSON.stringify({ claims: [], instances: [{ key: 'old' }] })}::jsonb)`);
      assert.deepEqual((await repo.get(8))?.state, state);
      assert.equal(await repo.get(9), undefined, 'recomputed rather than read in an older shape');
      assert.equal(await repo.get(10), undefined);
    });

    test("a revision's plan round-trips compressed; a plan stored as plain JSON before still reads", async () => {
      const revisions = new DrizzleRevisionRepository(h.db);
      const plan = { noop: false, steps: [{ key: 'a', note: 'ünïcode ✓' }], counts: { create: 1 } };
      await h.db.execute(sql`insert into revisions (generation, status, author, counts, cost, quota, plan)
        values (100, 'pending', 'alice', '{}'::jsonb, '{}'::jsonb, '[]'::jsonb, ${JSON.stringify(plan)})`);
      assert.deepEqual((await revisions.byGeneration(100))?.plan, plan);
      const created = await revisions.insert({ generation: 101, baseRevisionId: null, status: 'pending', author: 'alice', rollbackOf: null, counts: {}, cost: {}, quota: [], plan, sections: [] } as never);
      assert.equal(created.status, 'created');
      assert.deepEqual((await revisions.byGeneration(101))?.plan, plan);
      const raw = await h.db.execute(sql`select plan from revisions where generation = 101`);
      const stored = String(((Array.isArray(raw) ? raw[0] : (raw as { rows: Record<string, unknown>[] }).rows[0]) as { plan: string }).plan);
      assert.match(stored, /^H4sI/, 'gzip in base64, not JSON the database parses');
    });
  });
}

/** A service's history reads its revisions beside its generations: both must find the same generations, by the object's key. */
function statusesTouchingContract(name: string, make: () => Promise<{ repos: Repos; close?: () => Promise<void> }>) {
  test(`the revisions of the generations that changed an object, found by its key, newest first as far as the limit (${name})`, async () => {
    const { repos, close } = await make();
    try {
      const commit = async (base: number, names: string[]) => {
        const r = await repos.policy.commit({ baseGeneration: base, author: 'alice', message: 'm', upserts: names.map((n) => bundle(n, `# ${base}\n`)), deletes: [] });
        assert.equal(r.status, 'committed');
      };
      await commit(0, ['x', 'y']); // 1: x and y
      await commit(1, ['y']); // 2: y only
      await commit(2, ['x']); // 3: x
      await commit(3, ['x']); // 4: x, no revision yet
      const ids: Record<number, number> = {};
      for (const generation of [1, 2, 3]) {
        const r = await repos.revisions.insert({ generation, baseRevisionId: null, status: 'pending', author: 'alice', rollbackOf: null, counts: {}, cost: {}, quota: [], plan: { steps: [] }, sections: [] } as never);
        assert.equal(r.status, 'created');
        if (r.status === 'created') ids[generation] = r.revision.id;
      }
      const read = async (n: string, limit: number) => [...(await repos.revisions.statusesTouching({ kind: 'bundle', name: n }, limit))].sort((a, b) => a[0] - b[0]).map(([g, r]) => [g, r.id]);
      // Superseded by the newer ones (each insert supersedes the pending revisions before it): the ids are what counts here.
      assert.deepEqual(await read('x', 10), [[1, ids[1]], [3, ids[3]]], 'generation 2 did not change x; 4 has no revision');
      assert.deepEqual(await read('y', 10), [[1, ids[1]], [2, ids[2]]]);
      assert.deepEqual(await read('x', 2), [[3, ids[3]]], 'the limit counts generations (4 and 3), as the history lists them');
      assert.deepEqual(await read('z', 10), []);
      assert.deepEqual(
        (await repos.policy.listGenerations({ touching: { kind: 'bundle', name: 'x' }, limit: 2 })).map((g) => g.generation),
        [4, 3],
        'the same generations as the policy store lists',
      );
    } finally {
      await close?.();
    }
  });
}

describe('revision statuses by the key of the object changed', () => {
  for (const b of backends()) {
    statusesTouchingContract(b.name, async () => {
      const h = await b.open();
      return { repos: drizzleRepos(h.db), close: () => h.close() };
    });
  }
  statusesTouchingContract('memory', async () => ({ repos: memoryRepos() }));
});

describe('migration 0016 (policy_changes) on PGlite', () => {
  test('generations written before it are found by a history afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-mig-'));
    try {
      // The migrations up to 0015, as a database made before policy_changes existed.
      const older = join(dir, 'migrations');
      cpSync(defaultMigrationsFolder(), older, { recursive: true });
      const journal = JSON.parse(readFileSync(join(older, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
      journal.entries = journal.entries.filter((e) => e.tag < '0016');
      writeFileSync(join(older, 'meta/_journal.json'), JSON.stringify(journal));
      const before = await openDb({ pgliteDir: join(dir, 'db'), migrationsFolder: older });
      // This version's repository writes policy_changes, which that schema lacks: the generations go in as that version wrote them.
      await before.db.execute(sql`insert into policy_generations (generation, author, message, changes) values
        (1, 'alice', 'first', ${JSON.stringify([{ op: 'create', kind: 'bundle', namespace: 'main', name: 'a' }, { op: 'create', kind: 'bundle', namespace: 'main', name: 'b' }])}::jsonb),
        (2, 'bob', 'second', ${JSON.stringify([{ op: 'delete', kind: 'bundle', namespace: 'main', name: 'b' }])}::jsonb)`);
      await before.close();
      const after = await openDb({ pgliteDir: join(dir, 'db') });
      try {
        const repo = new DrizzlePolicyRepo(after.db);
        assert.deepEqual((await repo.listGenerations({ touching: { kind: 'bundle', name: 'b' } })).map((g) => g.generation), [2, 1]);
        assert.deepEqual((await repo.listGenerations({ touching: { kind: 'bundle', name: 'a' } })).map((g) => g.generation), [1]);
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * On a shared database every process keeps the policy of the newest
 * generation it read whole and carries it forward by what later generations
 * changed, whoever wrote them. What it answers must be what a fresh read of
 * the database answers: contents, order, deletes, and older generations.
 */
describe("a shared database's policy snapshot, carried forward by other processes' commits", () => {
  const claim = reorderedClaim;
  const id = (name: string) => ({ kind: 'claim', namespace: 'snap', name });

  for (const b of backends()) {
    test(`reads as the database does after another process's creates, updates and deletes (${b.name})`, async () => {
      const h = await b.open();
      try {
        const reader = new DrizzlePolicyRepo(h.db);
        const writer = new DrizzlePolicyRepo(h.db);
        const fresh = () => new DrizzlePolicyRepo(h.db);
        const commit = async (upserts: { kind: string; namespace: string; name: string; text: string; spec: unknown }[], deletes: string[] = []) => {
          const r = await writer.commit({ baseGeneration: await writer.head(), author: 'w', message: '', upserts, deletes: deletes.map(id) });
          assert.equal(r.status, 'committed');
        };
        await commit([claim('b'), claim('A'), claim('gone')]);
        await commit([bundle('x')]);
        assert.deepEqual((await reader.listObjects()).map((o) => o.name), ['x', 'A', 'b', 'gone'], 'read whole: kept');
        const kept = await reader.head();
        // Names whose C-collation order differs from a locale's: A < B < _z < a < a-b < a_b < ab < z < é.
        await commit([claim('_z'), claim('a-b'), claim('é'), claim('brief')]);
        await commit([claim('a_b'), claim('ab'), claim('z'), claim('B'), claim('b', 'bob')], ['gone']);
        await commit([claim('a'), claim('b', 'cyd')], ['brief']); // created and deleted between two reads
        const now = await reader.head();
        assert.equal(now, kept + 3);
        assert.equal(JSON.stringify(await reader.listObjects()), JSON.stringify(await fresh().listObjects()), 'the whole policy');
        assert.equal(JSON.stringify(await reader.listObjects({ kind: 'claim', namespace: 'snap' })), JSON.stringify(await fresh().listObjects({ kind: 'claim', namespace: 'snap' })));
        assert.equal(((await reader.getObject(id('b')))?.spec as { user: string }).user, 'cyd', 'updated twice: the newest');
        assert.equal(await reader.getObject(id('gone')), undefined, 'deleted');
        assert.equal(await reader.getObject(id('brief')), undefined, 'created and deleted since');
        assert.deepEqual(await reader.getObject(id('é')), await fresh().getObject(id('é')));
        // An older generation reads as it was, and does not displace the newest.
        assert.equal(JSON.stringify(await reader.listObjects({ generation: kept + 1 })), JSON.stringify(await fresh().listObjects({ generation: kept + 1 })));
        assert.equal(((await reader.getObject(id('b'), kept))?.spec as { user: string }).user, 'ann');
        assert.equal(((await reader.getObject(id('b')))?.spec as { user: string }).user, 'cyd');
        // What one caller does to its copy does not reach the next.
        const [first] = await reader.listObjects({ kind: 'claim' });
        first!.name = 'renamed';
        assert.throws(() => ((first!.spec as { user: string }).user = 'mallory'), TypeError);
        assert.equal(JSON.stringify(await reader.listObjects()), JSON.stringify(await fresh().listObjects()));
        // This process's own commit carries it too, and a generation not yet written is not taken for one.
        const r = await reader.commit({ baseGeneration: now, author: 'r', message: '', upserts: [claim('own')], deletes: ['a', 'z'].map(id) });
        assert.equal(r.status, 'committed');
        assert.equal(JSON.stringify(await reader.listObjects()), JSON.stringify(await fresh().listObjects()), 'after its own commit');
        assert.deepEqual(await reader.listObjects({ generation: now + 2 }), await fresh().listObjects({ generation: now + 2 }));
        await commit([claim('later')]);
        assert.ok((await reader.listObjects({ generation: now + 2 })).some((o) => o.name === 'later'), 'once written, it reads as written');
      } finally {
        await h.close();
      }
    });
  }

  test('requests that need the same newer generation wait for one read of what changed (PGlite)', async () => {
    const h = await openDb({ pgliteDir: 'memory://' });
    try {
      const reader = new DrizzlePolicyRepo(h.db);
      const writer = new DrizzlePolicyRepo(h.db);
      for (let i = 0; i < 3; i++) {
        const r = await writer.commit({ baseGeneration: i, author: 'w', message: '', upserts: [claim(`c${i}`)], deletes: [] });
        assert.equal(r.status, 'committed');
      }
      await reader.listObjects();
      const r = await writer.commit({ baseGeneration: 3, author: 'w', message: '', upserts: [claim('c1', 'bob'), claim('c9')], deletes: [id('c0')] });
      assert.equal(r.status, 'committed');
      const client = (h.db as unknown as { $client: { query: (...a: unknown[]) => unknown } }).$client;
      const query = client.query.bind(client);
      let statements = 0;
      client.query = (...a: unknown[]) => (statements++, query(...a));
      try {
        shareReads();
        const answers = await withinRequest(() =>
          Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? reader.listObjects({ kind: 'claim' }) : reader.getObject(id('c1')).then((o) => (o ? [o] : []))))),
        );
        assert.deepEqual(answers[0]!.map((o) => (o.spec as { user: string }).user), ['bob']);
        assert.deepEqual(answers[1]!.map((o) => o.name), ['c1', 'c2', 'c9']);
        assert.equal(statements, 2, 'the head once, and what changed since once, for all twenty');
      } finally {
        client.query = query;
      }
    } finally {
      await h.close();
    }
  });
});

describe('the policy in one order whatever the collation (PostgreSQL)', () => {
  const pgUrl = process.env.KEELSON_TEST_PG_URL;
  test('on a database made with a locale, fresh reads and a carried snapshot list bytewise, whole or by kind', { skip: pgUrl ? false : 'needs the PostgreSQL server npm test starts (KEELSON_TEST_PG_URL)' }, async (t) => {
    const name = `keelson_icu_${process.pid}_${Date.now()}`;
    const admin = postgres(pgUrl!, { max: 1, onnotice: () => {} });
    let h: DbHandle | undefined;
    try {
      // ICU collations for a database came with PostgreSQL 15; an older server (the newest a distribution packages) has none to try.
      const [{ version }] = (await admin`select current_setting('server_version_num')::int as version`) as unknown as [{ version: number }];
      if (version < 150000) return t.skip(`PostgreSQL ${version} makes no ICU databases`);
      // ICU's en-US orders letters before punctuation and case second: the order a server made with a locale gives.
      await admin.unsafe(`create database ${name} template template0 encoding 'UTF8' locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`);
      const url = new URL(pgUrl!);
      url.pathname = `/${name}`;
      h = await openDb({ url: url.toString(), max: 4 });
      const writer = new DrizzlePolicyRepo(h.db);
      const carried = new DrizzlePolicyRepo(h.db);
      const names = ['b', 'A', '_z', 'a-b', 'B', 'a'];
      const r1 = await writer.commit({ baseGeneration: 0, author: 'w', message: '', upserts: names.slice(0, 3).map((n) => bundle(n)), deletes: [] });
      assert.equal(r1.status, 'committed');
      await carried.listObjects();
      const r2 = await writer.commit({ baseGeneration: 1, author: 'w', message: '', upserts: names.slice(3).map((n) => bundle(n)), deletes: [] });
      assert.equal(r2.status, 'committed');
      const bytewise = ['A', 'B', '_z', 'a', 'a-b', 'b'];
      const localeOrder = (await h.db.execute(sql`select name from policy_objects order by name`)) as unknown as { name: string }[];
      assert.notDeepEqual(localeOrder.map((r) => r.name), bytewise, 'the database itself orders otherwise');
      const namesOf = (objects: { name: string }[]) => objects.map((o) => o.name);
      assert.deepEqual(namesOf(await new DrizzlePolicyRepo(h.db).listObjects()), bytewise, 'read whole');
      assert.deepEqual(namesOf(await new DrizzlePolicyRepo(h.db).listObjects({ kind: 'bundle', namespace: 'main' })), bytewise, 'read by kind');
      assert.deepEqual(namesOf(await new DrizzlePolicyRepo(h.db).listObjects({ generation: 1 })), ['A', '_z', 'b'], 'an older generation');
      assert.deepEqual(namesOf(await carried.listObjects()), bytewise, 'carried forward');
      assert.deepEqual(namesOf(await carried.listObjects({ kind: 'bundle' })), bytewise, 'carried forward, by kind');
    } finally {
      await h?.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});

test('a shared snapshot grown past its bound is dropped: reads answer from the database, and stop reading what changed (PGlite)', async () => {
  const h = await openDb({ pgliteDir: 'memory://' });
  try {
    const reader = new DrizzlePolicyRepo(h.db, { snapshotLimit: 4 });
    const writer = new DrizzlePolicyRepo(h.db);
    assert.equal((await writer.commit({ baseGeneration: 0, author: 'w', message: '', upserts: ['a', 'b', 'c'].map((n) => reorderedClaim(n)), deletes: [] })).status, 'committed');
    assert.equal((await reader.listObjects()).length, 3, 'kept');
    assert.equal((await writer.commit({ baseGeneration: 1, author: 'w', message: '', upserts: ['d', 'e'].map((n) => reorderedClaim(n)), deletes: [] })).status, 'committed');
    const client = (h.db as unknown as { $client: { query: (...a: unknown[]) => unknown } }).$client;
    const query = client.query.bind(client);
    const sent: string[] = [];
    client.query = (...a: unknown[]) => (sent.push(String(a[0])), query(...a));
    try {
      assert.deepEqual((await reader.listObjects()).map((o) => o.name), ['a', 'b', 'c', 'd', 'e'], 'five: over the bound, still whole');
      const carries = () => sent.filter((q) => q.includes('jsonb_to_recordset(g.changes)')).length;
      assert.equal(carries(), 1, 'it tried to carry the snapshot forward, once');
      sent.length = 0;
      assert.deepEqual((await reader.listObjects()).map((o) => o.name), ['a', 'b', 'c', 'd', 'e']);
      assert.equal(carries(), 0, 'nothing kept to carry forward');
      assert.equal(((await reader.getObject({ kind: 'claim', namespace: 'snap', name: 'e' }))?.spec as { user: string }).user, 'ann');
    } finally {
      client.query = query;
    }
  } finally {
    await h.close();
  }
});

describe('a commit on a base behind a head already read (PostgreSQL)', () => {
  for (const b of backends().filter((x) => x.name === 'postgres')) {
    test('is refused at once while another writer holds the head; on the head it read, it queues for the lock and commits', async () => {
      const h = await b.open();
      try {
        const editor = new DrizzlePolicyRepo(h.db);
        const other = new DrizzlePolicyRepo(h.db);
        for (const [base, name] of [[0, 'a'], [1, 'b']] as const) assert.equal((await other.commit({ baseGeneration: base, author: 'o', message: '', upserts: [bundle(name)], deletes: [] })).status, 'committed');
        assert.equal(await editor.head(), 2);
        // A third writer holds the head row (a long transaction).
        let release!: () => void;
        const released = new Promise<void>((r) => (release = r));
        let holding!: () => void;
        const held = new Promise<void>((r) => (holding = r));
        const holder = h.db.transaction(async (tx) => {
          await tx.execute(sql`select generation from policy_head where id = 1 for update`);
          holding();
          await released;
        });
        await held;
        const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))]);
        // The page was loaded at generation 1: the head read since (2) says it conflicts, whoever holds the lock. (The
        // lock is held until release() below: a commit that waited for it would still be waiting after any time.)
        assert.deepEqual(await within(editor.commit({ baseGeneration: 1, author: 'e', message: '', upserts: [bundle('c')], deletes: [] }), 60_000), { status: 'conflict', head: 2 });
        const onHead = editor.commit({ baseGeneration: 2, author: 'e', message: '', upserts: [bundle('c')], deletes: [] });
        assert.equal(await within(onHead, 300), 'still waiting', 'on the head it read, it waits for the lock as before');
        release();
        await holder;
        assert.equal((await onHead).status, 'committed');
        assert.deepEqual((await editor.listObjects()).map((o) => o.name).sort(), ['a', 'b', 'c']);
      } finally {
        await h.close();
      }
    });
  }
});
