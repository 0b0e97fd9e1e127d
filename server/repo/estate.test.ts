/** The estate store's contract (accounts, environments) on PGlite, PostgreSQL and memory. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backends } from '../testing/backends';
import { DrizzleEstateRepository } from './estate';
import type { EstateRepository } from './estate.types';
import { MemoryEstateRepository } from './memory-estate';

function contract(name: string, make: () => Promise<{ repo: EstateRepository; close?: () => Promise<void> }>) {
  describe(`EstateRepository on ${name}`, () => {
    let repo: EstateRepository;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ repo, close } = await make());
    });
    after(async () => close?.());

    test('accounts: unique per tenant, updated in place, listed by name', async () => {
      const a = await repo.addAccount({ tenantId: 1, name: 'main', marks: { vcpu: '8' }, labels: { tier: 'gold' }, createdBy: 'john' });
      assert.ok(a && a.id > 0 && a.createdAt instanceof Date);
      assert.equal(await repo.addAccount({ tenantId: 1, name: 'main', marks: {}, labels: {}, createdBy: 'sam' }), undefined);
      assert.ok(await repo.addAccount({ tenantId: 2, name: 'main', marks: {}, labels: {}, createdBy: 'sam' }), 'another tenant may use the name');
      await repo.addAccount({ tenantId: 1, name: 'backup', marks: {}, labels: {}, createdBy: 'john' });
      assert.deepEqual((await repo.accounts(1)).map((x) => x.name), ['backup', 'main']);
      const u = await repo.updateAccount(a.id, { marks: { vcpu: 4, memory: '8Gi' } });
      assert.deepEqual([u?.marks, u?.labels], [{ vcpu: 4, memory: '8Gi' }, { tier: 'gold' }]);
      assert.deepEqual((await repo.account(1, 'main'))?.marks, { vcpu: 4, memory: '8Gi' });
    });

    test('environments: unique per account, meta and marks kept as written; removing an account removes them', async () => {
      const a = (await repo.account(1, 'main'))!;
      const e = await repo.addEnvironment({ accountId: a.id, name: 'prod', cluster: 'system/k8s', k8sNamespace: null, marks: { instances: 3 }, labels: {}, meta: { zone: 'eu', tags: [1, 2] }, createdBy: 'john' });
      assert.ok(e);
      assert.equal(await repo.addEnvironment({ accountId: a.id, name: 'prod', cluster: 'system/k8s', k8sNamespace: 'x', marks: {}, labels: {}, meta: {}, createdBy: 'john' }), undefined);
      await repo.addEnvironment({ accountId: a.id, name: 'dev', cluster: 'system/k8s', k8sNamespace: 'dev', marks: {}, labels: {}, meta: {}, createdBy: 'john' });
      assert.deepEqual((await repo.environments(a.id)).map((x) => [x.name, x.k8sNamespace]), [['dev', 'dev'], ['prod', null]]);
      const u = await repo.updateEnvironment(e.id, { meta: { zone: 'us' } });
      assert.deepEqual([u?.meta, u?.marks], [{ zone: 'us' }, { instances: 3 }]);
      await repo.removeEnvironment(e.id);
      assert.equal(await repo.environment(a.id, 'prod'), undefined);
      await repo.removeAccount(a.id);
      assert.equal(await repo.account(1, 'main'), undefined);
      assert.deepEqual(await repo.environments(a.id), []);
    });

    test('removing a tenant removes its accounts and environments only', async () => {
      const b = (await repo.account(1, 'backup'))!;
      await repo.addEnvironment({ accountId: b.id, name: 'x', cluster: 'system/k8s', k8sNamespace: null, marks: {}, labels: {}, meta: {}, createdBy: 'john' });
      await repo.removeForTenant(1);
      assert.deepEqual(await repo.accounts(1), []);
      assert.deepEqual(await repo.environments(b.id), []);
      assert.deepEqual((await repo.accounts(2)).map((x) => x.name), ['main']);
    });
  });
}

for (const b of backends()) {
  contract(b.name, async () => {
    const h = await b.open();
    return { repo: new DrizzleEstateRepository(h.db), close: () => h.close() };
  });
}
contract('memory', async () => ({ repo: new MemoryEstateRepository() }));
