/**
 * What a console on a shared database keeps of who may do what (tenants,
 * members, namespaces, accounts, environments, users), and when it reads
 * again: while the access version it reads with the policy head is
 * unchanged, it asks nothing; once any process — a console, or anyone with
 * psql — changes those tables, the next request reads them again. On PGlite
 * and on the PostgreSQL server.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { backends } from '../testing/backends';
import { drizzleRepos } from './drizzle';
import { withinRequest } from './fresh-reads';

const ACCESS_TABLES = ['tenants', 'tenant_members', 'tenant_namespaces', 'tenant_invitations', 'tenant_accounts', 'tenant_environments', 'users', 'sessions'];

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];
const version = async (db: Db) => Number(rowsOf(await db.execute(sql.raw('select version from access_version where id = 1')))[0]?.version);

/** Statements sent through the database client while `work` runs (both client kinds expose `unsafe` or `query`). */
async function counted<T>(db: Db, work: () => Promise<T>): Promise<{ value: T; statements: number }> {
  const client = (db as unknown as { $client: Record<string, unknown> }).$client;
  const names = ['query', 'unsafe', 'prepare'].filter((n) => typeof client[n] === 'function');
  const originals = names.map((n) => client[n] as (...a: unknown[]) => unknown);
  let statements = 0;
  names.forEach((n, i) => (client[n] = (...a: unknown[]) => (statements++, originals[i]!.apply(client, a))));
  try {
    return { value: await work(), statements };
  } finally {
    names.forEach((n, i) => (client[n] = originals[i]));
  }
}

/** A request begun now (after everything before it finished), as a route runs one. */
async function request<T>(work: () => Promise<T>): Promise<T> {
  await new Promise((r) => setTimeout(r, 2));
  return withinRequest(work);
}

/** `work` on a fresh, migrated database of `backend`, closed afterwards. */
async function onFresh(backend: ReturnType<typeof backends>[number], work: (db: Db) => Promise<void>): Promise<void> {
  const h = await backend.open();
  try {
    await work(h.db);
  } finally {
    await h.close();
  }
}

for (const backend of backends()) {
  describe(`the access version (${backend.name})`, () => {
    test('every write to an access table moves it, in the writer’s transaction; a rolled-back one does not', () =>
      onFresh(backend, async (db) => {
      for (const t of ACCESS_TABLES) {
        const before = await version(db);
        // A statement that changes no row still counts (per statement): the cheap, safe side.
        await db.execute(sql.raw(`delete from "${t}" where false`));
        assert.ok((await version(db)) > before, `a write to ${t} moved the version`);
      }
      // A replica session (bulk loaders set one) fires them too.
      const replicaBefore = await version(db);
      await db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local session_replication_role = replica`));
        await tx.execute(sql.raw(`delete from tenant_members where false`));
      });
      assert.ok((await version(db)) > replicaBefore, 'a write in a replica session moved the version');
      const before = await version(db);
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.execute(sql.raw(`insert into tenants (name, created_by) values ('gone', 'sam')`));
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.equal(await version(db), before, 'a write that never committed moves nothing');
      }));

    test('a database made again starts from the clock: it never repeats a version a console may still hold answers for', async () => {
      const startedAt = Date.now();
      await onFresh(backend, async (db) => {
        const v = await version(db);
        // Microseconds since 1970, at migration: past any version an older database (made before it) reached by counting.
        assert.ok(v >= (startedAt - 60_000) * 1000 && v <= (Date.now() + 60_000) * 1000, `version ${v}`);
        assert.ok(Number.isSafeInteger(v));
      });
    });

    test('removing a tenant while its members change, from two consoles at once: both finish, neither deadlocks', () =>
      onFresh(backend, async (db) => {
      const one = drizzleRepos(db);
      const two = drizzleRepos(db);
      for (let round = 0; round < 5; round++) {
        const made = await one.tenants.create({ name: `t${round}`, owner: 'sam', namespaces: [`ns${round}`] });
        assert.ok(made.ok);
        const id = made.tenant.id;
        const inv = await one.tenants.invite({ tenantId: id, user: 'ann', role: 'plain', invitedBy: 'sam' });
        await one.tenants.answer(inv!.id, 'ann', true);
        // changeMember locks the member rows; remove deletes them after other rows: before the lock order was fixed,
        // PostgreSQL broke such a pair with a deadlock (40P01) now and then.
        const [changed, removed] = await Promise.allSettled([two.tenants.changeMember(id, 'ann', 'admin'), one.tenants.remove(id)]);
        assert.equal(changed.status, 'fulfilled', changed.status === 'rejected' ? String(changed.reason) : '');
        assert.equal(removed.status, 'fulfilled', removed.status === 'rejected' ? String(removed.reason) : '');
        assert.equal(await two.tenants.byName(`t${round}`), undefined);
      }
      }));

    test('two consoles: one keeps its access reads while nothing changes, and reads again after any change, by the other console or by hand', () =>
      onFresh(backend, async (db) => {
      // Two sets of repositories, as two console processes have them (neither exclusive).
      const one = drizzleRepos(db);
      const two = drizzleRepos(db);
      const made = await two.tenants.create({ name: 'acme', owner: 'sam', namespaces: ['web'] });
      assert.ok(made.ok);
      const tenantId = made.tenant.id;
      const account = await two.estate.addAccount({ tenantId, name: 'main', marks: {}, labels: {}, createdBy: 'sam' });
      const env = await two.estate.addEnvironment({ accountId: account!.id, name: 'prod', cluster: 'system/k1', k8sNamespace: null, marks: {}, labels: {}, meta: {}, createdBy: 'sam' });
      await two.users.upsertUser({ id: 'local:sam', name: 'sam', email: null, provider: 'local', labels: { team: 'web' } });

      const readAll = async () => ({
        head: await one.policy.head(),
        ann: (await one.tenants.forReader('acme', 'ann'))?.role ?? null,
        sam: await one.tenants.forReader('acme', 'sam'),
        grants: [...(await one.tenants.grants()).keys()].sort(),
        namespaces: (await one.tenants.namespaces()).map((n) => n.namespace),
        accounts: (await one.estate.accounts(tenantId)).map((a) => a.name),
        environments: (await one.estate.environments(account!.id)).map((e) => [e.name, e.cluster]),
        users: (await one.users.listUsers()).map((u) => [u.name, u.labels.team]),
      });
      const first = await request(readAll);
      assert.deepEqual({ ...first, sam: first.sam?.role }, {
        head: 0,
        ann: null,
        sam: 'owner',
        grants: ['sam'],
        namespaces: ['web'],
        accounts: ['main'],
        environments: [['prod', 'system/k1']],
        users: [['sam', 'web']],
      });
      // What was handed out is a copy: changing it changes nothing kept.
      first.sam!.namespaces.push('stolen');

      const again = await counted(db, () => request(readAll));
      assert.deepEqual(again.value.sam?.namespaces, ['web']);
      assert.equal(again.statements, 1, 'nothing changed: one statement (both heads) for every access read of the request');

      // The other console: a member added (invitation answered), an environment moved, a user's labels changed.
      const inv = await two.tenants.invite({ tenantId, user: 'ann', role: 'plain', invitedBy: 'sam' });
      assert.ok(await two.tenants.answer(inv!.id, 'ann', true));
      await two.estate.updateEnvironment(env!.id, { labels: { moved: 'yes' } });
      await db.execute(sql.raw(`update tenant_environments set cluster = 'system/k2' where id = ${env!.id}`));
      await two.users.upsertUser({ id: 'local:sam', name: 'sam', email: null, provider: 'local', labels: { team: 'api' } });
      const after = await request(readAll);
      assert.equal(after.ann, 'plain', 'a member the other console added');
      assert.deepEqual(after.grants, ['ann', 'sam']);
      assert.deepEqual(after.environments, [['prod', 'system/k2']]);
      assert.deepEqual(after.users, [['sam', 'api']]);

      // By hand (psql): a membership revoked and a namespace taken away are seen by the next request.
      await db.execute(sql.raw(`delete from tenant_members where user_name = 'ann'`));
      await db.execute(sql.raw(`delete from tenant_namespaces where namespace = 'web'`));
      const revoked = await request(readAll);
      assert.equal(revoked.ann, null, 'a revoked membership is not kept');
      assert.deepEqual(revoked.sam?.namespaces, []);
      assert.deepEqual(revoked.grants, [], 'no namespaces: no grants');
      assert.deepEqual(revoked.namespaces, []);
      }));

    test('a console reads its own access writes at once, in the request that wrote, across repositories', () =>
      onFresh(backend, async (db) => {
      const one = drizzleRepos(db);
      const made = await one.tenants.create({ name: 'acme', owner: 'sam', namespaces: ['web'] });
      assert.ok(made.ok);
      await request(async () => {
        assert.deepEqual((await one.tenants.forReader('acme', 'sam'))?.namespaces, ['web']);
        assert.deepEqual(await one.estate.accounts(made.tenant.id), []);
        await one.tenants.addNamespace(made.tenant.id, 'api');
        await one.estate.addAccount({ tenantId: made.tenant.id, name: 'main', marks: {}, labels: {}, createdBy: 'sam' });
        assert.deepEqual((await one.tenants.forReader('acme', 'sam'))?.namespaces, ['api', 'web']);
        assert.deepEqual((await one.estate.accounts(made.tenant.id)).map((a) => a.name), ['main']);
      });
      }));
  });
}
