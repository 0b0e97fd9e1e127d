import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientAddress, refuseOverLimit, SignInLimiter } from './rate-limit';
import { signInAccount } from './users';

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

  test('one account however its name is written: the limiter keys on what the password check looks up', () => {
    const l = new SignInLimiter({ windowMs: 60_000, perAccount: 3, perAddress: 100 });
    for (const typed of [' frank', 'FRANK\t', 'Frank ']) l.fail(typed, `10.0.0.${typed.length}`);
    assert.ok(l.retryAfter('frank', '192.0.2.1') > 0, 'padded and re-cased names are the same account');
    assert.equal(signInAccount('  Frank\n'), 'frank');
    // A name that is no string names no account: only the address counts.
    assert.equal(signInAccount(['frank']), null);
    l.fail({ username: 'frank' }, '192.0.2.77');
    assert.ok(l.retryAfter('frank', '192.0.2.1') > 0);
    assert.equal(l.retryAfter('carol', '192.0.2.2'), 0);
  });

  const SIGN_IN = { action: 'callback', provider: 'local' };
  const post = (body: string, type: string, headers: Record<string, string> = {}) =>
    new Request('http://console.test/api/auth/callback/local', { method: 'POST', headers: { 'content-type': type, ...headers }, body });

  test('a sign-in past the limit is refused whatever encoding next-auth accepts: a form, or JSON', async () => {
    const l = new SignInLimiter({ windowMs: 60_000, perAccount: 2, perAddress: 100 });
    l.fail('frank', 'x');
    l.fail('frank', 'y');
    const json = await refuseOverLimit(post(JSON.stringify({ username: ' frank', password: 'frank', csrfToken: 't' }), 'application/json'), SIGN_IN, l, 0);
    assert.equal(json?.status, 429, 'a JSON body');
    assert.ok(Number(json!.headers.get('retry-after')) > 0);
    assert.match(((await json!.json()) as { message: string }).message, /Too many failed sign-ins/);
    assert.equal((await refuseOverLimit(post('username=FRANK+&password=frank', 'application/x-www-form-urlencoded; charset=UTF-8'), SIGN_IN, l, 0))?.status, 429, 'a form');
    // next-auth keeps the last of a repeated field; so does the limiter.
    assert.equal((await refuseOverLimit(post('username=carol&username=frank&password=frank', 'application/x-www-form-urlencoded'), SIGN_IN, l, 0))?.status, 429);
    assert.equal(await refuseOverLimit(post('username=frank&username=carol&password=carol', 'application/x-www-form-urlencoded'), SIGN_IN, l, 0), null);
    // Only the local sign-in is counted (the route passes next-auth's own action and provider).
    assert.equal(await refuseOverLimit(post('{"username":"frank"}', 'application/json'), { action: 'signout' }, l, 0), null);
    // The body is still there for next-auth.
    const req = post('username=carol&password=carol', 'application/x-www-form-urlencoded');
    assert.equal(await refuseOverLimit(req, SIGN_IN, l, 0), null);
    assert.equal(await req.text(), 'username=carol&password=carol');
  });

  test('behind KEELSON_TRUSTED_PROXIES proxies, the address counted is the one the outermost proxy appended to X-Forwarded-For', async () => {
    const l = new SignInLimiter({ windowMs: 60_000, perAccount: 100, perAddress: 3 });
    // One proxy in front: it appends the client's address; whatever the client wrote to its left changes nothing.
    for (let i = 0; i < 3; i++) l.fail(`user${i}`, clientAddress(new Headers({ 'x-forwarded-for': `10.9.9.${i}, 203.0.113.5` }), 1));
    const spoofed = post('username=sam&password=sam', 'application/x-www-form-urlencoded', { 'x-forwarded-for': '198.51.100.1, 203.0.113.5' });
    assert.equal((await refuseOverLimit(spoofed, SIGN_IN, l, 1))?.status, 429, 'a fresh left entry is no fresh address');
    const other = post('username=sam&password=sam', 'application/x-www-form-urlencoded', { 'x-forwarded-for': '203.0.113.5, 203.0.113.6' });
    assert.equal(await refuseOverLimit(other, SIGN_IN, l, 1), null, 'another client behind the same proxy is not');
  });
});
