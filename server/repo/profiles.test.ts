/** The user store's profile links on PGlite, PostgreSQL and memory: one per user and provider, an identity linked once. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backends } from '../testing/backends';
import { drizzleRepos } from './drizzle';
import { memoryRepos } from './memory';
import type { UserRepo } from './types';

function contract(name: string, make: () => Promise<{ repo: UserRepo; close?: () => Promise<void> }>) {
  describe(`UserRepo profiles on ${name}`, () => {
    let repo: UserRepo;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ repo, close } = await make());
    });
    after(async () => close?.());

    test('linked once per user and provider, and an identity to one user only; removed with the profile or the user', async () => {
      assert.equal(await repo.addProfile({ userId: 'local:A', provider: 'oidc', subject: 'oidc:x#a', email: 'a@x' }), true);
      assert.equal(await repo.addProfile({ userId: 'local:A', provider: 'oidc', subject: 'oidc:x#other', email: null }), false, 'a second oidc profile for A');
      assert.equal(await repo.addProfile({ userId: 'local:B', provider: 'oidc', subject: 'oidc:x#a', email: null }), false, 'the identity is taken');
      assert.equal(await repo.addProfile({ userId: 'local:A', provider: 'github', subject: 'gh#a', email: null }), true);
      assert.deepEqual((await repo.profiles('local:A')).map((p) => [p.provider, p.subject, p.email]), [
        ['github', 'gh#a', null],
        ['oidc', 'oidc:x#a', 'a@x'],
      ]);
      assert.equal((await repo.profileBySubject('oidc:x#a'))?.userId, 'local:A');
      assert.ok((await repo.profileBySubject('oidc:x#a'))!.addedAt instanceof Date);
      assert.equal(await repo.removeProfile('local:A', 'github'), true);
      assert.equal(await repo.removeProfile('local:A', 'github'), false);
      await repo.upsertUser({ id: 'local:A', name: 'A', email: null, provider: 'local', labels: {} });
      await repo.removeUser('local:A');
      assert.deepEqual(await repo.profiles('local:A'), []);
      assert.equal(await repo.profileBySubject('oidc:x#a'), undefined);
    });
  });
}

contract('memory', async () => ({ repo: memoryRepos().users }));
for (const b of backends()) {
  contract(b.name, async () => {
    const h = await b.open();
    return { repo: drizzleRepos(h.db).users, close: () => h.close() };
  });
}
