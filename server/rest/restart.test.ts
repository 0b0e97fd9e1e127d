/**
 * Restarting a role, or one instance of it (Axebow §5.9.7, §5.9.9): a
 * revision that updates exactly those instances, noted as a restart, with
 * nothing else changed — and the refusals a client meets.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { restHarness } from '../testing/rest';

type Action = { kind: string; key: string; notes?: string[] };
type Step = { action: string; key: string; component: string; deployName: string; restartedAt?: string };

describe('REST API: restarting roles and instances', () => {
  const api = restHarness({ freeNamespaces: ['acme-*'] });
  const call = api.call;
  const alice = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' as const };
  const planOf = async (revision: number) => (await api.services.revisions.get(alice, revision)).plan as unknown as { actions: Action[]; steps: Step[] };

  let first: number;
  test('a running service: created and accepted', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main', {})).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example' })).status, 201);
    const created = await call('Alice', 'POST', '/tenant/acme/service/stats', { service: 'social/twitter_stats', environment: 'main/prod', labels: { tsvisimage: 'demo12' } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    first = created.body.data.revision.id;
    // The instances live in the offering's namespace (social): the platform (Sam) accepts for it.
    const accepted = await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${first}?accept=true`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  });

  test('restart a role: one revision updating that role’s instances only, each noted as a restart', async () => {
    const role = await call('Alice', 'GET', '/tenant/acme/service/stats/role/tweepub');
    assert.equal(role.status, 200, JSON.stringify(role.body));
    const ids = (role.body.data.instances as { id: string }[]).map((i) => i.id);
    assert.ok(ids.length > 0);
    const r = await call('Alice', 'DELETE', '/tenant/acme/service/stats/role/tweepub');
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const plan = await planOf(r.body.data.revision.id);
    assert.deepEqual(plan.steps.map((s) => [s.action, s.deployName]).sort(), ids.map((id) => ['update', id]).sort(), 'exactly the role’s instances are updated');
    for (const s of plan.steps) assert.match(s.restartedAt ?? '', /^\d{4}-\d\d-\d\dT/);
    for (const a of plan.actions.filter((x) => x.kind === 'update')) assert.match(a.notes!.join(' '), /restart requested \(\d{4}-/);
    // Alice may not accept for the social namespace: her restart waits for the platform, like any revision of hers.
    assert.equal(r.body.data.revision.status, 'pending');
    const history = await call('Alice', 'GET', '/tenant/acme/service/stats/history');
    assert.match(history.body.data[0].message, /^restart role tweepub of service stats of tenant acme \(API\)/);
    const again = await call('Alice', 'DELETE', '/tenant/acme/service/stats/role/tweepub');
    assert.equal(again.status, 409, 'a pending revision is decided first');
    assert.match(again.body.content!.message!, /pending revision/);
    const decided = await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${r.body.data.revision.id}?accept=true`);
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
  });

  test('restart one instance by its deploy name; an unknown instance or role is 404', async () => {
    const id = (await call('Alice', 'GET', '/tenant/acme/service/stats/role/tweepub')).body.data.instances[0].id as string;
    // Sam may accept it: asking for the restart is the decision, so it is accepted at once.
    const r = await call('Sam', 'DELETE', `/tenant/acme/service/stats/role/tweepub/instance/${id}`);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.notEqual(r.body.data.revision.status, 'pending');
    const plan = await planOf(r.body.data.revision.id);
    assert.deepEqual(plan.steps.map((s) => [s.action, s.deployName]), [['update', id]]);
    const missing = await call('Alice', 'DELETE', '/tenant/acme/service/stats/role/tweepub/instance/a-nothere');
    assert.equal(missing.status, 404);
    assert.match(missing.body.content!.message!, /Instance a-nothere of role tweepub of service stats/);
    const noRole = await call('Alice', 'DELETE', '/tenant/acme/service/stats/role/nosuch');
    assert.equal(noRole.status, 404);
    const bad = await call('Alice', 'DELETE', '/tenant/acme/service/stats/role/tweepub/instance/..%2Fetc');
    assert.equal(bad.status, 400);
  });

  test('an instance’s log: its apply events only; a container name is accepted; delta limits by age', async () => {
    const id = (await call('Alice', 'GET', '/tenant/acme/service/stats/role/tweepub')).body.data.instances[0].id as string;
    const log = await call('Alice', 'GET', `/tenant/acme/logs/service/stats/role/tweepub/instance/${id}?tail=50`);
    assert.equal(log.status, 200, JSON.stringify(log.body));
    assert.deepEqual(
      (log.body.data.instances as { deployName: string }[]).map((i) => i.deployName),
      [id],
    );
    const key = log.body.data.instances[0].key as string;
    assert.ok((log.body.data.events as { instance: string }[]).every((e) => e.instance === key));
    // The server's "last 60 s" ends no earlier than this request was sent, however long the answer takes.
    const asked = Date.now();
    const container = await call('Alice', 'GET', `/tenant/acme/logs/service/stats/role/tweepub/instance/${id}/container/main?delta=60`);
    assert.equal(container.status, 200);
    assert.ok((container.body.data.events as { at: string }[]).every((e) => asked - Date.parse(e.at) <= 60_001)); // +1: stored times are read back to the millisecond
    assert.equal((await call('Alice', 'GET', '/tenant/acme/logs/service/stats/role/tweepub/instance/a-nothere')).status, 404);
    assert.equal((await call('Alice', 'GET', `/tenant/acme/logs/service/stats/role/tweepub/instance/${id}?delta=0`)).status, 400);
  });

  test('outsiders are refused (403), anonymous callers (401)', async () => {
    assert.equal((await call('nina', 'DELETE', '/tenant/acme/service/stats/role/tweepub')).status, 403);
    const anonymous = await fetch(`${api.url}/tenant/acme/service/stats/role/tweepub`, { method: 'DELETE' });
    assert.equal(anonymous.status, 401);
  });
});
