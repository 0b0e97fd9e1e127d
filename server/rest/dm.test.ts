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
import { parse, stringify } from 'yaml';
import { DM } from '../engine/model/sources/dm';
import { memoryRepos } from '../repo/memory';
import { ResolverFailure } from '../resolver';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { serveForTests, testAuth, type TestServer } from '../testing/rest';
import { DM_PREFIX, DM_ROUTES, dmApi } from './dm';
import { openApiDocument } from './openapi';
import { REST_ROUTES } from './routes';
import type { RevisionPlan } from '../engine/plan';
import { RateLimiter } from './rate-limit';

/** The DM API over a freshly seeded demo (Sam its domain admin), for the block it is called in: started before its tests, closed after. */
function dmServer(started: (s: { server: TestServer; services: Services }) => void) {
  let s: { server: TestServer; services: Services };
  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    const services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
    s = { services, server: await serveForTests(dmApi({ services: async () => services, authenticate: testAuth, rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }) })) };
    started(s);
  });
  after(async () => {
    await s.server.close();
    await s.services.resolution.close();
  });
}

describe('Deployment Manager API (/api/dm)', () => {
  let server: TestServer;
  let services: Services;
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  dmServer((s) => ({ server, services } = s));

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
      const res = await fetch(`${server.url}${DM_PREFIX}${path}`, { method: r.method, ...(r.method === 'POST' || r.method === 'PUT' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) });
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

/**
 * Deployment Manager's write API over HTTP, as DM's clients used it: a
 * Template POSTed creates, PUT replaces (an empty configuration deletes
 * every resource), DELETE deletes — each a generation and a revision of
 * the policy, answered in DM's Deployment shape with both. Refusals
 * first: no right to the namespace (403), a bad body or a template that
 * does not expand (400/422, naming the field and the template's line), a
 * body over the size limit (413) — and none of them changes anything.
 */
describe('Deployment Manager write API (/api/dm/deployments)', () => {
  let server: TestServer;
  let services: Services;
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  dmServer((s) => ({ server, services } = s));

  const call = async (method: string, path: string, body?: unknown, user: string | null = 'Sam') => {
    const res = await fetch(`${server.url}${DM_PREFIX}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(user ? { authorization: `Bearer test:${user}` } : {}) },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  /** DM's Template of the kind's own example: its configuration as text, its files as imports. */
  const example = parse(DM.kinds.deployment.example) as { configuration: { imports: string[]; resources: { name: string; type: string; properties: object }[] }; imports: Record<string, string> };
  const template = (replicas: number, name = 'shop/web') => ({
    name,
    content: stringify({ ...example.configuration, resources: [{ ...example.configuration.resources[0]!, properties: { replicas } }] }),
    imports: Object.entries(example.imports).map(([n, content]) => ({ name: n, content })),
  });
  const head = () => services.policy.head(sam);
  /** What a refused write must leave as it was: the generation head and the deployment's manifests. */
  const unchanged = async () => ({ head: await head(), manifests: (await call('GET', '/deployments/shop%2Fweb/manifests')).body });

  test('a caller without the right to the namespace is refused (403) before the template is read, and nothing changes', async () => {
    const before = await unchanged();
    // A template that would take the expander seconds to render: refused for the price of a rights check.
    const costly = { name: 'shop/web', content: 'imports: [t.jinja]\nresources: [{name: a, type: t.jinja}]', imports: [{ name: 't.jinja', content: "{{ ''|center(10000000) }}" }] };
    for (const user of ['Alice', 'John', 'nobody']) {
      const r = await call('POST', '/deployments?target=k8s-example', costly, user);
      assert.equal(r.status, 403, `${user}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, 'Forbidden');
    }
    assert.deepEqual(await unchanged(), before);
    assert.equal((await call('GET', '/deployments/shop%2Fweb')).status, 404);
  });

  test('a malformed body, bad YAML, a template that does not expand: 400/422 naming the field (and the template’s line), and nothing changes', async () => {
    const before = await unchanged();
    const noContent = await call('POST', '/deployments?target=k8s-example', { name: 'shop/web' });
    assert.equal(noContent.status, 400);
    assert.deepEqual(noContent.body.content.issues.map((i: { where: string; path: string }) => [i.where, i.path]), [['body', 'content']]);
    const unknownField = await call('POST', '/deployments?target=k8s-example', { ...template(2), target: 'k8s-example' });
    assert.equal(unknownField.status, 400);
    const notJson = await call('POST', '/deployments?target=k8s-example', '{"name": ');
    assert.equal(notJson.status, 400);

    const noSlash = await call('POST', '/deployments?target=k8s-example', template(2, 'web'));
    assert.equal(noSlash.status, 400);
    assert.match(noSlash.body.content.message, /^name: A deployment is named namespace\/name, not "web"/);
    const noTarget = await call('POST', '/deployments', template(2));
    assert.equal(noTarget.status, 400);
    assert.match(noTarget.body.content.message, /^target: /);

    const badYaml = await call('POST', '/deployments?target=k8s-example', { ...template(2), content: 'resources:\n- name: a\n  type: [Service\n' });
    assert.equal(badYaml.status, 400, JSON.stringify(badYaml.body));
    assert.match(badYaml.body.content.message, /^content \(line \d+, column \d+\): the configuration is not YAML/);
    assert.deepEqual(badYaml.body.content.diagnostics[0].path, ['content']);
    assert.equal(typeof badYaml.body.content.diagnostics[0].line, 'number');

    const noType = await call('POST', '/deployments?target=k8s-example', { ...template(2), content: 'resources: [{name: a}]' });
    assert.equal(noType.status, 400, JSON.stringify(noType.body));
    assert.match(noType.body.content.message, /^Deployment shop\/web is not valid: configuration\.resources\[0\]\.type: /);
    assert.equal(noType.body.content.diagnostics[0].line, undefined, 'no line of text the caller never wrote');

    // The template's line 4 has the syntax error: DM's words, the template, the resource and that line.
    const broken = { name: 'shop/web', content: 'imports: [t.jinja]\nresources: [{name: a, type: t.jinja}]', imports: [{ name: 't.jinja', content: 'resources:\n- name: x\n  type: Service\n  properties: {{ nope( }}\n' }] };
    const bad = await call('POST', '/deployments?target=k8s-example', broken);
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.match(bad.body.content.message, /^cannot expand template named shop\/web \(ExpansionError: Exception in template 't\.jinja': TemplateSyntaxError: .*\(line 4\) Resource: a \(t\.jinja\)/);
    assert.deepEqual([bad.body.content.diagnostics[0].path, bad.body.content.diagnostics[0].object], [['configuration'], 'deployment/shop/web']);

    assert.deepEqual(await unchanged(), before);
  });

  test('a body over the size limit is refused (413) unread, and nothing changes', async () => {
    const before = await unchanged();
    const r = await call('POST', '/deployments?target=k8s-example', { ...template(2), content: `# ${'x'.repeat(11 * 1024 * 1024)}\nresources: []\n` });
    assert.equal(r.status, 413);
    assert.equal(r.body.code, 'PayloadTooLarge');
    assert.deepEqual(await unchanged(), before);
  });

  let created: { generation: number; revision: { id: number | null; status: string } };
  test('create: 201 with the Deployment, its generation and revision; read back through the read routes; creating it again is 409', async () => {
    const r = await call('POST', '/deployments?target=k8s-example', template(2));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    created = r.body;
    assert.equal(r.body.generation, await head());
    assert.equal(typeof r.body.revision.id, 'number');
    assert.deepEqual(await services.revisions.byGeneration(sam, r.body.generation), r.body.revision);
    assert.deepEqual([r.body.name, r.body.state, r.body.latestManifest, r.body.deletedAt], ['shop/web', { status: 'Created', errors: [] }, `manifest-${r.body.generation}`, null]);
    const { generation: _g, revision: _r, ...deployment } = r.body;
    assert.deepEqual((await call('GET', '/deployments/shop%2Fweb')).body, deployment);
    assert.deepEqual((await call('GET', '/deployments')).body, ['shop/web']);
    const m = (await call('GET', `/deployments/shop%2Fweb/manifests/${r.body.latestManifest}`)).body;
    assert.deepEqual(m.expandedConfig.resources.map((x: { name: string }) => x.name), ['frontend-service', 'frontend-rc']);
    assert.equal(m.expandedConfig.resources[1].properties.spec.replicas, 2);
    assert.deepEqual(m.inputConfig.imports.map((i: { name: string }) => i.name), ['frontend.jinja']);
    // The object the console shows: on the cluster named, written by the caller.
    const o = await services.policy.getObject(sam, { kind: 'deployment', namespace: 'shop', name: 'web' });
    assert.equal((o.spec as { target: string }).target, 'k8s-example');
    assert.equal((await services.policy.listGenerations(sam, { limit: 1 }))[0]!.author, 'Sam');

    const before = await unchanged();
    const again = await call('POST', '/deployments?target=k8s-example', template(5));
    assert.equal(again.status, 409);
    assert.match(again.body.content.message, /^Deployment shop\/web already exists/);
    assert.deepEqual(await unchanged(), before);
  });

  test('update and delete are refused (403) to a caller without the right to the namespace, and nothing changes', async () => {
    const before = await unchanged();
    for (const user of ['Alice', 'John']) {
      assert.equal((await call('PUT', '/deployments/shop%2Fweb', template(9), user)).status, 403, user);
      assert.equal((await call('DELETE', '/deployments/shop%2Fweb', undefined, user)).status, 403, user);
    }
    assert.deepEqual(await unchanged(), before);
  });

  test('update: 201, a new manifest with the new configuration, its generation and revision; the path and body must name the same deployment', async () => {
    const before = await unchanged();
    assert.equal((await call('PUT', '/deployments/shop%2Fweb', template(3, 'shop/other'))).status, 400);
    assert.equal((await call('PUT', '/deployments/shop%2Fnope', template(3, 'shop/nope'))).status, 404);
    assert.deepEqual(await unchanged(), before);

    const r = await call('PUT', '/deployments/shop%2Fweb', template(3));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.generation, await head());
    assert.ok(r.body.generation > created.generation);
    assert.notEqual(r.body.revision.id, created.revision.id);
    assert.deepEqual([r.body.state.status, r.body.latestManifest], ['Modified', `manifest-${r.body.generation}`]);
    assert.deepEqual((await call('GET', '/deployments/shop%2Fweb/manifests')).body, [`manifest-${r.body.generation}`, `manifest-${created.generation}`]);
    const m = (await call('GET', `/deployments/shop%2Fweb/manifests/manifest-${r.body.generation}`)).body;
    assert.equal(m.expandedConfig.resources[1].properties.spec.replicas, 3);
    // Kept from the deployment: the cluster it goes to.
    assert.equal(((await services.policy.getObject(sam, { kind: 'deployment', namespace: 'shop', name: 'web' })).spec as { target: string }).target, 'k8s-example');
  });

  test('update with an empty configuration: every resource is deleted (the revision plans their deletion), the deployment stays', async () => {
    const deployed = await services.revisions.byGeneration(sam, await head(), { wait: true });
    await services.revisions.decide(sam, { revisionId: deployed.id!, decision: 'accept' });
    const ours = (generation: number) => services.resolution.ensure(generation).then((r) => r.state.instances.filter((i) => i.provenance.source === 'dm' && i.key.includes('#shop#')).map((i) => i.key));
    const running = await ours(await head());
    assert.equal(running.length, 2, 'a Service and a ReplicationController');

    const r = await call('PUT', '/deployments/shop%2Fweb', { name: 'shop/web', content: '', imports: [] });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.generation, await head());
    assert.deepEqual(await ours(r.body.generation), []);
    const m = (await call('GET', `/deployments/shop%2Fweb/manifests/manifest-${r.body.generation}`)).body;
    assert.deepEqual([m.expandedConfig, m.layout], [{ resources: [] }, { resources: [] }]);
    const plan = (await services.revisions.ensureForGeneration(r.body.generation)).plan as RevisionPlan;
    assert.deepEqual(plan.steps.filter((s) => running.includes(s.key)).map((s) => [s.action, s.key]).sort(), running.map((k) => ['delete', k]).sort());
    assert.deepEqual((await call('GET', '/deployments')).body, ['shop/web']);
  });

  test('delete: 200 with the Deployment now Deleted, its generation and revision; its newest manifest is empty; deleting again is 404', async () => {
    const r = await call('DELETE', '/deployments/shop%2Fweb');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.generation, await head());
    assert.equal(typeof r.body.revision.id, 'number');
    assert.equal(r.body.state.status, 'Deleted');
    assert.ok(r.body.deletedAt);
    assert.equal(r.body.latestManifest, `manifest-${r.body.generation}`);
    assert.deepEqual((await call('GET', '/deployments')).body, []);
    const before = await unchanged();
    assert.equal((await call('DELETE', '/deployments/shop%2Fweb')).status, 404);
    assert.deepEqual(await unchanged(), before);
  });

  test('the OpenAPI document holds the write routes in DM’s shape, with their errors', () => {
    const paths = openApiDocument(REST_ROUTES).paths as Record<string, Record<string, { responses: Record<string, { content?: { 'application/json': { schema: { properties?: Record<string, unknown> } } } }> }>>;
    const create = paths[`${DM_PREFIX}/deployments`]?.post;
    assert.ok(create);
    assert.deepEqual(Object.keys(create.responses).sort(), ['201', '400', '401', '403', '404', '409', '413', '422', '429']);
    assert.ok(create.responses['201']!.content!['application/json'].schema.properties?.latestManifest, 'the Deployment is the body, not {data}');
    assert.ok(create.responses['201']!.content!['application/json'].schema.properties?.revision);
    assert.ok(paths[`${DM_PREFIX}/deployments/{d}`]?.put?.responses['422']);
    assert.ok(paths[`${DM_PREFIX}/deployments/{d}`]?.delete?.responses['403']);
  });
});

/**
 * Who may call each DM route, route by route: the refusals first (anonymous,
 * a user with no role, a consumer, a namespace admin of another namespace),
 * then the domain admin who may. A new route without a row fails the first
 * test, so its rights are decided before it ships.
 */
describe('Deployment Manager API: who may call each route', () => {
  type Who = 'anonymous' | 'nobody' | 'Alice' | 'John' | 'Sam';
  const WHO: readonly Who[] = ['anonymous', 'nobody', 'Alice', 'John', 'Sam'];
  const READ: Record<Who, number> = { anonymous: 401, nobody: 200, Alice: 200, John: 200, Sam: 200 };
  const template = (replicas: number) => {
    const example = parse(DM.kinds.deployment.example) as { configuration: { imports: string[]; resources: { name: string; type: string; properties: object }[] }; imports: Record<string, string> };
    return {
      name: 'shop/m',
      content: stringify({ ...example.configuration, resources: [{ ...example.configuration.resources[0]!, properties: { replicas } }] }),
      imports: Object.entries(example.imports).map(([name, content]) => ({ name, content })),
    };
  };
  // In route order: the writes run create → update → delete for each caller, so only Sam's change anything.
  const MATRIX: Record<string, { path: string; body?: unknown; expect: Record<Who, number> }> = {
    'POST /deployments': { path: '/deployments?target=k8s-example', body: template(2), expect: { anonymous: 401, nobody: 403, Alice: 403, John: 403, Sam: 201 } },
    'GET /deployments': { path: '/deployments', expect: READ },
    'GET /deployments/:d': { path: '/deployments/shop%2Fm', expect: READ },
    'GET /deployments/:d/manifests': { path: '/deployments/shop%2Fm/manifests', expect: READ },
    'GET /deployments/:d/manifests/:m': { path: '/deployments/shop%2Fm/manifests/{newest}', expect: READ },
    'GET /types': { path: '/types', expect: READ },
    'GET /types/:t/instances': { path: '/types/Service/instances', expect: READ },
    // Expanding is writing without saving: it needs a right to manage deployments somewhere (John has one, in his namespace).
    'POST /expand': { path: '/expand', body: { name: 'try', content: 'resources: [{name: a, type: Service}]', imports: [] }, expect: { anonymous: 401, nobody: 403, Alice: 403, John: 201, Sam: 201 } },
    'PUT /deployments/:d': { path: '/deployments/shop%2Fm', body: template(3), expect: { anonymous: 401, nobody: 403, Alice: 403, John: 403, Sam: 201 } },
    'DELETE /deployments/:d': { path: '/deployments/shop%2Fm', expect: { anonymous: 401, nobody: 403, Alice: 403, John: 403, Sam: 200 } },
  };
  let server: TestServer;
  dmServer((s) => ({ server } = s));

  test('every route has a row, and every row a route', () => {
    const routes = DM_ROUTES.map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(routes.filter((r) => !MATRIX[r]), [], 'DM routes without a row');
    assert.deepEqual(Object.keys(MATRIX).filter((r) => !routes.includes(r)), [], 'rows for DM routes that do not exist');
  });

  test('each caller gets the row’s status on every route, refusals before the one who may', async () => {
    const got: Record<string, Partial<Record<Who, number>>> = {};
    for (const [route, row] of Object.entries(MATRIX)) {
      const [method] = route.split(' ') as [string];
      got[route] = {};
      // {newest}: the deployment's newest manifest, by name (its generation is known only once Sam has created it).
      const newest = row.path.includes('{newest}') ? ((await (await fetch(`${server.url}${DM_PREFIX}/deployments/shop%2Fm/manifests`, { headers: { authorization: 'Bearer test:Sam' } })).json()) as string[])[0]! : '';
      const path = row.path.replace('{newest}', newest);
      for (const who of WHO) {
        const res = await fetch(`${server.url}${DM_PREFIX}${path}`, {
          method,
          headers: { ...(who === 'anonymous' ? {} : { authorization: `Bearer test:${who}` }), ...(row.body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(row.body !== undefined ? { body: JSON.stringify(row.body) } : {}),
        });
        got[route][who] = res.status;
        await res.body?.cancel();
      }
    }
    assert.deepEqual(got, Object.fromEntries(Object.entries(MATRIX).map(([r, row]) => [r, row.expect])));
  });
});
