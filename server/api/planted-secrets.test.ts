/**
 * The planted-secret sweep. A unique secret is planted in an object of
 * every kind that declares credentials (a cluster, a Landscaper Target,
 * TypeInstances in each shape the Hub reads) and in what is rendered from
 * them (an Interface component served an injected TypeInstance and the
 * component its discovery reaches, a Landscaper deploy item and export),
 * and a user's own secret in a bundle (server/testing/planted-secrets.ts).
 * Then every read is made as a user with no role, a service consumer, a
 * namespace admin of the namespace and a domain admin, and each answer —
 * or refusal — may hold a planted secret only when the declared audience
 * allows it: the platform's credentials, domain admins; a user's secret,
 * also the namespace's admins.
 *
 * The reads are enumerated, not listed: every tRPC query of the router
 * (a new one fails here until it is given inputs) and every GET route of
 * the REST and Deployment Manager APIs (likewise).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEMO_USERS_FILE, loadLocalUsers } from '../auth/users';
import { DM } from '../engine/model/sources/dm';
import { KINDS } from '../engine/model/kinds';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { API_PREFIX } from '../rest/dispatch';
import { DM_PREFIX, DM_ROUTES, dmApi } from '../rest/dm';
import { restApi, REST_ROUTES } from '../rest/index';
import { RateLimiter } from '../rest/rate-limit';
import { seedDemo } from '../seed/demo';
import type { Actor } from '../services/actor';
import { createServices, type Services } from '../services';
import { PLANTED, PLANTED_AUDIENCE, PLANTED_CLAIMS, PLANTED_PLATFORM, PLANTED_SOCIAL, PLANTED_USER_SECRET, plantedIn, type Planted } from '../testing/planted-secrets';
import { serveForTests, testAuth, type TestServer } from '../testing/rest';
import { appRouter, createCaller } from './root';

type Who = 'outsider' | 'consumer' | 'nsadmin' | 'domain';
const WHO: readonly Who[] = ['outsider', 'consumer', 'nsadmin', 'domain'];
const NAMES: Record<Who, string> = { outsider: 'nina', consumer: 'Alice', nsadmin: 'John', domain: 'Sam' };

const demoActor = (name: string): Actor => ({ id: `local:${name}`, name, labels: loadLocalUsers().find((u) => u.name === name)?.labels ?? {}, provider: 'test' });

/** Whom the declaration lets read a planted secret (every secret was used in social, where John is namespace admin). */
function mayRead(who: Who, secret: Planted): boolean {
  return who === 'domain' || (who === 'nsadmin' && PLANTED_AUDIENCE[secret] === 'namespace-admins');
}

/** A Deployment Manager deployment in social, so that its reads answer. */
const DM_SOCIAL = DM.kinds.deployment.example.replace('namespace: main', 'namespace: social').replace('name: my-deployment', 'name: planted-dm');

interface Fixture {
  /** Generations: the demo's head before anything was planted, and the head now. */
  before: number;
  head: number;
  /** Revisions of the generations that planted. */
  revisions: number[];
  /** Instances rendered from the planted secrets. */
  keys: string[];
  /** Objects that hold planted credentials. */
  objects: { kind: string; namespace: string; name: string }[];
  claims: { namespace: string; name: string }[];
  /** The claims as the tenant's services, and their roles' instances (REST). */
  services: string[];
  roles: { service: string; role: string; instance: string }[];
  /** The DM deployment's manifests. */
  manifests: string[];
}

/** Inputs for each tRPC query, per caller (a query may need what only the caller can compute). */
type Inputs = (f: Fixture, call: ReturnType<typeof createCaller>) => Promise<unknown[]> | unknown[];

const QUERIES: Record<string, Inputs> = {
  'capact.interfaces': () => [undefined],
  'capact.tryIt': () => [{ interface: { path: 'cap.interface.planted.db.install' } }],
  'dm.deployment': () => [{ namespace: 'social', name: 'planted-dm' }],
  'dm.types': () => [undefined],
  'graphs.policy': (f) => [{}, { generation: f.head }],
  'graphs.desired': (f) => [{}, { generation: f.head }],
  'graphs.desiredView': () => [{}, { budget: 5 }],
  'graphs.desiredBucket': async (f, call) => {
    const v = await call.graphs.desiredView({ generation: f.head, budget: 1 }).catch(() => null);
    return (v?.graph.b ?? []).map((b) => ({ generation: f.head, budget: v!.budget, bucket: b.id }));
  },
  'graphs.instance': (f) => f.keys.map((key) => ({ key })),
  'landscaper.scopes': () => [{}, { namespace: 'social' }],
  'policy.head': () => [undefined],
  'policy.list': () => [{}, { search: 'planted' }],
  'policy.get': (f) => f.objects,
  'policy.generations': () => [{}],
  'policy.generation': (f) => Array.from({ length: f.head - f.before + 1 }, (_, i) => ({ generation: f.before + i })),
  'policy.diff': (f) => [{ from: f.before, to: f.head }],
  'policy.schemas': () => [undefined],
  'resolution.claims': () => [{}],
  'resolution.claim': (f) => f.claims,
  'revisions.list': () => [{}],
  'revisions.get': (f) => f.revisions.map((id) => ({ id })),
  'revisions.planPage': (f) => f.revisions.flatMap((id) => [{ id, of: 'steps', limit: 500 }, { id, of: 'actions', limit: 500 }]),
  'revisions.events': (f) => f.revisions.map((id) => ({ id })),
  'revisions.byGeneration': (f) => [{ generation: f.head }],
  'revisions.instanceDiff': (f) => f.revisions.flatMap((revisionId) => f.keys.map((key) => ({ revisionId, key }))),
  // A change to the bundles that render the secrets, previewed: its plan holds their instances.
  'revisions.preview': () => [{ text: PLANTED_SOCIAL.replace('chartName: planted-app,', 'chartName: planted-app2,').replace('chartName: planted-user,', 'chartName: planted-user2,') }],
  'tenants.list': () => [undefined],
  'tenants.get': () => [{ name: 'planted' }],
  'tenants.environments': () => [{ tenant: 'planted' }],
  'tenants.myInvitations': () => [undefined],
  'tenants.myRoles': () => [undefined],
  'tenants.roleMap': () => [undefined],
  'tokens.list': () => [undefined],
  'users.me': () => [undefined],
};

/** Paths (below the API's prefix) for each GET route. */
const ROUTES: Record<string, (f: Fixture) => string[]> = {
  'GET /platform': () => ['/platform'],
  'GET /user/token': () => ['/user/token'],
  'GET /user/info': () => ['/user/info'],
  'GET /user': () => ['/user'],
  'GET /tenant': () => ['/tenant'],
  'GET /tenant/:tenant': () => ['/tenant/planted'],
  'GET /tenant/:tenant/account': () => ['/tenant/planted/account'],
  'GET /tenant/:tenant/account/:account': () => ['/tenant/planted/account/main'],
  'GET /tenant/:tenant/account/:account/environment': () => ['/tenant/planted/account/main/environment'],
  'GET /tenant/:tenant/account/:account/environment/:environment': () => ['/tenant/planted/account/main/environment/prod'],
  'GET /tenant/:tenant/service': () => ['/tenant/planted/service'],
  'GET /tenant/:tenant/service/:name': (f) => f.services.flatMap((s) => [`/tenant/planted/service/${s}`, `/tenant/planted/service/${s}?summary=true`]),
  'GET /tenant/:tenant/service/:name/history': (f) => f.services.map((s) => `/tenant/planted/service/${s}/history`),
  'GET /tenant/:tenant/logs/service/:name': (f) => f.services.map((s) => `/tenant/planted/logs/service/${s}`),
  'GET /tenant/:tenant/logs/service/:name/role/:role/instance/:instance': (f) => f.roles.map((r) => `/tenant/planted/logs/service/${r.service}/role/${r.role}/instance/${r.instance}`),
  'GET /tenant/:tenant/logs/service/:name/role/:role/instance/:instance/container/:container': (f) => f.roles.map((r) => `/tenant/planted/logs/service/${r.service}/role/${r.role}/instance/${r.instance}/container/main`),
  'GET /tenant/:tenant/service/:name/links': (f) => f.services.map((s) => `/tenant/planted/service/${s}/links`),
  'GET /tenant/:tenant/service/:name/scale': (f) => f.services.map((s) => `/tenant/planted/service/${s}/scale`),
  'GET /tenant/:tenant/service/:name/channels': (f) => f.services.map((s) => `/tenant/planted/service/${s}/channels`),
  'GET /tenant/:tenant/service/:name/role/:role': (f) => f.roles.map((r) => `/tenant/planted/service/${r.service}/role/${r.role}`),
  'GET /service/:tenant/:name/role/:role/instance/:instance': (f) => f.roles.map((r) => `/service/planted/${r.service}/role/${r.role}/instance/${r.instance}`),
  'GET /tenant/:tenant/resource': () => ['/tenant/planted/resource'],
  'GET /tenant/:tenant/usedports': () => ['/tenant/planted/usedports'],
  'GET /tenant/:tenant/:kind': () => ['/tenant/planted/secret', '/tenant/planted/port'],
  'GET /tenant/:tenant/:kind/:name': () => ['/tenant/planted/secret/token', '/tenant/planted/secret/token?reveal=true'],
  [`GET ${DM_PREFIX}/deployments`]: () => ['/deployments'],
  [`GET ${DM_PREFIX}/deployments/:d`]: () => ['/deployments/social%2Fplanted-dm'],
  [`GET ${DM_PREFIX}/deployments/:d/manifests`]: () => ['/deployments/social%2Fplanted-dm/manifests'],
  [`GET ${DM_PREFIX}/deployments/:d/manifests/:m`]: (f) => f.manifests.map((m) => `/deployments/social%2Fplanted-dm/manifests/${m}`),
  [`GET ${DM_PREFIX}/types`]: () => ['/types'],
  [`GET ${DM_PREFIX}/types/:t/instances`]: () => ['/types/all/instances', '/types/Service/instances'],
};

const queryPaths = () =>
  Object.entries((appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string } }> } })._def.procedures)
    .filter(([, p]) => p._def.type === 'query')
    .map(([path]) => path)
    .sort();
const getRoutes = () => [...REST_ROUTES.map((r) => ({ ...r, prefix: '' })), ...DM_ROUTES.map((r) => ({ ...r, prefix: DM_PREFIX }))].filter((r) => r.method === 'GET').map((r) => `GET ${r.prefix}${r.path}`);

describe('planted secrets reach only the audience their kind declares', () => {
  let repos: Repos;
  let services: Services;
  let dir: string;
  let rest: TestServer;
  let dm: TestServer;
  let f: Fixture;
  const call = (who: Who) => createCaller({ actor: demoActor(NAMES[who]), services });
  const http = (server: TestServer, prefix: string, user: string, method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${prefix}${path}`, {
      method,
      headers: { authorization: `Bearer test:${user}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keelson-planted-'));
    const usersFile = join(dir, 'users.yaml');
    writeFileSync(usersFile, `${readFileSync(DEMO_USERS_FILE, 'utf8').replace(/- name: Alice\n/, `- name: Alice\n${PLANTED_USER_SECRET}`).replace(/\s*$/, '\n')}- name: nina\n  labels: {}\n`);
    repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile, domainAdmins: [] });
    const limit = new RateLimiter({ perSecond: 1e6, burst: 1e6 });
    rest = await serveForTests(restApi({ services: async () => services, authenticate: testAuth, rateLimit: limit }));
    dm = await serveForTests(dmApi({ services: async () => services, authenticate: testAuth, rateLimit: limit }));

    const sam = call('domain');
    const before = await repos.policy.head();
    const written = [
      await sam.policy.applyText({ text: PLANTED_PLATFORM, baseGeneration: before }),
      await call('nsadmin').policy.applyText({ text: `${PLANTED_SOCIAL}---\n${DM_SOCIAL}`, baseGeneration: await repos.policy.head() }),
      await call('consumer').policy.applyText({ text: PLANTED_CLAIMS, baseGeneration: await repos.policy.head() }),
    ];
    const revisions: number[] = [];
    for (const w of written) revisions.push((await services.revisions!.ensureForGeneration(w.generation)).id);
    const claims = [
      { namespace: 'social', name: 'alice_planted_db' },
      { namespace: 'social', name: 'alice_planted_user' },
      { namespace: 'social', name: 'planted' },
    ];
    const keys: string[] = [];
    for (const c of claims) {
      const r = await sam.resolution.claim(c);
      assert.equal(r.outcome.status, 'resolved', `${c.name}: ${r.outcome.errors.join('\n')}`);
      keys.push(...r.outcome.instances);
    }
    // Every object of a kind that declares credentials, and the bundles that render them.
    const objects = (await repos.policy.listObjects()).filter((o) => KINDS.spec(o.kind)?.credentials || o.name.startsWith('planted')).map(({ kind, namespace, name }) => ({ kind, namespace, name }));

    // The REST side: a tenant owning social (John its admin, Alice a member), with an account and an environment on the planted cluster.
    const as = (user: string, method: string, path: string, body?: unknown) => http(rest, API_PREFIX, user, method, path, body);
    const ok = async (r: Promise<Response>) => {
      const res = await r;
      assert.ok(res.status < 300, `${res.status}: ${await res.text()}`);
    };
    await ok(as('Sam', 'POST', '/tenant/planted', { namespaces: ['social'] }));
    await ok(as('Sam', 'POST', '/tenant/planted/user/John?role=admin'));
    await ok(as('John', 'PUT', '/tenant/planted/user?role=admin'));
    await ok(as('Sam', 'POST', '/tenant/planted/user/Alice?role=plain'));
    await ok(as('Alice', 'PUT', '/tenant/planted/user?role=plain'));
    await ok(as('Sam', 'POST', '/tenant/planted/account/main', { marks: { vcpu: 4 } }));
    await ok(as('Sam', 'POST', '/tenant/planted/account/main/environment/prod', { cluster: 'planted-cluster', marks: { vcpu: 2 } }));

    // A tenant secret of its own (resources seal theirs; only owners and admins who ask see it).
    await ok(as('Sam', 'POST', '/tenant/planted/secret/token', { value: 'tenant-secret-not-a-kind' }));

    const serviceNames = ['alice_planted_db', 'alice_planted_user'];
    const roles: Fixture['roles'] = [];
    for (const service of serviceNames) {
      for (const i of (await sam.resolution.claim({ namespace: 'social', name: service })).instances) roles.push({ service, role: i.component, instance: i.deployName });
    }
    const manifests = (await (await http(dm, DM_PREFIX, 'Sam', 'GET', '/deployments/social%2Fplanted-dm/manifests')).json()) as string[];
    assert.ok(manifests.length > 0);
    f = { before, head: await repos.policy.head(), revisions, keys, objects, claims, services: serviceNames, roles, manifests };
  });
  after(async () => {
    await rest.close();
    await dm.close();
    await services.resolution.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every tRPC query and every GET route has inputs here', () => {
    assert.deepEqual(queryPaths().filter((p) => !QUERIES[p]), [], 'queries the sweep does not call');
    assert.deepEqual(Object.keys(QUERIES).filter((p) => !queryPaths().includes(p)), [], 'inputs for queries that do not exist');
    assert.deepEqual(getRoutes().filter((r) => !ROUTES[r]), [], 'GET routes the sweep does not call');
    assert.deepEqual(Object.keys(ROUTES).filter((r) => !getRoutes().includes(r)), [], 'paths for routes that do not exist');
  });

  /** What each caller was answered (answers and refusals alike), by read. */
  const answers = new Map<Who, Map<string, string>>();

  for (const who of WHO) {
    test(`as ${NAMES[who]} (${who}): every tRPC query`, async () => {
      const seen = answers.get(who) ?? new Map<string, string>();
      answers.set(who, seen);
      const caller = call(who);
      for (const path of queryPaths()) {
        const fn = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], caller) as (i: unknown) => Promise<unknown>;
        for (const input of await QUERIES[path]!(f, caller)) {
          const text = await fn(input).then(
            (r) => JSON.stringify(r),
            (e: Error) => `refused: ${e.message}`,
          );
          seen.set(`${path} ${JSON.stringify(input ?? null).slice(0, 120)}`, text);
        }
      }
      const leaks = [...seen].flatMap(([read, text]) => plantedIn(text).filter((s) => !mayRead(who, s)).map((s) => `${read}: ${s}`));
      assert.deepEqual(leaks, []);
    });

    test(`as ${NAMES[who]} (${who}): every GET route of the REST and DM APIs`, async () => {
      const seen = answers.get(who) ?? new Map<string, string>();
      answers.set(who, seen);
      for (const [route, paths] of Object.entries(ROUTES)) {
        const [server, prefix] = route.startsWith(`GET ${DM_PREFIX}/`) ? [dm, DM_PREFIX] : [rest, API_PREFIX];
        for (const path of paths(f)) {
          const res = await http(server, prefix, NAMES[who], 'GET', path);
          seen.set(`${route} ${path}`, `${res.status} ${await res.text()}`);
        }
      }
      const leaks = [...seen].filter(([read]) => read.startsWith('GET ')).flatMap(([read, text]) => plantedIn(text).filter((s) => !mayRead(who, s)).map((s) => `${read}: ${s}`));
      assert.deepEqual(leaks, []);
    });
  }

  test('the sweep reaches every planted secret: the domain admin reads each, the namespace admin the user’s', () => {
    const all = (who: Who) => [...(answers.get(who)?.values() ?? [])].join('\n');
    assert.deepEqual(plantedIn(all('domain')).sort(), (Object.keys(PLANTED) as Planted[]).sort());
    assert.deepEqual(plantedIn(all('nsadmin')), ['user']);
  });
});
