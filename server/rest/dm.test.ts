/**
 * Deployment Manager's read API over HTTP, as DM's clients used it: a
 * deployment's manifests follow its changes (one per generation, an empty
 * one when it is deleted), types and where they are used, a dry-run
 * expand — every route refused to anonymous callers and open to readers,
 * but expand: expanding is writing a deployment without saving it, so it
 * needs the right to manage deployments somewhere, asked before the
 * template is read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { DM } from '../engine/model/sources/dm';
import { memoryRepos } from '../repo/memory';
import { ResolverFailure } from '../resolver';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { serveForTests, testAuth, type TestServer } from '../testing/rest';
import { DM_PREFIX, DM_ROUTES, dmApi } from './dm';
import { RateLimiter } from './rate-limit';

describe('Deployment Manager API (/api/dm)', () => {
  let server: TestServer;
  let services: Services;
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
    server = await serveForTests(dmApi({ services: async () => services, authenticate: testAuth, rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }) }));
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
  });

  const get = async (path: string, user: string | null = 'Alice') => {
    const res = await fetch(`${server.url}${DM_PREFIX}${path}`, { headers: user ? { authorization: `Bearer test:${user}` } : {} });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const post = async (path: string, body: unknown, user: string | null = 'Alice') => {
    const res = await fetch(`${server.url}${DM_PREFIX}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(user ? { authorization: `Bearer test:${user}` } : {}) }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  /** The kind's own example, in namespace shop, with `replicas`. */
  const deployment = (replicas: number) =>
    DM.kinds.deployment.example.replace('namespace: main', 'namespace: shop').replace('name: my-deployment', 'name: web').replace('replicas: 2', `replicas: ${replicas}`);
  const apply = async (text: string) => services.policy.apply(sam, { text, baseGeneration: await services.policy.head(sam) });

  test('every route: anonymous callers get 401', async () => {
    for (const r of DM_ROUTES) {
      const path = r.path.replace(':d', 'shop%2Fweb').replace(':m', 'manifest-1').replace(':t', 'Service');
      const res = await fetch(`${server.url}${DM_PREFIX}${path}`, { method: r.method, ...(r.method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) });
      assert.equal(res.status, 401, `${r.method} ${r.path}`);
    }
  });

  test('a deployment’s manifests follow its changes; its state follows its revision', async () => {
    const first = await apply(deployment(2));
    assert.deepEqual((await get('/deployments')).body, ['shop/web']);
    const d1 = await get('/deployments/shop%2Fweb');
    assert.equal(d1.status, 200);
    assert.equal(d1.body.state.status, 'Created');
    assert.equal(d1.body.latestManifest, `manifest-${first.generation}`);
    const second = await apply(deployment(3));
    assert.deepEqual((await get('/deployments/shop%2Fweb/manifests')).body, [`manifest-${second.generation}`, `manifest-${first.generation}`]);
    assert.equal((await get('/deployments/shop%2Fweb')).body.state.status, 'Modified');
    const m = (await get(`/deployments/shop%2Fweb/manifests/manifest-${second.generation}`)).body;
    assert.deepEqual(m.expandedConfig.resources.map((r: { name: string }) => r.name), ['frontend-service', 'frontend-rc']);
    assert.equal(m.expandedConfig.resources[1].properties.spec.replicas, 3);
    assert.deepEqual(m.layout.resources[0].resources.map((r: { type: string }) => r.type), ['Service', 'ReplicationController']);
    assert.match(m.inputConfig.content, /type: frontend\.jinja/);
    assert.deepEqual(m.inputConfig.imports.map((i: { name: string }) => i.name), ['frontend.jinja']);
    assert.equal((await get(`/deployments/shop%2Fweb/manifests/manifest-1`)).status, 404, 'a generation that did not change it');
  });

  test('types in use, and where: name, deployment, manifest and JSON path in the layout', async () => {
    assert.deepEqual((await get('/types')).body, ['ReplicationController', 'Service', 'frontend.jinja']);
    const services_ = (await get('/types/Service/instances')).body;
    assert.equal(services_.length, 1);
    assert.deepEqual({ ...services_[0], manifest: undefined }, { name: 'frontend-service', type: 'Service', deployment: 'shop/web', manifest: undefined, path: '$.resources[0].resources[0]' });
    assert.equal((await get('/types/all/instances')).body.length, 3);
  });

  test('a dry-run expand stores nothing; a bad template is 400 with DM’s words', async () => {
    const head = await services.policy.head(sam);
    const ok = await post('/expand', { name: 'try', content: stringify({ imports: ['t.jinja'], resources: [{ name: 'a', type: 't.jinja' }] }), imports: [{ name: 't.jinja', content: 'resources:\n- {name: x, type: Service}\n' }] }, 'John');
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual(ok.body.expandedConfig.resources, [{ name: 'x', type: 'Service' }]);
    assert.equal(await services.policy.head(sam), head);
    const bad = await post('/expand', { name: 'try', content: 'resources: [{name: a, type: t.jinja}]', imports: [{ name: 't.jinja', content: '{{ nope(' }] }, 'John');
    assert.equal(bad.status, 400);
    assert.match(bad.body.content.message, /^cannot expand template named try \(ExpansionError: /);
    // The same failure in the one shape every stage reports: a code of the table, DM's words.
    const [d] = bad.body.content.diagnostics as { code: string; severity: string; message: string }[];
    assert.deepEqual([d?.code, d?.severity], ['template', 'error']);
    assert.ok(bad.body.content.message.includes(d!.message), 'the diagnostic holds the words the message quotes');
  });

  test('expand is refused (403) to those who may manage no deployment anywhere — a consumer, a user with no role — before the template is read', async () => {
    // A template that would take the expander seconds to render: refused for the price of a rights check.
    const costly = { name: 'try', content: 'resources: [{name: a, type: t.jinja}]', imports: [{ name: 't.jinja', content: "{{ ''|center(10000000) }}" }] };
    for (const user of ['Alice', 'nobody']) {
      const r = await post('/expand', costly, user);
      assert.equal(r.status, 403, `${user}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.content.message, /may not expand Deployment Manager templates: you have no role that lets you change deployments in any namespace/);
    }
  });

  test('an expand the server gives up on (over its time budget, or its thread gone) is answered with the reason, never a 500', async () => {
    const own = services.resolution.expandDm;
    const template = { name: 'try', content: 'resources: [{name: a, type: t.jinja}]', imports: [{ name: 't.jinja', content: 'resources: []' }] };
    try {
      services.resolution.expandDm = () => Promise.reject(new ResolverFailure('it took longer than 20 s (expanding a template)'));
      const slow = await post('/expand', template, 'John');
      assert.equal(slow.status, 422, JSON.stringify(slow.body));
      assert.equal(slow.body.content.message, 'The server stopped this work: it took longer than 20 s (expanding a template).');
      services.resolution.expandDm = () => Promise.reject(new ResolverFailure('its thread stopped (exit code 1)', 'UNAVAILABLE'));
      const gone = await post('/expand', template, 'John');
      assert.equal(gone.status, 503, JSON.stringify(gone.body));
      assert.match(gone.body.content.message, /its thread stopped/);
    } finally {
      services.resolution.expandDm = own;
    }
  });

  test('deleted: an empty manifest is recorded, the state is Deleted, and it leaves the list', async () => {
    const del = await services.policy.delete(sam, { ids: [{ kind: 'deployment', namespace: 'shop', name: 'web' }], baseGeneration: await services.policy.head(sam) });
    const d = (await get('/deployments/shop%2Fweb')).body;
    assert.equal(d.state.status, 'Deleted');
    assert.ok(d.deletedAt);
    const m = (await get(`/deployments/shop%2Fweb/manifests/manifest-${del.generation}`)).body;
    assert.deepEqual([m.expandedConfig, m.layout, m.inputConfig.content], [{ resources: [] }, { resources: [] }, '']);
    assert.deepEqual((await get('/deployments')).body, []);
    assert.equal((await get('/deployments/nope%2Fnothing')).status, 404);
    assert.equal((await get('/deployments/noslash')).status, 400);
  });
});
