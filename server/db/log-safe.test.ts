import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDb } from './client';
import { resolutions } from './schema';
import { loggable } from './log-safe';

describe('errors as the log holds them', () => {
  test("a failed statement logs its first line and the driver's reason, never its parameters", async () => {
    const h = await openDb({ pgliteDir: 'memory://' });
    await h.close();
    const secret = 'sekrit-value-rendered-from-a-user-secret';
    const failed = await h.db
      .insert(resolutions)
      .values({ generation: 1, durationMs: 1, claimsTotal: 0, claimsResolved: 0, claimsRejected: 0, claimsError: 0, instances: 0, stateGz: secret })
      .then(() => undefined, (e: unknown) => e);
    assert.ok(failed instanceof Error, 'the statement fails on a closed database');
    assert.ok(failed.message.includes(secret), 'the driver error itself carries the parameters');
    const line = loggable(failed);
    assert.ok(!line.includes(secret), line);
    assert.match(line, /insert into "resolutions"/);
  });

  test('anything else thrown is a short string', () => {
    assert.equal(loggable('x'.repeat(10_000)).length, 500);
    assert.match(loggable(new Error('plain\nsecond line')), /^Error: plain(\n|$)/);
  });
});
