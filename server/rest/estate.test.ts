/**
 * Accounts and environments through the REST API, as a tenant's people use
 * them: owners set up, plain members read, marks are handed down without
 * over-committing, a cluster must admit the tenant, and usage is what the
 * accepted revision runs in the tenant's namespaces.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadLocalUsers } from '../auth/users';
import { memoryRepos } from '../repo/memory';
import type { Actor } from '../services/actor';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { serveForTests, testAuth, type TestServer } from '../testing/rest';
import { API_PREFIX } from './dispatch';
import { restApi } from './index';
import { restHarness } from '../testing/rest';
import { createCaller } from '../api/root';
import { RateLimiter } from './rate-limit';

const SAM: Actor = { id: 'local:Sam', name: 'Sam', labels: loadLocalUsers().find((u) => u.name === 'Sam')!.labels, provider: 'test' };

describe('REST API: accounts and environments', () => {
  let server: TestServer;
  let services: Services;

  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [], freeNamespaces: ['acme-*'] });
    server = await serveForTests(restApi({ services: async () => services, authenticate: testAuth, rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }) }));
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
  });

  const call = async (user: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${API_PREFIX}${path}`, {
      method,
      headers: { authorization: `Bearer test:${user}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> & Record<string, unknown>[]; code?: string; content?: Record<string, unknown> } };
  };

  test('owners set up accounts and environments; plain members read; marks stay within the account', async () => {
    assert.equal((await call('John', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    assert.equal((await call('John', 'POST', '/tenant/acme/user/Bob?role=plain')).status, 201);
    assert.equal((await call('Bob', 'PUT', '/tenant/acme/user?role=plain')).status, 200);

    const acc = await call('John', 'POST', '/tenant/acme/account/main', { marks: { vcpu: 4, memory: '8Gi' }, labels: { billing: 'eu' } });
    assert.equal(acc.status, 201);
    assert.deepEqual([acc.body.data?.name, acc.body.data?.marks, acc.body.data?.environments], ['main', { vcpu: 4, memory: '8Gi' }, []]);
    assert.equal((await call('John', 'POST', '/tenant/acme/account/main', {})).status, 409);
    // A plain member reads but does not set up.
    assert.equal((await call('Bob', 'GET', '/tenant/acme/account/main')).status, 200);
    const denied = await call('Bob', 'POST', '/tenant/acme/account/other', {});
    assert.equal(denied.status, 403);
    assert.match(String(denied.body.content?.message), /Only owners and admins of tenant acme may add accounts \(you are plain\)/);

    const prod = await call('John', 'POST', '/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example', marks: { vcpu: '3000m', memory: '4Gi' }, meta: { zone: 'eu-1' } });
    assert.equal(prod.status, 201, JSON.stringify(prod.body));
    assert.deepEqual([prod.body.data?.cluster, prod.body.data?.namespace, prod.body.data?.meta], ['system/k8s-example', null, { zone: 'eu-1' }]);
    assert.deepEqual(prod.body.data?.status, { state: 'ok', over: [] });

    // 3 of 4 vCPU are handed to prod: 2 more is one too many.
    const dev = await call('John', 'POST', '/tenant/acme/account/main/environment/dev', { cluster: 'k8s-example', marks: { vcpu: 2, memory: '1Gi' } });
    assert.equal(dev.status, 409);
    assert.equal(dev.body.code, 'MarksExceedParent');
    assert.deepEqual(dev.body.content?.over, [{ dimension: 'vcpu', mark: 4000, requested: 5000 }]);
    assert.equal((await call('John', 'POST', '/tenant/acme/account/main/environment/dev', { cluster: 'k8s-example', marks: { vcpu: 1, memory: '1Gi' } })).status, 201);
    // Nor may the account shrink below what its environments hold.
    const shrink = await call('John', 'PATCH', '/tenant/acme/account/main', { marks: { vcpu: 2 } });
    assert.equal(shrink.status, 409);
    assert.equal(shrink.body.code, 'MarksExceedParent');

    const list = await call('Bob', 'GET', '/tenant/acme/account/main/environment');
    assert.deepEqual((list.body.data as unknown as { name: string }[]).map((e) => e.name), ['dev', 'prod']);
    assert.equal((await call('Bob', 'DELETE', '/tenant/acme/account/main/environment/dev')).status, 403);
    assert.equal((await call('John', 'DELETE', '/tenant/acme/account/main/environment/dev')).status, 200);
    // An account with environments goes only when purged, and only by an owner.
    assert.equal((await call('John', 'DELETE', '/tenant/acme/account/main')).status, 409);
  });

  test('an environment needs a cluster that exists and admits the tenant', async () => {
    assert.equal((await call('John', 'POST', '/tenant/acme/account/main/environment/x', { cluster: 'nowhere' })).status, 404);
    // A cluster that admits only another namespace (written by Sam, a domain admin of the demo policy).
    await services.policy.apply(SAM, {
      text: 'kind: cluster\nmetadata: {namespace: system, name: closed}\ntype: kubernetes\nallowedNamespaces: [platform]\n',
      baseGeneration: await services.policy.head(SAM),
    });
    const refused = await call('John', 'POST', '/tenant/acme/account/main/environment/x', { cluster: 'closed' });
    assert.equal(refused.status, 403);
    assert.match(String(refused.body.content?.message), /does not admit tenant acme's namespaces \(acme-web\)/);
    // A tenant without namespaces cannot have environments yet.
    assert.equal((await call('Bob', 'POST', '/tenant/bare', {})).status, 201);
    assert.equal((await call('Bob', 'POST', '/tenant/bare/account/a', {})).status, 201);
    const none = await call('Bob', 'POST', '/tenant/bare/account/a/environment/x', { cluster: 'k8s-example' });
    assert.equal(none.status, 409);
    assert.match(String(none.body.content?.message), /no policy namespace yet/);
    // Bad input names the field.
    const bad = await call('John', 'POST', '/tenant/acme/account/main/environment/y', { cluster: 'k8s-example', marks: { vcpu: 'lots' } });
    assert.equal(bad.status, 400);
    assert.equal((bad.body.content?.issues as { path: string }[])[0]?.path, 'marks.vcpu');
  });

  test("usage is what the accepted revision runs in the tenant's namespaces on the cluster", async () => {
    const sam = SAM;
    // Sam (domain admin) gives the demo's social namespace to a tenant and accepts the demo's revision.
    assert.equal((await call('Sam', 'POST', '/tenant/socialco', { namespaces: ['social'] })).status, 201);
    assert.equal((await call('Sam', 'POST', '/tenant/socialco/account/main', {})).status, 201);
    const env = await call('Sam', 'POST', '/tenant/socialco/account/main/environment/prod', { cluster: 'k8s-example', marks: { instances: 1 } });
    assert.equal(env.status, 201, JSON.stringify(env.body));
    assert.deepEqual(env.body.data?.usage, { vcpu: 0, memory: 0, storage: 0, instances: 0, services: 0 }, 'nothing accepted yet');
    const rev = await services.revisions.ensureForGeneration(await services.policy.head(sam));
    await services.revisions.decide(sam, { revisionId: rev.id, decision: 'accept' });
    const after = await call('Sam', 'GET', '/tenant/socialco/account/main/environment/prod');
    const usage = after.body.data?.usage as { instances: number };
    assert.ok(usage.instances > 1, JSON.stringify(after.body.data));
    assert.deepEqual(after.body.data?.status, { state: 'over-marks', over: ['instances'] });
  });
});

describe('REST API: environments sharing a cluster', () => {
  const api = restHarness({ freeNamespaces: ['acme-*'] });
  const call = api.call;
  type Usage = { vcpu: number; memory: number; instances: number; services: number };

  test('each environment counts the services placed in it, the cluster total apart; an omitted mark is bounded by the account', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main', { marks: { vcpu: 8, memory: '16Gi' } })).status, 201);
    // Neither names a memory mark: each is bounded by what the account leaves, not counted as the account's whole 16Gi.
    for (const [name, vcpu] of [['prod', 2], ['dev', 4]] as const) {
      const env = await call('Alice', 'POST', `/tenant/acme/account/main/environment/${name}`, { cluster: 'k8s-example', marks: { vcpu } });
      assert.equal(env.status, 201, `${name}: ${JSON.stringify(env.body)}`);
    }
    const created = await call('Alice', 'POST', '/tenant/acme/service/stats', { service: 'social/twitter_stats', environment: 'main/dev', labels: { tsvisimage: 'demo12' } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    assert.equal((await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${created.body.data?.revision.id}?accept=true`)).status, 200);

    const dev = (await call('Alice', 'GET', '/tenant/acme/account/main/environment/dev')).body.data!;
    const prod = (await call('Alice', 'GET', '/tenant/acme/account/main/environment/prod')).body.data!;
    const devUsage = dev.usage as Usage;
    assert.equal(devUsage.services, 1, JSON.stringify(dev));
    assert.ok(devUsage.instances > 0 && devUsage.vcpu > 0);
    assert.deepEqual(prod.usage, { vcpu: 0, memory: 0, storage: 0, instances: 0, services: 0 }, 'nothing is placed in prod');
    assert.deepEqual(prod.status, { state: 'ok', over: [] });
    // The cluster's total is the same seen from either environment: the tenant's whole use of k8s-example.
    assert.deepEqual(prod.clusterUsage, dev.clusterUsage);
    assert.deepEqual(dev.clusterUsage, dev.usage);
    // The console's tenant page reads the same figures for every environment at once.
    const alice: Actor = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' };
    const page = await createCaller({ actor: alice, services: api.services }).tenants.environments({ tenant: 'acme' });
    assert.deepEqual(
      page.map((e) => [`${e.account}/${e.name}`, e.usage.services, e.clusterUsage.services]),
      [
        ['main/dev', 1, 1],
        ['main/prod', 0, 1],
      ],
    );
    // Without an instances mark of its own, dev is held to the account's: one instance is fewer than it runs.
    assert.equal((await call('Alice', 'PATCH', '/tenant/acme/account/main', { marks: { vcpu: 8, memory: '16Gi', instances: 1 } })).status, 200);
    assert.deepEqual((await call('Alice', 'GET', '/tenant/acme/account/main/environment/dev')).body.data?.status, { state: 'over-marks', over: ['instances'] });
    // Moving the service to prod counts it in prod, though its stored labels still say dev: prod has room for one instance.
    const moved = await call('Alice', 'PATCH', `/tenant/acme/service/stats/revision/${created.body.data?.revision.id}`, { environment: 'main/prod' });
    assert.equal(moved.status, 422, JSON.stringify(moved.body));
    assert.match(String(moved.body.content?.message), /would take environment main\/prod over its marks \(instances: \d+ needed, 1 allowed\)/);
  });
});
