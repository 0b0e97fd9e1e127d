import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backends } from '../testing/backends';
import { openDb } from '../db/client';
import { sharedSecretKey, sharedSessionSecret } from './shared-secret';

for (const backend of backends()) {
  describe(`shared session secret on ${backend.name}`, () => {
    test('every process on one database gets the same secret; another database another', async () => {
      const h = await backend.open();
      const other = await backend.open();
      try {
        const [a, b] = await Promise.all([sharedSessionSecret(h.db), sharedSessionSecret(h.db)]);
        assert.equal(a, b);
        assert.ok(a.length >= 32);
        assert.equal(await sharedSessionSecret(h.db), a, 'stable across restarts');
        if (h.url) {
          // A second process: its own connection to the same server.
          const second = await openDb({ url: h.url, max: 2 });
          try {
            assert.equal(await sharedSessionSecret(second.db), a);
          } finally {
            await second.close();
          }
        }
        assert.notEqual(await sharedSessionSecret(other.db), a);
        // The resource secrets' key likewise: one per database, 32 bytes, not the session secret.
        const [k1, k2] = await Promise.all([sharedSecretKey(h.db), sharedSecretKey(h.db)]);
        assert.equal(k1, k2);
        assert.equal(Buffer.from(k1, 'base64').length, 32);
        assert.notEqual(await sharedSecretKey(other.db), k1);
      } finally {
        await h.close();
        await other.close();
      }
    });
  });
}
