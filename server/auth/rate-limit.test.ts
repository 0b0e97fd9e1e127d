import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientAddress, SignInLimiter } from './rate-limit';

describe('sign-in rate limit', () => {
  test('five failures for one account block it (from any address) until the window passes', () => {
    let now = 1_000_000;
    const l = new SignInLimiter({ windowMs: 60_000, perAccount: 5, perAddress: 100 }, () => now);
    for (let i = 0; i < 5; i++) {
      assert.equal(l.retryAfter('alice', `10.0.0.${i}`), 0);
      l.fail('Alice', `10.0.0.${i}`);
    }
    assert.equal(l.retryAfter('ALICE', '192.0.2.9'), 60, 'blocked whatever the address and case');
    assert.equal(l.retryAfter('bob', '192.0.2.9'), 0, 'other accounts are not');
    now += 30_000;
    assert.equal(l.retryAfter('alice', 'x'), 30);
    now += 30_001;
    assert.equal(l.retryAfter('alice', 'x'), 0);
  });

  test('one address trying many accounts is blocked', () => {
    const now = 5_000_000;
    const l = new SignInLimiter({ windowMs: 60_000, perAccount: 5, perAddress: 3 }, () => now);
    for (const u of ['a', 'b', 'c']) l.fail(u, '198.51.100.7');
    assert.ok(l.retryAfter('d', '198.51.100.7') > 0);
    assert.equal(l.retryAfter('d', '198.51.100.8'), 0);
  });

  test('a success clears the account count', () => {
    const l = new SignInLimiter({ windowMs: 60_000, perAccount: 2, perAddress: 100 });
    l.fail('sam', 'x');
    l.succeed('sam');
    l.fail('sam', 'y');
    assert.equal(l.retryAfter('sam', 'z'), 0);
  });

  test('the client address is the hop the outermost trusted proxy appended, never what the client wrote to the left of it', () => {
    // A client writes "1.1.1.1" to dodge the per-address limit; one proxy appends the real address.
    assert.equal(clientAddress(new Headers({ 'x-forwarded-for': '1.1.1.1, 203.0.113.5' }), 1), '203.0.113.5');
    // Two proxies: the outer one saw the client, the inner one saw the outer proxy.
    assert.equal(clientAddress(new Headers({ 'x-forwarded-for': '1.1.1.1, 203.0.113.5, 10.0.0.1' }), 2), '203.0.113.5');
    // No proxy: the address Next.js wrote (the last entry).
    assert.equal(clientAddress(new Headers({ 'x-forwarded-for': '203.0.113.7' }), 0), '203.0.113.7');
    assert.equal(clientAddress({ 'x-real-ip': '203.0.113.6' }), '203.0.113.6');
    assert.equal(clientAddress(new Headers()), 'local');
  });
});
