/**
 * API tokens as a client uses them, through the REST API with the real
 * token service authenticating: a password grant, calls with the token,
 * revocation, expiry, and the sign-in limit on password grants.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignInLimiter } from '../auth/rate-limit';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { TokenService } from '../services/tokens';
import { serveForTests, type TestServer } from '../testing/rest';
import { API_PREFIX } from './dispatch';
import { bearerOrSession } from '../auth/bearer';
import { restApi } from './index';
import { RateLimiter } from './rate-limit';

describe('REST API: API tokens', () => {
  let server: TestServer;
  let services: Services;
  let repos: Repos;

  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    server = await serveForTests(
      restApi({
        services: async () => services,
        authenticate: bearerOrSession((t) => services.tokens.authenticate(t), async () => null),
        rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }),
      }),
    );
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
  });

  const call = async (method: string, path: string, opts: { token?: string; body?: unknown } = {}) => {
    const res = await fetch(`${server.url}${API_PREFIX}${path}`, {
      method,
      headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { data?: any; code?: string; content?: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  test('a password grant gives a token that acts for its user until revoked', async () => {
    const grant = await call('POST', '/auth/token', { body: { username: 'alice', password: 'alice' } });
    assert.equal(grant.status, 200, JSON.stringify(grant.body));
    const token = grant.body.data.token as string;
    assert.match(token, /^kst_[A-Za-z0-9_-]{43}$/);
    const days = (new Date(grant.body.data.expiresAt).getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `${days} days`);
    // Only a hash is stored.
    const stored = await repos.tokens.forUser('local:Alice');
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.hash, token);
    assert.doesNotMatch(JSON.stringify(stored), new RegExp(token.slice(4)));

    const me = await call('GET', '/user/info', { token });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.name, 'Alice');
    assert.equal(me.body.data.labels.team, (await services.users.localUsers()).find((u) => u.name === 'Alice')!.labels.team);

    // A second token, made with the first; listed without values.
    const made = await call('POST', '/user/token', { token, body: { name: 'ci', expiresInDays: 7 } });
    assert.equal(made.status, 201);
    const list = await call('GET', '/user/token', { token });
    assert.deepEqual(list.body.data.map((t: { name: string }) => t.name).sort(), ['ci', stored[0]!.name].sort());
    assert.doesNotMatch(JSON.stringify(list.body), new RegExp(made.body.data.token.slice(4)));
    assert.equal((await call('GET', '/user/info', { token: made.body.data.token })).status, 200);

    // Revoked: refused from then on, and never silently anonymous.
    assert.equal((await call('DELETE', `/user/token/${made.body.data.id}`, { token })).status, 200);
    const after = await call('GET', '/user/info', { token: made.body.data.token });
    assert.equal(after.status, 401);
    assert.match(after.body.content.message, /unknown, revoked or expired/);
    assert.equal((await call('GET', '/platform', { token: made.body.data.token })).status, 401);
    // Revoking again is harmless; someone else's token is not found.
    assert.equal((await call('DELETE', `/user/token/${made.body.data.id}`, { token })).status, 200);
    const bob = (await call('POST', '/auth/token', { body: { username: 'Bob', password: 'bob' } })).body.data.token as string;
    assert.equal((await call('DELETE', `/user/token/${stored[0]!.id}`, { token: bob })).status, 404);
  });

  test('wrong passwords are 401, and past the sign-in limit 429 with Retry-After — even for the right one', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await call('POST', '/auth/token', { body: { username: 'carol', password: 'wrong' } })).status, 401);
    const limited = await call('POST', '/auth/token', { body: { username: 'carol', password: 'carol' } });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'TooManyRequests');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await call('POST', '/auth/token', { body: { username: 'nobody', password: 'x' } })).status, 401);
  });

  test('a user name padded with spaces or in other case counts against the same account: no spelling is a fresh count', async () => {
    for (const username of [' frank', 'frank ', 'FRANK', '\tFrank', ' fRaNk\n']) {
      assert.equal((await call('POST', '/auth/token', { body: { username, password: 'wrong' } })).status, 401, JSON.stringify(username));
    }
    const limited = await call('POST', '/auth/token', { body: { username: 'frank', password: 'frank' } });
    assert.equal(limited.status, 429, 'after five failures under any spelling, the right password is refused too');
    assert.equal((await call('POST', '/auth/token', { body: { username: '  frank  ', password: 'frank' } })).status, 429);
  });

  test('expired tokens and tokens of users who are gone act for nobody', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const tokens = new TokenService(repos, services.access, services.users, new SignInLimiter(), () => now);
    const alice = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' as const };
    const t = await tokens.create(alice, { name: 'short', expiresInDays: 1 });
    assert.equal((await tokens.authenticate(t.token))?.name, 'Alice');
    now = new Date('2026-01-02T00:00:01Z');
    assert.equal(await tokens.authenticate(t.token), null);
    const ghost = await tokens.create({ id: 'local:Ghost', name: 'Ghost', labels: {}, provider: 'test' }, { name: 'x' });
    assert.equal(await tokens.authenticate(ghost.token), null, 'not in the users file');
    assert.equal(await tokens.authenticate('kst_' + 'A'.repeat(43)), null);
    assert.equal(await tokens.authenticate('not a token'), null);
  });
});
