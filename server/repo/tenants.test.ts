/**
 * The tenant store's contract, one set of tests for every implementation:
 * drizzle on PGlite and on a real PostgreSQL server, and in memory.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DbHandle } from '../db/client';
import { backends } from '../testing/backends';
import { MemoryTenantRepository } from './memory-tenants';
import { DrizzleTenantRepository } from './tenants';
import type { TenantRepository } from './tenants.types';

function contract(name: string, make: () => Promise<{ repo: TenantRepository; close?: () => Promise<void> }>) {
  describe(`TenantRepository on ${name}`, () => {
    let repo: TenantRepository;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ repo, close } = await make());
    });
    after(async () => close?.());
    let acme = 0;

    test('creating a tenant makes its creator the owner (lower-case) and gives it its namespaces', async () => {
      const r = await repo.create({ name: 'acme', owner: 'John', namespaces: ['web', 'api'] });
      assert.equal(r.ok, true);
      if (!r.ok) return;
      acme = r.tenant.id;
      assert.deepEqual([r.tenant.name, r.tenant.createdBy], ['acme', 'John']);
      assert.ok(r.tenant.createdAt instanceof Date);
      assert.deepEqual((await repo.byName('acme'))?.id, acme);
      assert.equal(await repo.byName('nope'), undefined);
      assert.deepEqual((await repo.members(acme)).map((m) => [m.user, m.role]), [['john', 'owner']]);
      assert.deepEqual(await repo.namespaces(acme), [
        { namespace: 'api', tenantId: acme },
        { namespace: 'web', tenantId: acme },
      ]);
      assert.deepEqual((await repo.membershipsOf('JOHN')).map((m) => [m.tenant, m.role]), [['acme', 'owner']]);
    });

    test('a taken name or namespace is refused, and nothing is created', async () => {
      assert.deepEqual(await repo.create({ name: 'acme', owner: 'sam', namespaces: [] }), { ok: false, reason: 'A tenant named "acme" already exists.' });
      assert.deepEqual(await repo.create({ name: 'other', owner: 'sam', namespaces: ['free', 'web'] }), { ok: false, reason: 'Namespace web already belongs to another tenant.' });
      assert.equal(await repo.byName('other'), undefined);
      assert.equal((await repo.namespaces()).some((n) => n.namespace === 'free'), false);
      const b = await repo.create({ name: 'beta', owner: 'sam', namespaces: [] });
      assert.equal(b.ok, true);
      assert.deepEqual((await repo.list()).map((t) => t.name), ['acme', 'beta']);
      assert.equal(await repo.addNamespace((b as { tenant: { id: number } }).tenant.id, 'web'), false, 'web is acme’s');
      assert.equal(await repo.addNamespace((b as { tenant: { id: number } }).tenant.id, 'mobile'), true);
      assert.deepEqual((await repo.namespaces()).map((n) => n.namespace), ['api', 'mobile', 'web']);
    });

    test('forReader: the tenant, the reader’s role (null for others) and its namespaces in one read', async () => {
      const r = await repo.forReader('acme', 'john');
      assert.deepEqual(r, { id: acme, name: 'acme', role: 'owner', namespaces: ['api', 'web'] });
      assert.equal((await repo.forReader('acme', 'sam'))?.role, null, 'sam owns beta, not acme');
      assert.deepEqual((await repo.forReader('beta', 'sam'))?.namespaces, ['mobile']);
      assert.equal(await repo.forReader('nope', 'john'), undefined);
    });

    test('invitations: one pending per user, answered once; accepting makes a member', async () => {
      const inv = await repo.invite({ tenantId: acme, user: 'Alice', role: 'admin', invitedBy: 'john' });
      assert.deepEqual([inv?.user, inv?.role, inv?.status, inv?.invitedBy], ['alice', 'admin', 'pending', 'john']);
      assert.equal(await repo.invite({ tenantId: acme, user: 'alice', role: 'plain', invitedBy: 'john' }), undefined, 'already invited');
      assert.equal(await repo.invite({ tenantId: acme, user: 'john', role: 'plain', invitedBy: 'john' }), undefined, 'already a member');
      const bob = await repo.invite({ tenantId: acme, user: 'Bob', role: 'plain', invitedBy: 'john' });
      assert.deepEqual((await repo.invitations({ user: 'ALICE', status: 'pending' })).map((i) => [i.tenant, i.role]), [['acme', 'admin']]);
      assert.deepEqual((await repo.invitations({ tenantId: acme })).map((i) => i.user), ['alice', 'bob']);
      assert.equal(await repo.answer(inv!.id, 'bob', true), undefined, 'only the invitee answers');
      const accepted = await repo.answer(inv!.id, 'Alice', true);
      assert.deepEqual([accepted?.status, accepted?.decidedAt instanceof Date], ['accepted', true]);
      assert.equal(await repo.answer(inv!.id, 'alice', false), undefined, 'answered once');
      const declined = await repo.answer(bob!.id, 'bob', false);
      assert.equal(declined?.status, 'rejected');
      assert.deepEqual((await repo.members(acme)).map((m) => [m.user, m.role]), [
        ['alice', 'admin'],
        ['john', 'owner'],
      ]);
      assert.deepEqual(await repo.invitations({ tenantId: acme, status: 'pending' }), []);
    });

    test('grants: owners and admins administer the tenant’s namespaces, plain members consume there', async () => {
      const g = await repo.grants();
      assert.deepEqual(g.get('john'), [{ role: 'namespace-admin', namespaces: ['api', 'web'], source: 'tenant acme (owner)' }]);
      assert.deepEqual(g.get('alice'), [{ role: 'namespace-admin', namespaces: ['api', 'web'], source: 'tenant acme (admin)' }]);
      assert.deepEqual(g.get('sam'), [{ role: 'namespace-admin', namespaces: ['mobile'], source: 'tenant beta (owner)' }]);
      assert.equal(g.get('bob'), undefined);
    });

    test('the last owner can be neither demoted nor removed, also when two demotions race', async () => {
      assert.equal(await repo.changeMember(acme, 'john', 'admin'), 'last-owner');
      assert.equal(await repo.changeMember(acme, 'john', null), 'last-owner');
      assert.equal(await repo.changeMember(acme, 'carol', 'plain'), 'not-member');
      assert.equal(await repo.changeMember(acme, 'Alice', 'owner'), 'ok');
      const race = await Promise.all([repo.changeMember(acme, 'john', 'plain'), repo.changeMember(acme, 'alice', 'plain')]);
      assert.deepEqual([...race].sort(), ['last-owner', 'ok']);
      assert.equal((await repo.members(acme)).filter((m) => m.role === 'owner').length, 1);
    });

    test('removing a member, then the tenant with everything it had', async () => {
      await repo.invite({ tenantId: acme, user: 'dave', role: 'plain', invitedBy: 'john' });
      const plain = (await repo.members(acme)).find((m) => m.role === 'plain')!;
      assert.equal(await repo.changeMember(acme, plain.user, null), 'ok');
      assert.equal((await repo.members(acme)).length, 1);
      await repo.remove(acme);
      assert.equal(await repo.byName('acme'), undefined);
      assert.deepEqual(await repo.members(acme), []);
      assert.deepEqual(await repo.namespaces(acme), []);
      assert.deepEqual(await repo.invitations({ tenantId: acme }), []);
      assert.deepEqual((await repo.list()).map((t) => t.name), ['beta']);
      assert.equal(await repo.addNamespace((await repo.byName('beta'))!.id, 'web'), true, 'its namespaces are free again');
    });
  });
}

for (const b of backends()) {
  contract(b.name, async () => {
    const h: DbHandle = await b.open();
    return { repo: new DrizzleTenantRepository(h.db), close: () => h.close() };
  });
}
contract('memory', async () => ({ repo: new MemoryTenantRepository() }));
