/**
 * The embedded database's shortcuts (this process its only writer): the
 * policy head and a reader's tenant are answered from memory, and every
 * write of this process keeps them right — a commit moves the head, a
 * membership or namespace change is seen by the next read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDb, type DbHandle } from '../db/client';
import { drizzleRepos } from './drizzle';
import type { Repos } from './types';
import { reorderedClaim } from '../testing/policies';

/** Statements the database runs from now on (PGlite's query entry point, wrapped). */
function countSelects(h: DbHandle): () => number {
  const client = (h.db as unknown as { $client?: { query: (...a: unknown[]) => unknown } }).$client;
  if (!client) throw new Error('countSelects: no PGlite client on the handle');
  let n = 0;
  const query = client.query.bind(client);
  client.query = (...a: unknown[]) => {
    n++;
    return query(...a);
  };
  return () => {
    client.query = query;
    return n;
  };
}

describe('exclusive (embedded) repositories', () => {
  let h: DbHandle;
  let repos: Repos;
  before(async () => {
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db, { exclusive: true });
  });
  after(async () => h.close());

  test('the head follows this process’s commits, and conflicts tell it the newer head', async () => {
    assert.equal(await repos.policy.head(), 0);
    const claim = (name: string) => ({ kind: 'claim', namespace: 'main', name, text: `kind: claim\nmetadata: {namespace: main, name: ${name}}\nuser: a\nservice: s\n`, spec: { user: 'a', service: 's' } });
    const r1 = await repos.policy.commit({ baseGeneration: 0, author: 'a', message: '', upserts: [claim('one')], deletes: [] });
    assert.equal(r1.status, 'committed');
    assert.equal(await repos.policy.head(), 1);
    // A second repository over the same database (another writer, as a test stands in for one) moves the head…
    const other = drizzleRepos(h.db);
    await other.policy.commit({ baseGeneration: 1, author: 'b', message: '', upserts: [claim('two')], deletes: [] });
    // …which is exactly what exclusive mode must never be used for; a commit of ours learns the truth from its conflict.
    const r3 = await repos.policy.commit({ baseGeneration: 1, author: 'a', message: '', upserts: [claim('three')], deletes: [] });
    assert.deepEqual(r3, { status: 'conflict', head: 2 });
    assert.equal(await repos.policy.head(), 2);
  });

  test('an object of the newest generation is read once; an update, a delete or a create of it is seen at once', async () => {
    const claim = (name: string, user: string) => ({ kind: 'claim', namespace: 'obj', name, text: `kind: claim\nmetadata: {namespace: obj, name: ${name}}\nuser: ${user}\nservice: s\n`, spec: { user, service: 's' } });
    const id = { kind: 'claim', namespace: 'obj', name: 'c' };
    assert.equal(await repos.policy.getObject(id), undefined, 'not there yet');
    let head = await repos.policy.head();
    assert.equal((await repos.policy.commit({ baseGeneration: head, author: 'a', message: '', upserts: [claim('c', 'ann')], deletes: [] })).status, 'committed');
    assert.equal(((await repos.policy.getObject(id))?.spec as { user: string }).user, 'ann', 'a create is seen (no stale "missing")');
    const selects = countSelects(h);
    for (let i = 0; i < 5; i++) await repos.policy.getObject(id);
    assert.equal(selects(), 0, 'read again from memory');
    head = await repos.policy.head();
    await repos.policy.commit({ baseGeneration: head, author: 'a', message: '', upserts: [claim('c', 'bob')], deletes: [] });
    const updated = await repos.policy.getObject(id);
    assert.equal((updated?.spec as { user: string }).user, 'bob');
    // Callers get their own copy: changing one does not change what the next reader gets.
    (updated as { name: string }).name = 'changed';
    assert.equal((await repos.policy.getObject(id))?.name, 'c');
    // Asked for by the head's number, as the editor opens it, it is read from memory too.
    const reads = countSelects(h);
    assert.equal(((await repos.policy.getObject(id, await repos.policy.head()))?.spec as { user: string }).user, 'bob');
    assert.equal(reads(), 0, 'the head by number is the head');
    // An older generation is always read from the database, as it was.
    assert.equal(((await repos.policy.getObject(id, head))?.spec as { user: string }).user, 'ann');
    head = await repos.policy.head();
    await repos.policy.commit({ baseGeneration: head, author: 'a', message: '', upserts: [], deletes: [id] });
    assert.equal(await repos.policy.getObject(id), undefined, 'a delete is seen');
  });

  test('a reader’s tenant is read again after every membership or namespace change', async () => {
    const t = await repos.tenants.create({ name: 'acme', owner: 'olga', namespaces: ['n1'] });
    assert.ok(t.ok);
    const id = t.ok ? t.tenant.id : 0;
    assert.equal((await repos.tenants.forReader('acme', 'bob'))?.role, null);
    const inv = await repos.tenants.invite({ tenantId: id, user: 'bob', role: 'admin', invitedBy: 'olga' });
    await repos.tenants.answer(inv!.id, 'bob', true);
    assert.equal((await repos.tenants.forReader('acme', 'bob'))?.role, 'admin');
    await repos.tenants.changeMember(id, 'bob', 'plain');
    assert.equal((await repos.tenants.forReader('acme', 'bob'))?.role, 'plain');
    await repos.tenants.addNamespace(id, 'n2');
    assert.deepEqual((await repos.tenants.forReader('acme', 'bob'))?.namespaces, ['n1', 'n2']);
    await repos.tenants.changeMember(id, 'bob', null);
    assert.equal((await repos.tenants.forReader('acme', 'bob'))?.role, null, 'a removed member is no longer one on the next read');
    await repos.tenants.remove(id);
    assert.equal(await repos.tenants.forReader('acme', 'bob'), undefined);
    // Callers get their own copy: changing it changes nothing cached.
    const again = await repos.tenants.create({ name: 'acme2', owner: 'olga', namespaces: ['n3'] });
    assert.ok(again.ok);
    (await repos.tenants.forReader('acme2', 'olga'))!.namespaces.push('tampered');
    assert.deepEqual((await repos.tenants.forReader('acme2', 'olga'))!.namespaces, ['n3']);
  });

  test('a tenant’s row, members and namespaces are read once, and again after any tenant write', async () => {
    const t = await repos.tenants.create({ name: 'kept', owner: 'olga', namespaces: ['k1'] });
    assert.ok(t.ok);
    const id = t.ok ? t.tenant.id : 0;
    const read = async () => [(await repos.tenants.byName('kept'))?.rules, (await repos.tenants.members(id)).map((m) => `${m.user}:${m.role}`), (await repos.tenants.namespaces(id)).map((n) => n.namespace)];
    assert.deepEqual(await read(), [{}, ['olga:owner'], ['k1']]);
    const selects = countSelects(h);
    await read();
    assert.equal(selects(), 0, 'read once, then kept');
    await repos.tenants.setRules(id, { selectEnvironmentService: [] });
    const inv = await repos.tenants.invite({ tenantId: id, user: 'bob', role: 'admin', invitedBy: 'olga' });
    await repos.tenants.answer(inv!.id, 'bob', true);
    await repos.tenants.addNamespace(id, 'k2');
    assert.deepEqual(await read(), [{ selectEnvironmentService: [] }, ['bob:admin', 'olga:owner'], ['k1', 'k2']], 'rules, a new member and a namespace are seen at once');
    (await repos.tenants.members(id))[0]!.role = 'owner';
    assert.equal((await repos.tenants.members(id))[0]!.role, 'admin', 'what a caller changes is its copy');
    await repos.tenants.remove(id);
    assert.equal(await repos.tenants.byName('kept'), undefined);
    assert.deepEqual(await repos.tenants.members(id), []);
  });

  test('a tenant’s accounts and environments are read again after every estate change', async () => {
    const t = await repos.tenants.create({ name: 'estate', owner: 'olga', namespaces: ['e1'] });
    assert.ok(t.ok);
    const tenantId = t.ok ? t.tenant.id : 0;
    assert.deepEqual(await repos.estate.accounts(tenantId), []);
    // Kept: asked again, nothing is read (every service create asks).
    const selects = countSelects(h);
    await repos.estate.accounts(tenantId);
    await repos.estate.accounts(tenantId);
    assert.equal(selects(), 0, 'read once, then kept');
    const acc = (await repos.estate.addAccount({ tenantId, name: 'aws', marks: { vcpu: '4' }, labels: {}, createdBy: 'olga' }))!;
    assert.deepEqual((await repos.estate.accounts(tenantId)).map((a) => a.name), ['aws'], 'an added account is seen at once');
    assert.deepEqual(await repos.estate.environments(acc.id), []);
    const env = (await repos.estate.addEnvironment({ accountId: acc.id, name: 'prod', cluster: 'c1', k8sNamespace: null, marks: { vcpu: '2' }, labels: {}, meta: {}, createdBy: 'olga' }))!;
    assert.deepEqual((await repos.estate.environments(acc.id)).map((e) => e.name), ['prod']);
    await repos.estate.updateEnvironment(env.id, { marks: { vcpu: '3' } });
    assert.deepEqual((await repos.estate.environments(acc.id))[0]!.marks, { vcpu: '3' }, 'changed marks are seen by the next placement');
    assert.deepEqual((await repos.estate.environment(acc.id, 'prod'))?.marks, { vcpu: '3' }, 'and by a look-up by name');
    const lookups = countSelects(h);
    await repos.estate.account(tenantId, 'aws');
    await repos.estate.account(tenantId, 'aws');
    await repos.estate.environment(acc.id, 'prod');
    assert.equal(lookups(), 1, 'look-ups by name are kept too');
    await repos.estate.updateAccount(acc.id, { labels: { tier: 'gold' } });
    assert.deepEqual((await repos.estate.accounts(tenantId))[0]!.labels, { tier: 'gold' });
    // Callers get their own copy: changing it changes nothing kept.
    (await repos.estate.environments(acc.id))[0]!.marks.vcpu = '999';
    assert.deepEqual((await repos.estate.environments(acc.id))[0]!.marks, { vcpu: '3' });
    await repos.estate.removeEnvironment(env.id);
    assert.deepEqual(await repos.estate.environments(acc.id), []);
    assert.equal(await repos.estate.environment(acc.id, 'prod'), undefined, 'a removed environment is not found by name');
    await repos.estate.removeForTenant(tenantId);
    assert.deepEqual(await repos.estate.accounts(tenantId), []);
  });

  test('the user list is read once, and again after a user is recorded or removed', async () => {
    const names = async () => (await repos.users.listUsers()).map((u) => `${u.name}:${u.labels.team ?? ''}`);
    await repos.users.upsertUser({ id: 'oidc:dana', name: 'Dana', email: null, provider: 'oidc', labels: { team: 'red' } });
    assert.deepEqual(await names(), ['Dana:red']);
    const selects = countSelects(h);
    const got = await repos.users.listUsers();
    got[0]!.labels.team = 'changed by a caller';
    assert.deepEqual(await names(), ['Dana:red'], 'kept, and what a caller changes is its copy');
    assert.equal(selects(), 0, 'no statement while nothing was written');
    await repos.users.upsertUser({ id: 'oidc:dana', name: 'Dana', email: null, provider: 'oidc', labels: { team: 'blue' } });
    await repos.users.upsertUser({ id: 'oidc:eve', name: 'Eve', email: null, provider: 'oidc', labels: {} });
    assert.deepEqual(await names(), ['Dana:blue', 'Eve:'], 'a sign-in with new labels and a new user are seen at once');
    await repos.users.removeUser('oidc:eve');
    assert.deepEqual(await names(), ['Dana:blue'], 'a removal is seen at once');
  });
});

describe('exclusive grants', () => {
  test('grants implied by membership follow this process’s tenant writes', async () => {
    const h = await openDb({ pgliteDir: 'memory://' });
    const repos = drizzleRepos(h.db, { exclusive: true });
    try {
      const t = await repos.tenants.create({ name: 'g', owner: 'olga', namespaces: ['gn'] });
      const id = t.ok ? t.tenant.id : 0;
      assert.deepEqual((await repos.tenants.grants()).get('olga')?.map((g) => [g.role, g.namespaces]), [['namespace-admin', ['gn']]]);
      const inv = await repos.tenants.invite({ tenantId: id, user: 'bob', role: 'plain', invitedBy: 'olga' });
      await repos.tenants.answer(inv!.id, 'bob', true);
      assert.deepEqual((await repos.tenants.grants()).get('bob')?.map((g) => g.role), ['service-consumer']);
      await repos.tenants.changeMember(id, 'bob', null);
      assert.equal((await repos.tenants.grants()).get('bob'), undefined, 'a removed member has no grants on the next read');
    } finally {
      await h.close();
    }
  });
});

describe('exclusive policy snapshot', () => {
  /** A throw-away embedded database's exclusive repositories, closed afterwards. */
  async function withExclusive(fn: (repos: Repos, h: DbHandle) => Promise<void>): Promise<void> {
    const h = await openDb({ pgliteDir: 'memory://' });
    try {
      await fn(drizzleRepos(h.db, { exclusive: true }), h);
    } finally {
      await h.close();
    }
  }

  /** A claim whose spec's keys jsonb reorders, to tell a fresh read from a carried one. */
  const claim = reorderedClaim;

  test('carried across commits, the policy reads exactly as the database does — order, contents, deletes', () =>
    withExclusive(async (repos, h) => {
      const fresh = drizzleRepos(h.db);
      let head = await repos.policy.head();
      // Names whose C-collation order differs from a case-insensitive or locale order: A < B < _z < a < a-b < a_b < ab < z < é.
      for (const batch of [['b', 'A'], ['_z', 'a-b', 'é'], ['a_b', 'ab', 'z', 'B'], ['a']]) {
        await repos.policy.listObjects(); // the snapshot of the generation the commit is based on
        const r = await repos.policy.commit({ baseGeneration: head, author: 'a', message: '', upserts: batch.map((n) => claim(n)), deletes: [] });
        assert.equal(r.status, 'committed');
        head = r.status === 'committed' ? r.generation.generation : head;
        assert.equal(JSON.stringify(await repos.policy.listObjects()), JSON.stringify(await fresh.policy.listObjects()), `after ${batch.join(', ')}`);
      }
      const r = await repos.policy.commit({ baseGeneration: head, author: 'a', message: '', upserts: [claim('a', 'bob')], deletes: [{ kind: 'claim', namespace: 'snap', name: 'z' }] });
      assert.equal(r.status, 'committed');
      assert.equal(JSON.stringify(await repos.policy.listObjects()), JSON.stringify(await fresh.policy.listObjects()), 'after an update and a delete');
      assert.equal(((await repos.policy.getObject({ kind: 'claim', namespace: 'snap', name: 'a' }))?.spec as { user: string }).user, 'bob');
      assert.equal(await repos.policy.getObject({ kind: 'claim', namespace: 'snap', name: 'z' }), undefined, 'the deleted claim is gone');
      // An older generation still reads as it was.
      assert.deepEqual((await repos.policy.listObjects({ generation: head })).map((o) => o.name), (await fresh.policy.listObjects({ generation: head })).map((o) => o.name));
    }));

  test('a read past the head is not kept as that generation: once written, it reads as written', () =>
    withExclusive(async (repos) => {
      const head = await repos.policy.head();
      // Anyone may ask for a generation that does not exist yet (the policy page's generation picker).
      assert.deepEqual(await repos.policy.listObjects({ generation: head + 1 }), []);
      const r = await repos.policy.commit({ baseGeneration: head, author: 'a', message: '', upserts: [claim('later')], deletes: [] });
      assert.equal(r.status, 'committed');
      assert.deepEqual((await repos.policy.listObjects({ generation: head + 1 })).map((o) => o.name), ['later']);
      assert.deepEqual((await repos.policy.listObjects()).map((o) => o.name), ['later']);
    }));

  test('what a reader gets cannot change what the next reader gets', () =>
    withExclusive(async (repos) => {
      await repos.policy.commit({ baseGeneration: await repos.policy.head(), author: 'a', message: '', upserts: [claim('x')], deletes: [] });
      const [first] = await repos.policy.listObjects();
      first!.name = 'renamed';
      assert.throws(() => {
        (first!.spec as { user: string }).user = 'mallory';
      }, TypeError);
      const [again] = await repos.policy.listObjects();
      assert.equal(again!.name, 'x');
      assert.equal((again!.spec as { user: string }).user, 'ann');
    }));
});
