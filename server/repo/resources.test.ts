/** The resource store's contract on PGlite, PostgreSQL and memory: names per tenant and kind, unique keys across tenants. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backends } from '../testing/backends';
import { MemoryResourceRepository } from './memory-resources';
import { DrizzleResourceRepository } from './resources';
import type { ResourceRepository } from './resources.types';

function contract(name: string, make: () => Promise<{ repo: ResourceRepository; close?: () => Promise<void> }>) {
  describe(`ResourceRepository on ${name}`, () => {
    let repo: ResourceRepository;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ repo, close } = await make());
    });
    after(async () => close?.());

    test('names are unique per tenant and kind; claims across tenants; updates keep them so', async () => {
      const base = { spec: {}, sealed: null, createdBy: 'x' };
      const a = await repo.add({ ...base, tenantId: 1, kind: 'port', name: 'web', spec: { port: 80 }, claim: 'port:80' });
      assert.ok(typeof a === 'object' && a.id > 0);
      assert.equal(await repo.add({ ...base, tenantId: 1, kind: 'port', name: 'web', claim: 'port:81' }), 'name-taken');
      assert.equal(await repo.add({ ...base, tenantId: 2, kind: 'port', name: 'web', claim: 'port:80' }), 'claim-taken');
      const b = await repo.add({ ...base, tenantId: 2, kind: 'port', name: 'web', claim: 'port:81' });
      assert.ok(typeof b === 'object');
      // Kinds without a unique key: many nulls.
      assert.ok(typeof (await repo.add({ ...base, tenantId: 1, kind: 'secret', name: 's1', sealed: 'v1.a.b.c', claim: null })) === 'object');
      assert.ok(typeof (await repo.add({ ...base, tenantId: 2, kind: 'secret', name: 's1', claim: null })) === 'object');
      assert.deepEqual((await repo.list(1)).map((r) => `${r.kind}/${r.name}`), ['port/web', 'secret/s1']);
      assert.equal(await repo.update((b as { id: number }).id, { spec: { port: 80 }, sealed: null, claim: 'port:80' }), 'claim-taken');
      const moved = await repo.update((a as { id: number }).id, { spec: { port: 82 }, sealed: null, claim: 'port:82' });
      assert.deepEqual(typeof moved === 'object' && moved.spec, { port: 82 });
      assert.ok(typeof (await repo.update((b as { id: number }).id, { spec: { port: 80 }, sealed: null, claim: 'port:80' })) === 'object', '80 is free now');
      await repo.removeForTenant(1);
      assert.deepEqual(await repo.list(1), []);
      assert.equal((await repo.list(2)).length, 2);
    });
  });
}

for (const b of backends()) {
  contract(b.name, async () => {
    const h = await b.open();
    return { repo: new DrizzleResourceRepository(h.db), close: () => h.close() };
  });
}
contract('memory', async () => ({ repo: new MemoryResourceRepository() }));
