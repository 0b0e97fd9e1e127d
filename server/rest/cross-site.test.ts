/**
 * Cross-site writes through the console's session cookie, over real HTTP:
 * a page on another origin posts a bundle to create a service in the
 * signed-in user's name (multipart needs no CORS preflight, and a page on
 * another port of the same host is same-site, so the cookie goes along).
 * REST, the Deployment Manager routes and tRPC authenticate through
 * `bearerOrSession`, which refuses it; the console's own pages, scripts
 * without a browser's headers and bearer tokens are unaffected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '../api/root';
import { contextForRequest } from '../api/request-context';
import { loadLocalUsers } from '../auth/users';
import { writeZip } from '../loader/zip';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import type { Actor } from '../services/actor';
import { serveForTests, type TestServer } from '../testing/rest';
import { API_PREFIX } from './dispatch';
import { DM_PREFIX, dmApi } from './dm';
import { bearerOrSession } from '../auth/bearer';
import { restApi } from './index';
import { RateLimiter } from './rate-limit';

const alice = (): Actor => ({ id: 'local:Alice', name: 'Alice', labels: loadLocalUsers().find((u) => u.name === 'Alice')!.labels, provider: 'local' });
const CONSOLE_URL = 'https://keelson.example.com';

/** A bundle whose deployment module is Alice's claim on the demo's twitter_stats (with her demo claim's image: the same instances, the same parameters). */
const bundle = (name: string) =>
  writeZip(
    [{ path: 'deployment/main.yaml', bytes: new TextEncoder().encode(`kind: claim\nmetadata: {namespace: acme-web, name: ${name}}\nuser: Alice\nservice: social/twitter_stats\nlabels: {tsvisimage: demo12}\n`) }],
    (b) => deflateRawSync(b),
  );

describe('cross-site writes through the session cookie', () => {
  let services: Services;
  let server: TestServer;
  let token: string;
  const unlimited = () => new RateLimiter({ perSecond: 1e6, burst: 1e6 });

  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'], freeNamespaces: ['acme-*'] });
    // Every request without an Authorization header carries Alice's session cookie, as her browser would send it.
    const authenticate = bearerOrSession((t) => services.tokens.authenticate(t), async () => alice(), { consoleUrl: () => CONSOLE_URL });
    const rest = restApi({ services: async () => services, authenticate, rateLimit: unlimited() });
    const dm = dmApi({ services: async () => services, authenticate, rateLimit: unlimited() });
    const trpc = (req: Request) =>
      fetchRequestHandler({ endpoint: '/api/trpc', req, router: appRouter, createContext: ({ req }) => contextForRequest(req, services, async () => alice(), () => CONSOLE_URL) });
    server = await serveForTests(rest, [
      { prefix: `${DM_PREFIX}/`, handle: dm },
      { prefix: '/api/trpc/', handle: trpc },
    ]);
    for (const [path, body] of [
      ['/tenant/acme', { namespaces: ['acme-web'] }],
      ['/tenant/acme/account/main', {}],
      ['/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example' }],
    ] as const) {
      const r = await fetch(`${server.url}${API_PREFIX}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(r.status, 201, `${path}: ${await r.text()}`);
    }
    token = (await services.tokens.create(alice(), { name: 'script' })).token;
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
  });

  /** The attack: a bundle posted as multipart with `?accept=true`, carrying whatever headers the browser added. */
  const create = async (name: string, headers: Record<string, string>) => {
    const form = new FormData();
    form.set('bundle', new Blob([Uint8Array.from(bundle(name))], { type: 'application/zip' }), 'bundle.zip');
    form.set('spec', JSON.stringify({ environment: 'main/prod' }));
    return fetch(`${server.url}${API_PREFIX}/tenant/acme/service/${name}?accept=true`, { method: 'POST', headers, body: form });
  };
  const services_ = async () => (await services.deployments.list(alice(), 'acme')).map((s) => s.name).sort();

  test('a page on another origin cannot create a service in the signed-in user’s name; nothing is written', async () => {
    const head = await services.policy.head(alice());
    for (const headers of <Record<string, string>[]>[
      { origin: 'http://localhost:5199', 'sec-fetch-site': 'same-site' }, // another port of the same host: the cookie goes along
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://localhost:5199' }, // an older browser: Origin alone
      { origin: 'null' }, // a sandboxed frame
    ]) {
      const r = await create('stolen', headers);
      assert.equal(r.status, 403, JSON.stringify(headers));
      const body = (await r.json()) as { code: string; content: { message: string } };
      assert.equal(body.code, 'Forbidden');
      assert.match(body.content.message, /must come from the console's own pages/);
    }
    assert.equal(await services.policy.head(alice()), head, 'no generation was written');
    assert.deepEqual(await services_(), []);
  });

  test('the console’s own pages, scripts without a browser’s headers and bearer tokens still create', async () => {
    assert.equal((await create('own', { origin: CONSOLE_URL, 'sec-fetch-site': 'same-origin' })).status, 202, 'the console’s page');
    // An older browser on the console: Origin alone, matching NEXTAUTH_URL or the Host it was sent to.
    assert.equal((await create('proxied', { origin: CONSOLE_URL })).status, 202, 'Origin is NEXTAUTH_URL');
    assert.equal((await create('direct', { origin: server.url })).status, 202, 'Origin is the Host the request went to');
    assert.equal((await create('script', {})).status, 202, 'no Origin, no Sec-Fetch-Site: no browser sent it cross-site');
    // A bearer token is no ambient credential: where the request comes from does not matter.
    const bearer = await create('bearer', { authorization: `Bearer ${token}`, origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site' });
    assert.equal(bearer.status, 202);
    assert.deepEqual(await services_(), ['bearer', 'direct', 'own', 'proxied', 'script']);
  });

  test('reads are not refused, whatever their origin: they change nothing and another origin cannot read the answer', async () => {
    const r = await fetch(`${server.url}${API_PREFIX}/tenant/acme/service`, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    assert.equal(r.status, 200);
  });

  test('the Deployment Manager routes and tRPC refuse the same', async () => {
    const cross = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' };
    const expand = JSON.stringify({ name: 'try', content: 'resources: []' });
    const dm = await fetch(`${server.url}${DM_PREFIX}/expand`, { method: 'POST', headers: cross, body: expand });
    assert.equal(dm.status, 403);
    assert.equal((await fetch(`${server.url}${DM_PREFIX}/expand`, { method: 'POST', headers: { ...cross, 'sec-fetch-site': 'same-origin', origin: CONSOLE_URL }, body: expand })).status, 201);
    // DM's writes, by construction: refused before their route is asked.
    for (const [method, path] of [['POST', '/deployments'], ['PUT', '/deployments/shop%2Fweb'], ['DELETE', '/deployments/shop%2Fweb']] as const) {
      const r = await fetch(`${server.url}${DM_PREFIX}${path}`, { method, headers: cross, ...(method === 'DELETE' ? {} : { body: JSON.stringify({ name: 'shop/web', content: '' }) }) });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.match(JSON.stringify(await r.json()), /console's own pages/, `${method} ${path}`);
    }

    const mutation = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/trpc/tokens.create`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ json: { name: 'minted' } }) });
    const refused = await mutation({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    assert.equal(refused.status, 403);
    assert.match(JSON.stringify(await refused.json()), /FORBIDDEN.*must come from the console's own pages|must come from the console's own pages.*FORBIDDEN/);
    assert.equal((await mutation({ origin: CONSOLE_URL, 'sec-fetch-site': 'same-origin' })).status, 200);
    assert.deepEqual((await services.tokens.list(alice())).map((t) => t.name).sort(), ['minted', 'script'], 'only the console’s own call minted a token');
  });
});
