/**
 * The REST API over real HTTP (a loopback server running the same
 * dispatcher as the Next.js route): the authorisation matrix — every route
 * has rows, and each row is a real request as five people of the demo
 * policy — then the envelope and every refusal a client can meet, and the
 * OpenAPI document.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { DEMO_USERS_FILE } from '../auth/users';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { API_PREFIX, createRestCore, nodeHandler, webHandler } from './dispatch';
import { restApi, REST_ROUTES } from './index';
import { openApiDocument } from './openapi';
import { RateLimiter } from './rate-limit';
import { serveForTests, testAuth, type TestServer } from '../testing/rest';

type Who = 'anonymous' | 'outsider' | 'consumer' | 'nsadmin' | 'domain';
const WHO: readonly Who[] = ['anonymous', 'outsider', 'consumer', 'nsadmin', 'domain'];
const NAMES: Record<Exclude<Who, 'anonymous'>, string> = { outsider: 'nina', consumer: 'Alice', nsadmin: 'John', domain: 'Sam' };

interface Fixture {
  services: Services;
  who: Who;
  /** Who is calling, by policy name (Sam for anonymous). */
  name: string;
  uid: string;
  /** Call the API as someone else (to set a case up). */
  as(name: string, method: string, path: string, body?: unknown): Promise<Response>;
}

interface Row {
  what: string;
  /** The request: path below the version prefix, and a body. */
  request(f: Fixture): Promise<{ path: string; body?: unknown }> | { path: string; body?: unknown };
  expect: Record<Who, number>;
}

const signedIn = (status: number): Record<Who, number> => ({ anonymous: 401, outsider: status, consumer: status, nsadmin: status, domain: status });
const DOMAIN_ONLY: Record<Who, number> = { anonymous: 401, outsider: 403, consumer: 403, nsadmin: 403, domain: 200 };

/** A tenant owned by Sam (by John when Sam calls, so Sam is an outsider to it). */
async function sams(f: Fixture): Promise<string> {
  const name = `t-${f.uid}`;
  const owner = f.who === 'domain' ? 'John' : 'Sam';
  const r = await f.as(owner, 'POST', `/tenant/${name}`, {});
  assert.equal(r.status, 201, await r.clone().text());
  return name;
}

/** The caller invited to a fresh tenant (Carol stands in for anonymous). */
async function invited(f: Fixture, role = 'plain'): Promise<string> {
  const t = await sams(f);
  const owner = f.who === 'domain' ? 'John' : 'Sam';
  const r = await f.as(owner, 'POST', `/tenant/${t}/user/${f.who === 'anonymous' ? 'Carol' : f.name}?role=${role}`);
  assert.equal(r.status, 201, await r.clone().text());
  return t;
}

/** Bob a plain member of a fresh tenant owned by someone else than the caller. */
async function withBob(f: Fixture): Promise<string> {
  const t = await sams(f);
  const owner = f.who === 'domain' ? 'John' : 'Sam';
  assert.equal((await f.as(owner, 'POST', `/tenant/${t}/user/Bob?role=plain`)).status, 201);
  assert.equal((await f.as('Bob', 'PUT', `/tenant/${t}/user?role=plain`)).status, 200);
  return t;
}

/**
 * Who owns the estate fixtures: Sam, or Alice when Sam calls (Alice's claim
 * of twitter_stats gets her own instances, so its revision has something to
 * decide; John's would share the demo's prod instances).
 */
const estateOwner = (f: Fixture) => (f.who === 'domain' ? 'Alice' : 'Sam');

/** A tenant with a fresh policy namespace and an account `main`. */
async function withAccount(f: Fixture): Promise<string> {
  const name = `e-${f.uid}`;
  const owner = estateOwner(f);
  const t = await f.as(owner, 'POST', `/tenant/${name}`, { namespaces: [`n-${f.uid}`] });
  assert.equal(t.status, 201, await t.clone().text());
  const a = await f.as(owner, 'POST', `/tenant/${name}/account/main`, { marks: { vcpu: 4 } });
  assert.equal(a.status, 201, await a.clone().text());
  return name;
}

/** …and an environment `prod` on the demo cluster. */
async function withEnvironment(f: Fixture): Promise<string> {
  const t = await withAccount(f);
  const owner = estateOwner(f);
  const e = await f.as(owner, 'POST', `/tenant/${t}/account/main/environment/prod`, { cluster: 'k8s-example', marks: { vcpu: 2 } });
  assert.equal(e.status, 201, await e.clone().text());
  return t;
}

/**
 * What the estate owner's services claim. Alice's: twitter_stats with the
 * image tag her demo claim uses (the same instances, the same parameters).
 * Sam's twitter_stats would share John's running prod instances with other
 * parameters, and be refused (422): Sam's is a guestbook, which gives each
 * user an instance of their own.
 */
const serviceOf = (f: Fixture, labels: Record<string, string> = {}) =>
  f.who === 'domain' ? { service: 'social/twitter_stats', labels: { tsvisimage: 'demo12', ...labels } } : { service: 'social/guestbook', environment: 'main/prod', labels };

/** …and a service `web` (a claim of social/twitter_stats, or of social/guestbook: serviceOf) created by the owner; answers the tenant and its revision. */
async function withService(f: Fixture): Promise<{ tenant: string; revision: number }> {
  const t = await withEnvironment(f);
  const owner = estateOwner(f);
  const r = await f.as(owner, 'POST', `/tenant/${t}/service/web`, serviceOf(f));
  const body = (await r.clone().json()) as { data?: { revision?: { id: number | null } } };
  assert.equal(r.status, 202, await r.clone().text());
  assert.ok(body.data?.revision?.id, JSON.stringify(body));
  return { tenant: t, revision: body.data.revision.id };
}

/**
 * …whose first revision Sam has accepted, so changes may be based on it.
 * (Only Alice's claim, made when Sam calls, has instances of its own to
 * accept; the other callers are refused as non-members before any base
 * is looked at.)
 */
// Every row's Alice claim shares Alice's demo instances: the rows change labels, never parameters, so they never conflict.
async function withAcceptedService(f: Fixture): Promise<{ tenant: string; revision: number }> {
  const s = await withService(f);
  if (f.who !== 'domain') return s;
  const r = await f.as('Sam', 'PUT', `/tenant/${s.tenant}/service/web/revision/${s.revision}?accept=true`);
  assert.equal(r.status, 200, await r.clone().text());
  return s;
}

/** Two services of someone else's tenant: `web` with a client channel `out`, `api` with a server channel `in`; linked when asked. */
async function withPair(f: Fixture, link = false): Promise<string> {
  const t = await withEnvironment(f);
  const owner = estateOwner(f);
  for (const [name, labels] of [['web', { 'channel-out': 'client' }], ['api', { 'channel-in': 'server' }]] as const) {
    const r = await f.as(owner, 'POST', `/tenant/${t}/service/${name}`, serviceOf(f, labels));
    assert.equal(r.status, 202, await r.clone().text());
  }
  if (link) assert.equal((await f.as(owner, 'POST', `/tenant/${t}/service/web/client/out/tenant/${t}/service/api/server/in`)).status, 201);
  return t;
}

/** A distinct port per case and caller (ports are unique across tenants). */
const portFor = (f: Fixture) => 20000 + Number(f.uid.replace(/\D/g, '')) * 2;

/** A tenant with a port `web` and a secret `token`. */
async function withPort(f: Fixture): Promise<string> {
  const t = await sams(f);
  const owner = f.who === 'domain' ? 'John' : 'Sam';
  assert.equal((await f.as(owner, 'POST', `/tenant/${t}/port/web`, { port: portFor(f) })).status, 201);
  assert.equal((await f.as(owner, 'POST', `/tenant/${t}/secret/token`, { value: 's3cr3t' })).status, 201);
  return t;
}

const MATRIX: Record<string, Row[]> = {
  'GET /platform': [{ what: 'platform information', request: () => ({ path: '/platform' }), expect: { anonymous: 200, outsider: 200, consumer: 200, nsadmin: 200, domain: 200 } }],
  'POST /auth/token': [
    { what: "a token for Alice's name and password", request: () => ({ path: '/auth/token', body: { username: 'Alice', password: 'alice' } }), expect: { anonymous: 200, outsider: 200, consumer: 200, nsadmin: 200, domain: 200 } },
  ],
  'GET /user/token': [{ what: 'own tokens', request: () => ({ path: '/user/token' }), expect: signedIn(200) }],
  'POST /user/token': [{ what: 'a token for oneself', request: () => ({ path: '/user/token', body: { name: 'ci' } }), expect: signedIn(201) }],
  'DELETE /user/token/:id': [
    {
      what: "someone else's token",
      request: async (f) => {
        const owner = f.who === 'domain' ? 'John' : 'Sam';
        const r = await f.as(owner, 'POST', '/user/token', { name: `t-${f.uid}` });
        return { path: `/user/token/${((await r.json()) as { data: { id: number } }).data.id}` };
      },
      // Not yours: not found (ids do not tell whose tokens exist); a domain admin may revoke it.
      expect: { anonymous: 401, outsider: 404, consumer: 404, nsadmin: 404, domain: 200 },
    },
  ],
  'GET /user/info': [{ what: 'own information', request: () => ({ path: '/user/info' }), expect: signedIn(200) }],
  'GET /user': [{ what: 'every user', request: () => ({ path: '/user' }), expect: DOMAIN_ONLY }],
  'POST /user': [{ what: 'register oneself', request: () => ({ path: '/user', body: { name: 'Given', surname: 'Family', companyName: 'Acme' } }), expect: signedIn(201) }],
  'DELETE /user': [
    {
      what: 'remove oneself while the last owner of a tenant',
      request: async (f) => {
        if (f.who !== 'anonymous') assert.equal((await f.as(f.name, 'POST', `/tenant/last-${f.uid}`, {})).status, 201);
        return { path: '/user' };
      },
      expect: signedIn(409),
    },
  ],
  // No provider is configured here: linking is refused before any token is read, and nobody has a profile to remove.
  'POST /user/provider': [{ what: 'link a provider identity where none is trusted', request: () => ({ path: '/user/provider', body: { jwt: 'a.b.c' } }), expect: signedIn(400) }],
  'DELETE /user/provider/:oidp': [{ what: 'a profile the caller does not have', request: () => ({ path: '/user/provider/oidc' }), expect: signedIn(404) }],
  'GET /tenant': [{ what: 'own tenants', request: () => ({ path: '/tenant?strict=true' }), expect: signedIn(200) }],
  'POST /tenant/:tenant': [{ what: 'a tenant with no namespace', request: (f) => ({ path: `/tenant/own-${f.uid}`, body: {} }), expect: signedIn(201) }],
  'PATCH /tenant/:tenant': [
    { what: "a namespace for someone else's tenant", request: async (f) => ({ path: `/tenant/${await sams(f)}`, body: { namespaces: [`ns-${f.uid}`] } }), expect: DOMAIN_ONLY },
    { what: "rules for someone else's tenant", request: async (f) => ({ path: `/tenant/${await sams(f)}`, body: { rules: { validateEnvironmentUser: [{ reason: 'anyone', sel: [true] }] } } }), expect: DOMAIN_ONLY },
    { what: "rules for a tenant the caller is a plain member of", request: async (f) => ({ path: `/tenant/${await invited(f)}`, body: { rules: { validateEnvironmentUser: [{ reason: 'anyone', sel: [true] }] } } }), expect: { ...DOMAIN_ONLY, outsider: 403 } },
  ],
  'DELETE /tenant/:tenant': [{ what: "someone else's tenant", request: async (f) => ({ path: `/tenant/${await sams(f)}` }), expect: DOMAIN_ONLY }],
  'GET /tenant/:tenant': [{ what: 'a tenant the caller is not in', request: async (f) => ({ path: `/tenant/${await sams(f)}` }), expect: DOMAIN_ONLY }],
  'POST /tenant/:tenant/user/:user': [
    { what: "invite Bob to someone else's tenant", request: async (f) => ({ path: `/tenant/${await sams(f)}/user/Bob?role=plain` }), expect: { ...DOMAIN_ONLY, domain: 201 } },
  ],
  'PUT /tenant/:tenant/user': [
    { what: 'confirm an invitation made to the caller', request: async (f) => ({ path: `/tenant/${await invited(f)}/user?role=plain` }), expect: signedIn(200) },
  ],
  'DELETE /tenant/:tenant/user': [
    { what: 'reject an invitation made to the caller', request: async (f) => ({ path: `/tenant/${await invited(f)}/user` }), expect: signedIn(200) },
  ],
  'PUT /tenant/:tenant/user/:user': [
    { what: "change Bob's role in someone else's tenant", request: async (f) => ({ path: `/tenant/${await withBob(f)}/user/Bob?role=admin` }), expect: DOMAIN_ONLY },
  ],
  'GET /tenant/:tenant/account': [{ what: "accounts of someone else's tenant", request: async (f) => ({ path: `/tenant/${await withAccount(f)}/account` }), expect: DOMAIN_ONLY }],
  'POST /tenant/:tenant/account/:account': [
    { what: "an account in someone else's tenant", request: async (f) => ({ path: `/tenant/${await withAccount(f)}/account/spare`, body: {} }), expect: { ...DOMAIN_ONLY, domain: 201 } },
  ],
  'PATCH /tenant/:tenant/account/:account': [
    { what: "marks of someone else's account", request: async (f) => ({ path: `/tenant/${await withAccount(f)}/account/main`, body: { marks: { vcpu: 8 } } }), expect: DOMAIN_ONLY },
  ],
  'GET /tenant/:tenant/account/:account': [{ what: "someone else's account", request: async (f) => ({ path: `/tenant/${await withAccount(f)}/account/main` }), expect: DOMAIN_ONLY }],
  'DELETE /tenant/:tenant/account/:account': [
    { what: "someone else's account, purged", request: async (f) => ({ path: `/tenant/${await withEnvironment(f)}/account/main?purge=true` }), expect: DOMAIN_ONLY },
  ],
  'GET /tenant/:tenant/account/:account/environment': [
    { what: "environments of someone else's account", request: async (f) => ({ path: `/tenant/${await withEnvironment(f)}/account/main/environment` }), expect: DOMAIN_ONLY },
  ],
  'POST /tenant/:tenant/account/:account/environment/:environment': [
    {
      what: "an environment in someone else's account",
      request: async (f) => ({ path: `/tenant/${await withAccount(f)}/account/main/environment/dev`, body: { cluster: 'k8s-example', marks: { vcpu: 1 } } }),
      expect: { ...DOMAIN_ONLY, domain: 201 },
    },
  ],
  'PATCH /tenant/:tenant/account/:account/environment/:environment': [
    { what: "marks of someone else's environment", request: async (f) => ({ path: `/tenant/${await withEnvironment(f)}/account/main/environment/prod`, body: { marks: { vcpu: 1 } } }), expect: DOMAIN_ONLY },
  ],
  'DELETE /tenant/:tenant/account/:account/environment/:environment': [
    { what: "someone else's environment", request: async (f) => ({ path: `/tenant/${await withEnvironment(f)}/account/main/environment/prod` }), expect: DOMAIN_ONLY },
  ],
  'GET /tenant/:tenant/account/:account/environment/:environment': [
    { what: "someone else's environment", request: async (f) => ({ path: `/tenant/${await withEnvironment(f)}/account/main/environment/prod` }), expect: DOMAIN_ONLY },
  ],
  'GET /tenant/:tenant/service': [{ what: "services of someone else's tenant", request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/service` }), expect: DOMAIN_ONLY }],
  'GET /tenant/:tenant/service/:name': [{ what: "someone else's service", request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/service/web?summary=true` }), expect: DOMAIN_ONLY }],
  'GET /tenant/:tenant/service/:name/history': [
    { what: "history of someone else's service", request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/service/web/history` }), expect: DOMAIN_ONLY },
  ],
  'GET /tenant/:tenant/logs/service/:name': [
    { what: "apply events of someone else's service", request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/logs/service/web?tail=10` }), expect: DOMAIN_ONLY },
  ],
  'GET /tenant/:tenant/logs/service/:name/role/:role/instance/:instance': [
    { what: "an instance log of someone else's service", request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/logs/service/web/role/tweepub/instance/a-nothere` }), expect: { ...DOMAIN_ONLY, domain: 404 } },
  ],
  'GET /tenant/:tenant/logs/service/:name/role/:role/instance/:instance/container/:container': [
    {
      what: "a container log of someone else's service",
      request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/logs/service/web/role/tweepub/instance/a-nothere/container/main?tail=5` }),
      expect: { ...DOMAIN_ONLY, domain: 404 },
    },
  ],
  'POST /tenant/:tenant/service/:name': [
    {
      what: "a service in someone else's tenant",
      // The guestbook: a twitter_stats of the caller's would share John's running prod instances, with other parameters (422).
      request: async (f) => ({ path: `/tenant/${await withEnvironment(f)}/service/api`, body: { service: 'social/guestbook', environment: 'main/prod' } }),
      expect: { ...DOMAIN_ONLY, domain: 202 },
    },
    {
      what: "a dry run in someone else's tenant",
      request: async (f) => ({ path: `/tenant/${await withAccount(f)}/service/api?dryrun=true`, body: { service: 'social/twitter_stats' } }),
      expect: DOMAIN_ONLY,
    },
  ],
  'POST /tenant/:tenant/service/:name/simple': [
    {
      what: "a simple service in someone else's tenant",
      request: async (f) => ({ path: `/tenant/${await withEnvironment(f)}/service/api/simple`, body: { deployment: { artifact: { ref: { domain: 'social', name: 'guestbook' } }, environment: 'main/prod' } } }),
      expect: { ...DOMAIN_ONLY, domain: 202 },
    },
  ],
  'PUT /tenant/:tenant/service/:name/revision/:revision': [
    {
      what: "reject the revision of someone else's service",
      request: async (f) => {
        const s = await withService(f);
        return { path: `/tenant/${s.tenant}/service/web/revision/${s.revision}?accept=false` };
      },
      expect: DOMAIN_ONLY,
    },
  ],
  'POST /tenant/:tenant/service/:name/revision/:previous': [
    {
      what: "replace someone else's service",
      request: async (f) => {
        const s = await withAcceptedService(f);
        return { path: `/tenant/${s.tenant}/service/web/revision/${s.revision}`, body: { service: 'social/twitter_stats', labels: { tsvisimage: 'demo12', note: 'replaced' } } };
      },
      expect: { ...DOMAIN_ONLY, domain: 202 },
    },
  ],
  'POST /tenant/:tenant/service/:name/revision/:previous/simple': [
    {
      what: "update someone else's service with the simple form",
      request: async (f) => {
        const s = await withAcceptedService(f);
        return { path: `/tenant/${s.tenant}/service/web/revision/${s.revision}/simple`, body: { deployment: { artifact: { ref: { domain: 'social', name: 'twitter_stats' } }, config: { parameter: { tsvisimage: 'demo12', note: 'simple' } } } } };
      },
      expect: { ...DOMAIN_ONLY, domain: 202 },
    },
  ],
  'PATCH /tenant/:tenant/service/:name/revision/:previous': [
    {
      what: "relabel someone else's service",
      request: async (f) => {
        const s = await withAcceptedService(f);
        return { path: `/tenant/${s.tenant}/service/web/revision/${s.revision}`, body: { labels: { note: 'relabelled' } } };
      },
      expect: { ...DOMAIN_ONLY, domain: 202 },
    },
  ],
  'PATCH /tenant/:tenant/service/:name/revision/:previous/scale': [
    {
      what: "scale someone else's service",
      request: async (f) => {
        const s = await withAcceptedService(f);
        return { path: `/tenant/${s.tenant}/service/web/revision/${s.revision}/scale`, body: { scale: { web: 3 } } };
      },
      expect: { ...DOMAIN_ONLY, domain: 202 },
    },
  ],
  'PUT /tenant/:tenant/service/:name/revision/:previous/rollback/:target': [
    {
      what: "roll someone else's service back to its current revision",
      request: async (f) => {
        const s = await withAcceptedService(f);
        return { path: `/tenant/${s.tenant}/service/web/revision/${s.revision}/rollback/${s.revision}` };
      },
      expect: { ...DOMAIN_ONLY, domain: 202 },
    },
  ],
  'DELETE /tenant/:tenant/service/:name': [
    { what: "someone else's service", request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/service/web` }), expect: { ...DOMAIN_ONLY, domain: 202 } },
  ],
  'POST /tenant/:tenant/service/:name/client/:channel/tenant/:serverTenant/service/:serverName/server/:serverChannel': [
    {
      what: "link services of someone else's tenant",
      request: async (f) => {
        const t = await withPair(f);
        return { path: `/tenant/${t}/service/web/client/out/tenant/${t}/service/api/server/in` };
      },
      expect: { ...DOMAIN_ONLY, domain: 201 },
    },
  ],
  'DELETE /tenant/:tenant/service/:name/client/:channel/tenant/:serverTenant/service/:serverName/server/:serverChannel': [
    {
      what: "unlink services of someone else's tenant",
      request: async (f) => {
        const t = await withPair(f, true);
        return { path: `/tenant/${t}/service/web/client/out/tenant/${t}/service/api/server/in` };
      },
      expect: DOMAIN_ONLY,
    },
  ],
  'GET /tenant/:tenant/service/:name/scale': [{ what: "scale of someone else's service", request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/service/web/scale` }), expect: DOMAIN_ONLY }],
  'GET /tenant/:tenant/service/:name/channels': [{ what: "channels of someone else's service", request: async (f) => ({ path: `/tenant/${await withPair(f)}/service/web/channels` }), expect: DOMAIN_ONLY }],
  'GET /tenant/:tenant/service/:name/role/:role': [
    { what: "a role of someone else's service", request: async (f) => ({ path: `/tenant/${(await withService(f)).tenant}/service/web/role/tweepub` }), expect: DOMAIN_ONLY },
  ],
  'DELETE /tenant/:tenant/service/:name/role/:role': [
    {
      what: "restart a role of someone else's service",
      request: async (f) => ({ path: `/tenant/${(await withAcceptedService(f)).tenant}/service/web/role/tweepub` }),
      expect: { ...DOMAIN_ONLY, domain: 202 },
    },
  ],
  'DELETE /tenant/:tenant/service/:name/role/:role/instance/:instance': [
    {
      what: "restart an instance of someone else's service",
      request: async (f) => ({ path: `/tenant/${(await withAcceptedService(f)).tenant}/service/web/role/tweepub/instance/a-nothere` }),
      expect: { ...DOMAIN_ONLY, domain: 404 },
    },
  ],
  'GET /service/:tenant/:name/role/:role/instance/:instance': [
    { what: "an instance of someone else's service", request: async (f) => ({ path: `/service/${(await withService(f)).tenant}/web/role/tweepub/instance/a-nothere` }), expect: { ...DOMAIN_ONLY, domain: 404 } },
  ],
  'GET /tenant/:tenant/service/:name/links': [
    { what: "links of someone else's service", request: async (f) => ({ path: `/tenant/${await withPair(f, true)}/service/web/links` }), expect: DOMAIN_ONLY },
  ],
  'GET /tenant/:tenant/resource': [{ what: "every resource of someone else's tenant", request: async (f) => ({ path: `/tenant/${await withPort(f)}/resource` }), expect: DOMAIN_ONLY }],
  'GET /tenant/:tenant/usedports': [{ what: "ports in use in someone else's tenant", request: async (f) => ({ path: `/tenant/${await withPort(f)}/usedports` }), expect: DOMAIN_ONLY }],
  'GET /tenant/:tenant/:kind': [{ what: "ports of someone else's tenant", request: async (f) => ({ path: `/tenant/${await withPort(f)}/port` }), expect: DOMAIN_ONLY }],
  'GET /tenant/:tenant/:kind/:name': [
    { what: "a port of someone else's tenant", request: async (f) => ({ path: `/tenant/${await withPort(f)}/port/web` }), expect: DOMAIN_ONLY },
    { what: "a secret of someone else's tenant, revealed", request: async (f) => ({ path: `/tenant/${await withPort(f)}/secret/token?reveal=true` }), expect: DOMAIN_ONLY },
  ],
  'POST /tenant/:tenant/:kind/:name': [
    { what: "a secret in someone else's tenant", request: async (f) => ({ path: `/tenant/${await withPort(f)}/secret/other`, body: { value: 'x' } }), expect: { ...DOMAIN_ONLY, domain: 201 } },
  ],
  'PUT /tenant/:tenant/:kind/:name': [
    { what: "a port of someone else's tenant", request: async (f) => ({ path: `/tenant/${await withPort(f)}/port/web`, body: { port: portFor(f) + 1 } }), expect: DOMAIN_ONLY },
  ],
  'DELETE /tenant/:tenant/:kind/:name': [{ what: "a port of someone else's tenant", request: async (f) => ({ path: `/tenant/${await withPort(f)}/port/web` }), expect: DOMAIN_ONLY }],
  'DELETE /tenant/:tenant/user/:user': [
    { what: "exclude Bob from someone else's tenant", request: async (f) => ({ path: `/tenant/${await withBob(f)}/user/Bob` }), expect: DOMAIN_ONLY },
  ],
};

function key(method: string, path: string) {
  return `${method} ${path}`;
}

describe('REST API: authorisation matrix over HTTP', () => {
  let server: TestServer;
  let services: Services;
  let repos: Repos;
  let dir: string;

  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
    dir = mkdtempSync(join(tmpdir(), 'keelson-rest-'));
    const usersFile = join(dir, 'users.yaml');
    // The demo users, and nina, who has no role anywhere.
    writeFileSync(usersFile, `${readFileSync(DEMO_USERS_FILE, 'utf8').replace(/\s*$/, '\n')}- name: nina\n  labels: {}\n`);
    // `n-*` namespaces are free to take, so tenants of any caller can own one.
    services = createServices(repos, { usersFile, domainAdmins: [], freeNamespaces: ['n-*'] });
    // The matrix sets every case up as Sam: far past a client's rate, which has its own test.
    const rateLimit = new RateLimiter({ perSecond: 1e6, burst: 1e6 });
    server = await serveForTests(restApi({ services: async () => services, authenticate: testAuth, rateLimit }));
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every route has a row, and every row a route', () => {
    const routes = REST_ROUTES.map((r) => key(r.method, r.path));
    assert.deepEqual(routes.filter((r) => !MATRIX[r]?.length), [], 'REST routes without a row in the authorisation matrix');
    assert.deepEqual(Object.keys(MATRIX).filter((r) => !routes.includes(r)), [], 'rows for REST routes that do not exist');
  });

  let n = 0;
  for (const [route, rows] of Object.entries(MATRIX)) {
    const [method] = route.split(' ') as [string];
    for (const row of rows) {
      test(`${route}: ${row.what}`, async () => {
        const got: Partial<Record<Who, number>> = {};
        for (const who of WHO) {
          const name = who === 'anonymous' ? 'Sam' : NAMES[who];
          const as = (user: string, m: string, path: string, body?: unknown) =>
            fetch(`${server.url}${API_PREFIX}${path}`, {
              method: m,
              headers: { authorization: `Bearer test:${user}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
              ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
            });
          const f: Fixture = { services, who, name, uid: `${who}-${++n}`, as };
          const req = await row.request(f);
          const res = await fetch(`${server.url}${API_PREFIX}${req.path}`, {
            method,
            headers: {
              ...(who === 'anonymous' ? {} : { authorization: `Bearer test:${name}` }),
              ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
            },
            ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
          });
          got[who] = res.status;
          const body = (await res.json()) as Record<string, unknown>;
          // Every answer is the envelope: {data?, events?} on success, {code, content: {message}} otherwise.
          if (res.status < 300) assert.ok(Object.keys(body).every((k) => k === 'data' || k === 'events'), `${who}: ${JSON.stringify(body)}`);
          else assert.ok(typeof body.code === 'string' && typeof (body.content as { message?: unknown })?.message === 'string', `${who}: ${JSON.stringify(body)}`);
        }
        assert.deepEqual(got, row.expect);
      });
    }
  }
});

// Once behind Web Request/Response (as the Next.js route serves it) and once behind Node's own request and response.
for (const transport of ['web', 'node'] as const)
describe(`REST API: the envelope and every refusal (${transport})`, () => {
  let server: TestServer;
  let services: Services;
  let now = 0;

  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    // A small bucket with a clock the test moves: 3 requests, then one a second.
    const rateLimit = new RateLimiter({ perSecond: 1, burst: 3 }, () => now);
    const api = restApi({ services: async () => services, authenticate: testAuth });
    const limitedCore = createRestCore({ routes: REST_ROUTES, services: async () => services, authenticate: testAuth, rateLimit, maxBodyBytes: 1024 });
    const limited = webHandler(limitedCore);
    const web = (req: Request) => (new URL(req.url).searchParams.has('limited') ? limited(req) : api(req));
    const limitedNode = nodeHandler(limitedCore);
    server = await serveForTests(
      transport === 'web' ? web : Object.assign(web, { node: (req: IncomingMessage, res: ServerResponse) => (req.url?.includes('limited') ? limitedNode : api.node)(req, res) }),
    );
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
  });

  const call = (path: string, init: RequestInit = {}) => fetch(`${server.url}${API_PREFIX}${path}`, init);
  const alice = { authorization: 'Bearer test:Alice' };

  test('a success is {data}; the platform answers without sign-in', async () => {
    const res = await call('/platform');
    assert.equal(res.status, 200);
    const body = (await res.json()) as { data: { apiVersions: string[]; instanceName: string } };
    assert.deepEqual(body.data.apiVersions, ['1.0-beta']);
    assert.equal(typeof body.data.instanceName, 'string');
  });

  test('the Host header is not part of the URL: a hostile one changes nothing, and is never a 500', async () => {
    const { connect } = await import('node:net');
    const { port } = new URL(server.url);
    for (const host of ['a b', '[', 'evil.example:99999', '']) {
      const head = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(`GET ${API_PREFIX}/platform HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
        let got = '';
        socket.on('data', (b) => (got += b.toString('latin1')));
        socket.on('end', () => resolve(got.split('\r\n')[0]!));
        socket.on('error', reject);
      });
      // Node itself may refuse a malformed Host (400); otherwise the platform answers as usual.
      assert.match(head, /^HTTP\/1\.1 (200|400) /, `Host: ${JSON.stringify(host)} → ${head}`);
    }
  });

  test('401 without a sign-in, and for a wrong or malformed token (never anonymous instead)', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic YWxpY2U6YWxpY2U=' }] as Record<string, string>[]) {
      const res = await call('/user/info', { headers });
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { code: string }).code, 'Unauthenticated');
    }
    // A bad token is refused on public routes too: the client believes it is signed in.
    assert.equal((await call('/platform', { headers: { authorization: 'Bearer nope' } })).status, 401);
  });

  test('every answer says how long the server worked on it (Server-Timing), refusals included', async () => {
    const answers = [await call('/platform', { headers: alice }), await call('/nothing/here', { headers: alice }), await call('/user/info'), await call('/tenant/abc?limited', { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: 'x'.repeat(2000) })];
    assert.deepEqual(answers.map((a) => a.status), [200, 404, 401, 413]);
    for (const a of answers) {
      const m = /^app;dur=(\d+\.\d)$/.exec(a.headers.get('server-timing') ?? '');
      assert.ok(m, `${a.status}: server-timing ${a.headers.get('server-timing')}`);
      assert.ok(Number(m[1]) >= 0 && Number(m[1]) < 10_000);
      await a.arrayBuffer();
    }
  });

  test('404 for an unknown route and 405 (with Allow) for a known path with another verb', async () => {
    const missing = await call('/nothing/here', { headers: alice });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, 'NotFound');
    const wrong = await call('/platform', { method: 'DELETE', headers: alice });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET');
  });

  test('400 names each invalid field: path, query and body alike', async () => {
    const badName = await call('/tenant/9lives', { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(badName.status, 400);
    const b1 = (await badName.json()) as { code: string; content: { message: string; issues: { where: string; path: string }[] } };
    assert.equal(b1.code, 'BadRequest');
    assert.deepEqual(b1.content.issues.map((i) => [i.where, i.path]), [['path', 'tenant']]);
    assert.match(b1.content.message, /^path tenant: must start with a letter/);
    const badRole = await call('/tenant/x/user/Bob?role=king', { method: 'POST', headers: alice });
    assert.equal(badRole.status, 400);
    assert.equal(((await badRole.json()) as { content: { issues: { where: string }[] } }).content.issues[0]?.where, 'query');
    const badBody = await call('/tenant/abc', { method: 'PATCH', headers: { ...alice, 'content-type': 'application/json' }, body: '{"namespaces": "one"}' });
    assert.equal(badBody.status, 400);
    assert.equal(((await badBody.json()) as { content: { issues: { where: string; path: string }[] } }).content.issues[0]?.path, 'namespaces');
  });

  test('400 for a body that is not JSON, 415 for one that is not declared JSON, 413 past the size limit', async () => {
    const notJson = await call('/tenant/abc', { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: '{namespaces:' });
    assert.equal(notJson.status, 400);
    assert.match(((await notJson.json()) as { content: { message: string } }).content.message, /not valid JSON/);
    const form = await call('/tenant/abc', { method: 'POST', headers: { ...alice, 'content-type': 'application/x-www-form-urlencoded' }, body: 'namespaces=a' });
    assert.equal(form.status, 415);
    assert.equal(((await form.json()) as { code: string }).code, 'UnsupportedMediaType');
    const big = await call('/tenant/abc?limited', { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ namespaces: ['x'.repeat(2000)] }) });
    assert.equal(big.status, 413);
  });

  test('429 with Retry-After past the per-user rate, and the bucket refills', async () => {
    now = 0;
    const carol = { authorization: 'Bearer test:Carol' };
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('/user/info?limited', { headers: carol })).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const refused = await call('/user/info?limited', { headers: carol });
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(((await refused.json()) as { code: string }).code, 'TooManyRequests');
    // Another user has their own bucket.
    assert.equal((await call('/user/info?limited', { headers: { authorization: 'Bearer test:Bob' } })).status, 200);
    now = 1500;
    assert.equal((await call('/user/info?limited', { headers: carol })).status, 200);
  });

  test('a refusal from a service keeps its message: 403 and 409 as the document says', async () => {
    const list = await call('/user', { headers: alice });
    assert.equal(list.status, 403);
    assert.match(((await list.json()) as { content: { message: string } }).content.message, /Only domain admins/);
    const sam = { authorization: 'Bearer test:Sam', 'content-type': 'application/json' };
    assert.equal((await call('/tenant/dup-t', { method: 'POST', headers: sam, body: '{}' })).status, 201);
    const again = await call('/tenant/dup-t', { method: 'POST', headers: sam, body: '{}' });
    assert.equal(again.status, 409);
    assert.equal(((await again.json()) as { code: string }).code, 'Conflict');
  });

  test('the OpenAPI document is valid OpenAPI 3.1, lists every route; the docs page shows every operation; Swagger UI at /docs/try loads its assets', async () => {
    const res = await call('/openapi.json');
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, { summary: string; tags: string[] }>> };
    const validator = new Validator();
    const verdict = await validator.validate(doc as never);
    assert.ok(verdict.valid, JSON.stringify(verdict.errors, null, 2)?.slice(0, 2000));
    for (const r of REST_ROUTES) {
      const p = API_PREFIX + r.path.replace(/:(\w+)/g, '{$1}');
      assert.ok(doc.paths[p]?.[r.method.toLowerCase()], `${r.method} ${p} is documented`);
    }
    assert.deepEqual(doc, JSON.parse(JSON.stringify(openApiDocument(REST_ROUTES))));

    // The reference: plain HTML from the same document, no script needed to read it.
    const page = await call('/docs');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await page.text();
    assert.doesNotMatch(html, /<script/);
    // A reader who came from the console's navigation has a way back, and a way to try requests.
    assert.match(html, /<a href="\/objects"[^>]*>← Back to the Keelson console<\/a>/);
    assert.match(html, new RegExp(`<a href="${API_PREFIX}/docs/try"[^>]*>Try requests in Swagger UI</a>`));
    assert.equal(html.match(/<h1>/g)?.length, 1);
    assert.match(html, /<h1>Keelson API<\/h1>/);
    assert.match(html, /Profile page/);
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        operations++;
        const at = html.indexOf(`<details class="op" data-method="${method}" data-path="${path}">`);
        assert.ok(at >= 0, `${method} ${path} is on the page`);
        const summary = html.slice(at, html.indexOf('</summary>', at));
        assert.ok(summary.includes(`>${method.toUpperCase()}</span>`) && summary.includes(`>${path}</code>`), `${method} ${path}: method and path shown`);
        // Under its tag's section.
        const section = html.lastIndexOf('<section class="tag"', at);
        assert.ok(html.slice(section, at).includes(`data-tag="${op.tags[0]}"`), `${method} ${path} under ${op.tags[0]}`);
      }
    }
    assert.equal(html.match(/<details class="op"/g)?.length, operations);
    // The same page each time: rendered once.
    assert.equal(await (await call('/docs')).text(), html);

    // Swagger UI, for trying requests, with ways back to the reference and the console.
    const tryPage = await call('/docs/try');
    assert.equal(tryPage.status, 200);
    const tryHtml = await tryPage.text();
    assert.match(tryHtml, /<a href="\/objects"[^>]*>← Back to the Keelson console<\/a>/);
    assert.match(tryHtml, new RegExp(`<a href="${API_PREFIX}/docs"[^>]*>API reference</a>`));
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'docs-init.js', 'docs.css']) {
      assert.ok(tryHtml.includes(`${API_PREFIX}/docs/${asset}`), asset);
      const a = await call(`/docs/${asset}`);
      assert.equal(a.status, 200, asset);
      assert.ok((await a.arrayBuffer()).byteLength > 50, asset);
    }
    assert.match(await (await call('/docs/docs-init.js')).text(), /withCredentials: true/);
    // Nothing else from the package (or the file system) is served.
    assert.equal((await call('/docs/package.json')).status, 404);
    assert.equal((await call('/docs/..%2F..%2Fpackage.json')).status, 404);
  });
});
