/**
 * A tenant's resources whatever their kind, with where each is used, and
 * the ports it holds (Axebow's listing without a kind, and `usedports`),
 * over HTTP: members only, nothing secret, every service using each.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Repos } from '../repo/types';
import { restHarness } from '../testing/rest';
import { API_PREFIX } from './dispatch';
import { REST_ROUTES } from './index';
import { openApiDocument } from './openapi';


/** Alice's service shares her demo dev claim's instances: without it, its labels conflict with none. */
async function withoutDemoDevClaims(repos: Repos): Promise<void> {
  const deletes = ['alice_dev', 'bob_dev'].map((name) => ({ kind: 'claim', namespace: 'social', name }));
  await repos.policy.commit({ baseGeneration: await repos.policy.head(), author: 'keelson', message: 'no demo dev claims', upserts: [], deletes });
}

describe('REST API: resources of every kind, used in, and used ports', () => {
  const api = restHarness({ freeNamespaces: ['acme-*', 'beta-*'], secretKey: Buffer.alloc(32, 3), prepare: withoutDemoDevClaims });
  const call = api.call;

  test('members see every resource with the services using it, and the ports the tenant holds; others nothing', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    assert.equal((await call('Bob', 'POST', '/tenant/beta', { namespaces: ['beta-web'] })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/user/Carol?role=plain')).status, 201);
    assert.equal((await call('Carol', 'PUT', '/tenant/acme/user?role=plain')).status, 200);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main', {})).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example' })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/port/web', { data: 30180 })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/port/admin', { data: 30181 })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/secret/db', { data: 'hunter2' })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/domain/shop', { data: 'shop.example.com' })).status, 201);
    assert.equal((await call('Bob', 'POST', '/tenant/beta/port/www', { data: 30182 })).status, 201);
    const svc = await call('Alice', 'POST', '/tenant/acme/service/stats', { service: 'social/twitter_stats', environment: 'main/prod', labels: { tsvisimage: 'demo12', ingress: 'port:web', password: 'secret:db' } });
    assert.equal(svc.status, 202, JSON.stringify(svc.body));
    const alice = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' as const };
    // A claim written in the policy directly, naming no environment, uses it too.
    await api.services.policy.apply(alice, {
      text: 'kind: claim\nmetadata: {namespace: acme-web, name: batch}\nuser: Alice\nservice: social/twitter_stats\nlabels: {tsvisimage: demo12, ingress: "port:web"}\n',
      baseGeneration: await api.services.policy.head(alice),
    });

    // Denied first: without credentials, and to someone outside the tenant.
    for (const path of ['/tenant/acme/resource', '/tenant/acme/usedports']) {
      assert.equal((await call(null, 'GET', path)).status, 401, path);
      const outsider = await call('Bob', 'GET', path);
      assert.equal(outsider.status, 403, path);
      assert.match(String(outsider.body.content?.message), /Only members of tenant acme/);
      assert.equal((await call('Alice', 'GET', path.replace('acme', 'nowhere'))).status, 404, path);
    }

    const all = await call('Carol', 'GET', '/tenant/acme/resource');
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(all.body.data, {
      ca: [],
      certificate: [],
      domain: [{ name: 'shop', usedIn: [] }],
      port: [
        { name: 'admin', usedIn: [] },
        {
          name: 'web',
          usedIn: [
            { service: 'batch', environment: null },
            { service: 'stats', environment: 'main/prod' },
          ],
        },
      ],
      secret: [{ name: 'db', usedIn: [{ service: 'stats', environment: 'main/prod' }] }],
      volume: [],
    });
    assert.doesNotMatch(JSON.stringify(all.body), /hunter2|30182|www/, "no secret, nothing of another tenant's");

    const ports = await call('Carol', 'GET', '/tenant/acme/usedports');
    assert.equal(ports.status, 200, JSON.stringify(ports.body));
    assert.deepEqual(ports.body.data.usedports, [30180, 30181]);
    assert.deepEqual(ports.body.data.ports, [
      { port: 30180, name: 'web', usedIn: [{ service: 'batch', environment: null }, { service: 'stats', environment: 'main/prod' }] },
      { port: 30181, name: 'admin', usedIn: [] },
    ]);
    assert.deepEqual((await call('Bob', 'GET', '/tenant/beta/usedports')).body.data.usedports, [30182]);
  });

  test('the OpenAPI document has both routes and what they answer', () => {
    const doc = openApiDocument(REST_ROUTES) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const all = doc.paths[`${API_PREFIX}/tenant/{tenant}/resource`]?.get;
    const ports = doc.paths[`${API_PREFIX}/tenant/{tenant}/usedports`]?.get;
    assert.ok(all && ports, 'documented');
    assert.match(JSON.stringify(all.responses['200']), /"usedIn"/);
    assert.match(JSON.stringify(ports.responses['200']), /"usedports"/);
    for (const op of [all, ports]) assert.ok(op.responses['401'] && op.responses['403'] && op.responses['404']);
  });
});
