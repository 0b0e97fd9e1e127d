/**
 * The REST API as a client uses it, start to finish, over HTTP with real
 * API tokens: register, a tenant with a member, an account and
 * environments with marks and selector rules, resources, a service from
 * dry run to acceptance, scale, a rejected revision, an update and a
 * rollback, links between services, the refusals a client meets (422
 * over a mark, 409 stale, 409 linked channel), and removing everything.
 *
 * One story, so each step starts from what the previous ones left — as a
 * client's session would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { API_PREFIX } from './dispatch';
import { bearerOrSession } from '../auth/bearer';
import { restApi } from './index';
import { RateLimiter } from './rate-limit';
import { serveForTests, type TestServer } from '../testing/rest';
import type { Repos } from '../repo/types';

/**
 * The demo's own dev claims of the users who create services here: a
 * tenant service of theirs shares those claims' dev instances, so any other
 * image or label would conflict with a running claim and be refused (422).
 */
async function withoutDemoDevClaims(repos: Repos): Promise<void> {
  const deletes = ['alice_dev', 'bob_dev'].map((name) => ({ kind: 'claim', namespace: 'social', name }));
  await repos.policy.commit({ baseGeneration: await repos.policy.head(), author: 'keelson', message: 'no demo dev claims', upserts: [], deletes });
}

interface Answer {
  status: number;
  body: { data?: any; code?: string; content?: { message: string; [k: string]: any } };
}

describe('REST API: the whole story of a tenant, as a client', () => {
  let server: TestServer;
  let services: Services;
  const tokens: Record<string, string> = {};

  async function call(who: string | null, method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${server.url}${API_PREFIX}${path}`, {
      method,
      headers: {
        ...(who ? { authorization: `Bearer ${tokens[who]}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: res.status === 204 ? {} : ((await res.json()) as Answer['body']) };
  }
  const ok = (a: Answer, status: number) => assert.equal(a.status, status, JSON.stringify(a.body));

  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    await withoutDemoDevClaims(repos);
    services = createServices(repos, { domainAdmins: [], freeNamespaces: ['n-*'] });
    server = await serveForTests(
      restApi({
        services: async () => services,
        authenticate: bearerOrSession(
          (token) => services.tokens.authenticate(token),
          async () => null,
        ),
        rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }),
      }),
    );
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
  });

  // Revision ids the story refers back to.
  let first = 0;
  let current = 0;

  test('1. sign in for tokens and register', async () => {
    for (const [user, password] of [
      ['Alice', 'alice'],
      ['Bob', 'bob'],
      ['Sam', 'sam'],
    ] as const) {
      const r = await call(null, 'POST', '/auth/token', { username: user, password });
      ok(r, 200);
      tokens[user] = r.body.data.token;
    }
    ok(await call('Alice', 'POST', '/user', { name: 'Alice', surname: 'Example', companyName: 'Acme' }), 201);
    const again = await call('Alice', 'POST', '/user', { name: 'Alice', surname: 'Example' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'AlreadyRegistered');
    const info = await call('Alice', 'GET', '/user/info');
    assert.equal(info.body.data.registration.companyName, 'Acme');
  });

  test('2. a tenant, with Bob invited as admin and confirmed', async () => {
    ok(await call('Alice', 'POST', '/tenant/acme', { namespaces: ['n-acme'] }), 201);
    ok(await call('Alice', 'POST', '/tenant/acme/user/Bob?role=admin'), 201);
    ok(await call('Bob', 'PUT', '/tenant/acme/user?role=admin'), 200);
    const t = await call('Bob', 'GET', '/tenant/acme');
    assert.deepEqual(
      t.body.data.members.map((m: { user: string; role: string }) => [m.user, m.role]).sort(),
      [
        ['alice', 'owner'],
        ['bob', 'admin'],
      ],
    );
  });

  test('3. an account, environments with marks, and selector rules', async () => {
    ok(await call('Alice', 'POST', '/tenant/acme/account/main', { marks: { vcpu: 64 } }), 201);
    ok(await call('Alice', 'POST', '/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example', marks: { vcpu: 32 }, meta: { tier: 'prod' } }), 201);
    ok(await call('Alice', 'POST', '/tenant/acme/account/main/environment/dev', { cluster: 'k8s-example', marks: { vcpu: 16 }, meta: { tier: 'dev' } }), 201);
    ok(await call('Alice', 'POST', '/tenant/acme/account/main/environment/tiny', { cluster: 'k8s-example', marks: { vcpu: '1m' }, meta: { tier: 'prod' } }), 201);
    // A child may not ask for more than its account has.
    const greedy = await call('Alice', 'POST', '/tenant/acme/account/main/environment/huge', { cluster: 'k8s-example', marks: { vcpu: 100 } });
    assert.equal(greedy.status, 409);
    assert.equal(greedy.body.code, 'MarksExceedParent');

    // A program that can never run is refused, naming the rule.
    const bad = await call('Alice', 'PATCH', '/tenant/acme', { rules: { validateEnvironmentUser: [{ reason: 'broken', sel: ['$.user.role', '::gt'] }] } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.content!.message, /rules\.validateEnvironmentUser\[0\]\.sel/);
    // Production environments take services at once; others only with an explicit acceptance.
    const rules = {
      selectEnvironmentService: [{ reason: 'production tier', sel: ['$.environment.meta.tier', 'prod', '::eq'] }],
      selectAcceptEnvironmentService: [{ reason: 'any other tier, with approval', sel: [true] }],
    };
    const set = await call('Alice', 'PATCH', '/tenant/acme', { rules });
    ok(set, 200);
    assert.deepEqual(set.body.data.rules, rules);
  });

  test('4. resources: a port and a secret', async () => {
    ok(await call('Alice', 'POST', '/tenant/acme/port/web', { port: 30080 }), 201);
    ok(await call('Alice', 'POST', '/tenant/acme/secret/token', { value: 'hunter2' }), 201);
    const s = await call('Bob', 'GET', '/tenant/acme/secret/token');
    ok(s, 200);
    assert.ok(!JSON.stringify(s.body).includes('hunter2'), 'a secret is not shown without reveal');
  });

  const web = { service: 'social/twitter_stats', labels: { tsvisimage: 'demo12', port: 'port:web', 'channel-out': 'client' } };

  test('5. a dry run chooses an environment and writes nothing', async () => {
    // Where a service runs is the environment's to say, not a label's.
    const spoof = await call('Alice', 'POST', '/tenant/acme/service/web?dryrun=true', { ...web, labels: { ...web.labels, environment: 'main/dev' } });
    assert.equal(spoof.status, 400);
    assert.match(spoof.body.content!.message, /labels target and environment are set from the environment field/);
    const before = await call('Alice', 'GET', '/tenant/acme/service');
    const d = await call('Alice', 'POST', '/tenant/acme/service/web?dryrun=true', web);
    ok(d, 200);
    assert.equal(d.body.data.dryrun, true);
    const sel = d.body.data.selection;
    // prod is accepted outright; dev needs acceptance; tiny cannot hold it.
    assert.deepEqual(sel.chosen, { environment: 'main/prod', id: sel.chosen.id, outcome: 'accepted' });
    const outcome = Object.fromEntries(sel.table.map((r: { environment: string; outcome: string }) => [r.environment, r.outcome]));
    assert.deepEqual(outcome, { 'main/prod': 'accepted', 'main/dev': 'requiring', 'main/tiny': 'excluded' });
    assert.match(sel.table.find((r: { environment: string }) => r.environment === 'main/tiny').reasons.join(), /over its vcpu mark/);
    assert.ok(d.body.data.preview, 'the revision it would make');
    assert.deepEqual((await call('Alice', 'GET', '/tenant/acme/service')).body, before.body, 'nothing was written');
  });

  test('6. create it, and an operator accepts its first revision', async () => {
    const c = await call('Alice', 'POST', '/tenant/acme/service/web', web);
    ok(c, 202);
    assert.equal(c.body.data.selection.chosen.environment, 'main/prod');
    first = c.body.data.revision.id;
    assert.ok(first > 0);
    // The instances live in the offering's namespace (social): the platform accepts for it, not the tenant.
    const own = await call('Alice', 'PUT', `/tenant/acme/service/web/revision/${first}?accept=true`);
    assert.equal(own.status, 403);
    assert.match(own.body.content!.message, /namespace-admin/);
    ok(await call('Sam', 'PUT', `/tenant/acme/service/web/revision/${first}?accept=true`), 200);
    current = first;
    const history = await call('Alice', 'GET', '/tenant/acme/service/web/history');
    assert.ok(['accepted', 'applying', 'applied'].includes(history.body.data[0].status), JSON.stringify(history.body.data[0]));
  });

  test('7. scale it; then a change that is rejected leaves the service where it was', async () => {
    const before = (await call('Alice', 'GET', '/tenant/acme/service/web/history')).body.data.length;
    const dry = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}/scale?dryrun=true`, { scale: { tweepub: 2 } });
    ok(dry, 200);
    assert.equal(dry.body.data.dryrun, true);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/service/web/history')).body.data.length, before, 'a dry run writes nothing');
    const s = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}/scale`, { scale: { tweepub: 2 } });
    ok(s, 202);
    assert.deepEqual((await call('Alice', 'GET', '/tenant/acme/service/web/scale')).body.data, { tweepub: 2 });
    // The demo bundle does not read replicas labels: the revision changes nothing and needs no decision.
    assert.equal(s.body.data.revision.status, 'no-op');
    current = s.body.data.revision.id;
    const change = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}`, { labels: { tsvisimage: 'demo13' } });
    ok(change, 202);
    assert.equal(change.body.data.revision.status, 'pending');
    // One pending revision at a time.
    const second = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}`, { labels: { note: 'x' } });
    assert.equal(second.status, 409);
    assert.equal(second.body.code, 'PendingRevisionExists');
    // The change is in the platform's section (the offering's namespace): the operator decides it.
    ok(await call('Sam', 'PUT', `/tenant/acme/service/web/revision/${change.body.data.revision.id}?accept=false`), 200);
    const history = (await call('Alice', 'GET', '/tenant/acme/service/web/history')).body.data;
    assert.equal(history[0].status, 'rejected');
  });

  test('8. a stale update is refused, naming the current revision', async () => {
    const stale = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${first}`, { labels: { tsvisimage: 'late' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.code, 'StaleRevision');
    assert.equal(stale.body.content!.current, current);
  });

  test('9. update it, then roll back to the first revision', async () => {
    const u = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}`, { labels: { tsvisimage: 'demo14' } });
    ok(u, 202);
    const v2 = u.body.data.revision.id;
    // Waiting for a revision to run: no apply worker runs here, so the wait runs out (201) with it accepted.
    const accepted = await call('Sam', 'PUT', `/tenant/acme/service/web/revision/${v2}?accept=true&wait=1`);
    ok(accepted, 201);
    assert.equal(accepted.body.data.status, 'accepted');
    const r = await call('Alice', 'PUT', `/tenant/acme/service/web/revision/${v2}/rollback/${first}`);
    ok(r, 202);
    const back = r.body.data.revision.id;
    assert.ok(back > v2, 'a rollback is a new revision');
    ok(await call('Sam', 'PUT', `/tenant/acme/service/web/revision/${back}?accept=true`), 200);
    current = back;
    const svc = await call('Alice', 'GET', '/tenant/acme/service/web');
    ok(svc, 200);
    assert.match(JSON.stringify(svc.body.data), /demo12/);
    assert.doesNotMatch(JSON.stringify(svc.body.data), /demo14/);
  });

  test('9b. marks are checked again when a revision changes and when it is accepted', async () => {
    const change = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}`, { labels: { tsvisimage: 'demo15' } });
    ok(change, 202);
    // The room goes before the revision is accepted.
    ok(await call('Alice', 'PATCH', '/tenant/acme/account/main/environment/prod', { marks: { vcpu: '100m' } }), 200);
    const late = await call('Sam', 'PUT', `/tenant/acme/service/web/revision/${change.body.data.revision.id}?accept=true`);
    assert.equal(late.status, 422, JSON.stringify(late.body));
    assert.equal(late.body.code, 'MarkExceeded');
    assert.match(late.body.content!.message, /^Accepted now, service web would take environment main\/prod over its marks \(vcpu: [\d.]+ needed, 0\.1 allowed\)/);
    ok(await call('Sam', 'PUT', `/tenant/acme/service/web/revision/${change.body.data.revision.id}?accept=false`), 200);
    const grow = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}`, { labels: { tsvisimage: 'demo16' } });
    assert.equal(grow.status, 422);
    assert.match(grow.body.content!.message, /^Changed so, service web would take environment main\/prod over its marks/);
    ok(await call('Alice', 'PATCH', '/tenant/acme/account/main/environment/prod', { marks: { vcpu: 32 } }), 200);
  });

  test('10. link two services; a revision dropping the linked channel needs remove_links', async () => {
    // Axebow's simple form: an artifact reference with parameters. With wait, the answer comes once the
    // revision has settled — here at once, as it waits for the platform's acceptance.
    const api = await call('Bob', 'POST', '/tenant/acme/service/api/simple?accept=true&wait=5', {
      deployment: { artifact: { ref: { domain: 'social', name: 'twitter_stats' } }, config: { parameter: { tsvisimage: 'demo12', 'channel-in': 'server' } }, environment: 'main/prod' },
    });
    ok(api, 200);
    assert.equal(api.body.data.revision.status, 'pending');
    ok(await call('Alice', 'POST', '/tenant/acme/service/web/client/out/tenant/acme/service/api/server/in'), 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/service/web/client/out/tenant/acme/service/api/server/in')).status, 409, 'a link exists once');
    const wrong = await call('Alice', 'POST', '/tenant/acme/service/api/client/in/tenant/acme/service/web/server/out');
    assert.equal(wrong.status, 400, 'a server channel is not a client');
    const links = await call('Bob', 'GET', '/tenant/acme/service/api/links');
    assert.deepEqual(
      links.body.data.map((l: { spec: Record<string, string>; status: { linked: boolean } }) => [l.spec.client_service, l.spec.client_channel, l.spec.server_service, l.spec.server_channel, l.status.linked]),
      [['web', 'out', 'api', 'in', true]],
    );
    const drop = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}`, { labels: { 'channel-out': null } });
    assert.equal(drop.status, 409);
    const moved = await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}`, { labels: { target: 'elsewhere' } });
    assert.equal(moved.status, 400, 'a patch cannot move a service past its environment');
    assert.equal(drop.body.code, 'LinkedChannelRemoved');
    ok(await call('Alice', 'PATCH', `/tenant/acme/service/web/revision/${current}?remove_links=true`, { labels: { 'channel-out': null } }), 202);
    assert.deepEqual((await call('Bob', 'GET', '/tenant/acme/service/api/links')).body.data, []);
    assert.deepEqual((await call('Alice', 'GET', '/tenant/acme/service/web/channels')).body.data, { client: {}, server: {} });
  });

  test('11. a service that would exceed a mark is refused with 422, naming the dimension', async () => {
    const r = await call('Alice', 'POST', '/tenant/acme/service/big', { service: 'social/twitter_stats', environment: 'main/tiny', labels: { tsvisimage: 'demo12' } });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, 'MarkExceeded');
    assert.match(r.body.content!.message, /over its marks \(vcpu: [\d.]+ needed, 0\.001 allowed\)/);
    assert.match(r.body.content!.selection.table[0].reasons[0], /^over its vcpu mark: [\d.]+ needed, 0\.001 allowed$/);
    // Without an environment, a service no environment admits is NoEnvironment, with every environment's reasons.
    ok(await call('Alice', 'PATCH', '/tenant/acme', { rules: { validateEnvironmentUser: [{ reason: 'operators only', sel: ['$.user.role', 'operator', '::eq'] }] } }), 200);
    const none = await call('Alice', 'POST', '/tenant/acme/service/big?dryrun=true', { service: 'social/twitter_stats', labels: { tsvisimage: 'demo12' } });
    ok(none, 200);
    assert.equal(none.body.data.selection.chosen, null);
    assert.equal(none.body.data.preview, undefined);
    const refused = await call('Alice', 'POST', '/tenant/acme/service/big', { service: 'social/twitter_stats', labels: { tsvisimage: 'demo12' } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'NoEnvironment');
    assert.match(refused.body.content!.message, /main\/prod: validateEnvironmentUser "operators only" is false/);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/service/big')).status, 404, 'nothing was created');
  });

  test('12. remove everything', async () => {
    for (const name of ['web', 'api']) ok(await call('Alice', 'DELETE', `/tenant/acme/service/${name}?accept=true`), 202);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/service')).body.data.length, 0);
    ok(await call('Alice', 'DELETE', '/tenant/acme/port/web'), 200);
    ok(await call('Alice', 'DELETE', '/tenant/acme/secret/token'), 200);
    for (const env of ['prod', 'dev', 'tiny']) ok(await call('Alice', 'DELETE', `/tenant/acme/account/main/environment/${env}`), 200);
    ok(await call('Alice', 'DELETE', '/tenant/acme/account/main'), 200);
    // The last owner cannot leave the platform while the tenant is hers.
    const leave = await call('Alice', 'DELETE', '/user');
    assert.equal(leave.status, 409);
    assert.equal(leave.body.code, 'LastOwner');
    ok(await call('Alice', 'DELETE', '/tenant/acme'), 200);
    ok(await call('Alice', 'DELETE', '/user'), 200);
    // Her tokens went with her.
    assert.equal((await call('Alice', 'GET', '/user/info')).status, 401);
    assert.equal((await call('Bob', 'GET', '/tenant/acme')).status, 404);
  });
});
