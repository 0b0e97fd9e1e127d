/** The token store's contract on PGlite, PostgreSQL and memory. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backends } from '../testing/backends';
import { MemoryTokenRepository } from './memory-tokens';
import { DrizzleTokenRepository } from './tokens';
import type { TokenRepository } from './tokens.types';

function contract(name: string, make: () => Promise<{ repo: TokenRepository; close?: () => Promise<void> }>) {
  describe(`TokenRepository on ${name}`, () => {
    let repo: TokenRepository;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ repo, close } = await make());
    });
    after(async () => close?.());

    test('found by hash; listed per user, newest first; revoked once; touched', async () => {
      const a = await repo.add({ userId: 'local:A', userName: 'A', name: 'one', prefix: 'abcdefgh', hash: 'h1', expiresAt: null });
      const b = await repo.add({ userId: 'local:A', userName: 'A', name: 'two', prefix: 'ijklmnop', hash: 'h2', expiresAt: new Date('2030-01-01T00:00:00Z') });
      await repo.add({ userId: 'local:B', userName: 'B', name: 'three', prefix: 'qrstuvwx', hash: 'h3', expiresAt: null });
      await assert.rejects(repo.add({ userId: 'local:B', userName: 'B', name: 'dup', prefix: 'x', hash: 'h1', expiresAt: null }));
      assert.equal((await repo.byHash('h2'))?.id, b.id);
      assert.equal(await repo.byHash('nope'), undefined);
      assert.deepEqual((await repo.forUser('local:A')).map((t) => t.name), ['two', 'one']);
      const first = new Date('2026-02-01T00:00:00Z');
      await repo.revoke(a.id, first);
      await repo.revoke(a.id, new Date('2026-03-01T00:00:00Z'));
      assert.equal((await repo.byId(a.id))?.revokedAt?.toISOString(), first.toISOString());
      await repo.touch(b.id, first);
      assert.equal((await repo.byId(b.id))?.lastUsedAt?.toISOString(), first.toISOString());
      assert.equal((await repo.byHash('h2'))?.lastUsedAt?.toISOString(), first.toISOString(), 'a touch is seen by hash too');
    });

    test('a revocation holds from the next lookup (tokens read by hash may be kept)', async () => {
      const t = await repo.add({ userId: 'local:C', userName: 'C', name: 'kept', prefix: 'kkkkkkkk', hash: 'hk', expiresAt: null });
      assert.equal((await repo.byHash('hk'))?.revokedAt, null);
      assert.equal((await repo.byHash('hk'))?.revokedAt, null);
      // Callers get their own copy.
      (await repo.byHash('hk'))!.revokedAt = new Date();
      assert.equal((await repo.byHash('hk'))?.revokedAt, null);
      await repo.revoke(t.id, new Date('2026-04-01T00:00:00Z'));
      assert.equal((await repo.byHash('hk'))?.revokedAt?.toISOString(), '2026-04-01T00:00:00.000Z');
    });
  });
}

for (const b of backends()) {
  contract(b.name, async () => {
    const h = await b.open();
    return { repo: new DrizzleTokenRepository(h.db), close: () => h.close() };
  });
  contract(`${b.name} (exclusive)`, async () => {
    const h = await b.open();
    return { repo: new DrizzleTokenRepository(h.db, { exclusive: true }), close: () => h.close() };
  });
}
contract('memory', async () => ({ repo: new MemoryTokenRepository() }));
