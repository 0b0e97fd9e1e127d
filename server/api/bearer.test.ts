/**
 * tRPC accepts API tokens as the REST API does: `Authorization: Bearer
 * kst_…` acts for the token's user; a malformed header or an unknown,
 * revoked or expired token is 401 UNAUTHORIZED, never anonymous.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import type { Actor } from '../services/actor';
import { serveConsoleForTests } from '../testing/console';
import type { TestServer } from '../testing/rest';

describe('tRPC: bearer API tokens', () => {
  let server: TestServer;
  let services: Services;
  const alice: Actor = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' };

  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    server = await serveConsoleForTests(services);
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
  });

  const me = async (authorization?: string) => {
    const res = await fetch(`${server.url}/api/trpc/users.me`, { headers: authorization ? { authorization } : {} });
    return { status: res.status, body: (await res.json()) as { result?: { data: { json: { name: string } } }; error?: { json: { message: string; data: { code: string } } } } };
  };

  test('a live token acts for its user', async () => {
    const t = await services.tokens.create(alice, { name: 'trpc' });
    const r = await me(`Bearer ${t.token}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result!.data.json.name, 'Alice');
    // Used: lastUsedAt is set.
    const [row] = (await services.tokens.list(alice)).filter((x) => x.id === t.id);
    assert.ok(row!.lastUsedAt);
  });

  test('no header is anonymous (and users.me refuses anonymous callers)', async () => {
    const r = await me();
    assert.equal(r.status, 401);
    assert.equal(r.body.error!.json.data.code, 'UNAUTHORIZED');
    assert.match(r.body.error!.json.message, /Sign in first/);
  });

  test('a revoked, an unknown or a malformed credential is 401, not anonymous', async () => {
    const t = await services.tokens.create(alice, { name: 'to revoke' });
    await services.tokens.revoke(alice, t.id);
    for (const h of [`Bearer ${t.token}`, `Bearer kst_${'x'.repeat(43)}`, 'Bearer nope', 'Basic YWxpY2U6YWxpY2U=']) {
      const r = await me(h);
      assert.equal(r.status, 401, h);
      assert.equal(r.body.error!.json.data.code, 'UNAUTHORIZED', h);
      assert.doesNotMatch(r.body.error!.json.message, /Sign in first/, h);
    }
    // A public procedure too: a wrong token is refused before any procedure runs.
    const res = await fetch(`${server.url}/api/trpc/policy.schemas`, { headers: { authorization: `Bearer ${t.token}` } });
    assert.equal(res.status, 401);
  });
});
