/**
 * A tenant's service through the REST API, the way a client drives it:
 * a dry run that writes nothing, the real create (a claim in the caller's
 * name on the environment's cluster), acceptance of its revision by who may
 * accept it, history, removal and a rejected removal.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Repos } from '../repo/types';
import { restHarness } from '../testing/rest';

/**
 * The demo's own dev claims of the users who create services here: a
 * tenant service of theirs shares those claims' dev instances, so any other
 * image or label would conflict with a running claim and be refused (422).
 */
async function withoutDemoDevClaims(repos: Repos): Promise<void> {
  const deletes = ['alice_dev', 'bob_dev'].map((name) => ({ kind: 'claim', namespace: 'social', name }));
  await repos.policy.commit({ baseGeneration: await repos.policy.head(), author: 'keelson', message: 'no demo dev claims', upserts: [], deletes });
}


describe('REST API: a service from dry run to removal', () => {
  const api = restHarness({ freeNamespaces: ['acme-*'], prepare: withoutDemoDevClaims });
  const call = api.call;

  const claimText = async () =>
    (await api.services.policy.getObject({ id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' }, { kind: 'claim', namespace: 'acme-web', name: 'stats' })).text;

  const spec = { service: 'social/twitter_stats', environment: 'main/prod', labels: { tsvisimage: 'demo12' } };

  test('the story', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main', {})).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example' })).status, 201);

    // A dry run answers the revision it would make, and writes nothing.
    const head = await api.services.policy.head({ id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' });
    const dry = await call('Alice', 'POST', '/tenant/acme/service/stats?dryrun=true', spec);
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.data.dryrun, true);
    assert.equal(dry.body.data.preview.ok, true);
    assert.equal(dry.body.data.admission.ok, true, 'prod has no marks');
    assert.ok(dry.body.data.preview.changedClaims.includes('acme-web/stats'));
    assert.equal(await api.services.policy.head({ id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' }), head);
    assert.deepEqual((await call('Alice', 'GET', '/tenant/acme/service')).body.data, []);

    // The real create: a claim in Alice's name, targeting the environment's cluster.
    const created = await call('Alice', 'POST', '/tenant/acme/service/stats', spec);
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const rev = created.body.data.revision.id as number;
    assert.deepEqual([created.body.data.dryrun, created.body.data.revision.status], [false, 'pending']);
    const claim = await api.services.policy.getObject({ id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' }, { kind: 'claim', namespace: 'acme-web', name: 'stats' });
    assert.match(claim.text, /user: Alice/);
    assert.match(claim.text, /target: k8s-example/);
    const again = await call('Alice', 'POST', '/tenant/acme/service/stats', spec);
    assert.equal(again.status, 409);

    const list = await call('Alice', 'GET', '/tenant/acme/service');
    assert.deepEqual(list.body.data.map((s: { name: string; status: string; user: string }) => [s.name, s.status, s.user]), [['stats', 'resolved', 'Alice']]);
    const one = await call('Alice', 'GET', '/tenant/acme/service/stats?summary=true');
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data.outcome.trace, []);
    assert.ok(one.body.data.instances.length > 0);
    assert.ok((await call('Alice', 'GET', '/tenant/acme/service/stats')).body.data.outcome.trace.length > 0);

    // Alice owns the tenant but not the platform and social namespaces her claim reaches: she may not accept.
    const refused = await call('Alice', 'PUT', `/tenant/acme/service/stats/revision/${rev}?accept=true`);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    const accepted = await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${rev}?accept=true`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.data.revisionId, rev);
    assert.notEqual(accepted.body.data.status, 'pending');

    // Logs: the service's code instances and what applying them reported (no worker runs here: nothing yet).
    const logs = await call('Alice', 'GET', '/tenant/acme/logs/service/stats?tail=5');
    assert.equal(logs.status, 200, JSON.stringify(logs.body));
    assert.ok(logs.body.data.instances.length > 0);
    assert.ok(logs.body.data.instances.every((i: { deployName: string }) => i.deployName.startsWith('a-')));
    assert.ok(Array.isArray(logs.body.data.events));
    assert.equal((await call('Alice', 'GET', '/tenant/acme/logs/service/stats?tail=0')).status, 400);

    const history = await call('Alice', 'GET', '/tenant/acme/service/stats/history');
    assert.deepEqual(history.body.data.map((h: { id: number; change: string; author: string }) => [h.id, h.change, h.author]), [[rev, 'create', 'Alice']]);

    // Scaling is a new revision setting the replicas label; twitter_stats reads none, so it deploys nothing (no-op).
    const scaled = await call('Alice', 'PATCH', `/tenant/acme/service/stats/revision/${rev}/scale`, { scale: 2 });
    assert.equal(scaled.status, 202, JSON.stringify(scaled.body));
    const scaleRev = scaled.body.data.revision.id as number;
    assert.equal(scaled.body.data.revision.status, 'no-op');
    assert.match(await claimText(), /replicas: "2"/);
    // It is now the current revision: a change based on the older one is stale.
    const stale = await call('Alice', 'PATCH', `/tenant/acme/service/stats/revision/${rev}`, { labels: { tsvisimage: 'demo13' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.code, 'StaleRevision');
    assert.equal((stale.body.content as { current: number }).current, scaleRev);
    // A partial update: a new image tag, so a pending revision; while it is pending, no other change may start.
    const patched = await call('Alice', 'PATCH', `/tenant/acme/service/stats/revision/${scaleRev}`, { labels: { tsvisimage: 'demo13' } });
    assert.equal(patched.status, 202, JSON.stringify(patched.body));
    assert.equal(patched.body.data.revision.status, 'pending');
    const patchRev = patched.body.data.revision.id as number;
    assert.match(await claimText(), /tsvisimage: demo13[\s\S]*replicas: "2"|replicas: "2"[\s\S]*tsvisimage: demo13/);
    const busy = await call('Alice', 'PATCH', `/tenant/acme/service/stats/revision/${scaleRev}`, { labels: { color: 'blue' } });
    assert.equal(busy.status, 409);
    assert.equal(busy.body.code, 'PendingRevisionExists');
    // Rejected: the service stays on its current revision, and the next change starts from there.
    assert.equal((await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${patchRev}?accept=false`)).body.data.status, 'rejected');
    // Roll back to the first revision: a new revision with the claim it had (no replicas label).
    const rolled = await call('Alice', 'PUT', `/tenant/acme/service/stats/revision/${scaleRev}/rollback/${rev}`);
    assert.equal(rolled.status, 202, JSON.stringify(rolled.body));
    const text = await claimText();
    assert.doesNotMatch(text, /replicas/);
    assert.match(text, /tsvisimage: demo12/);
    const rollRev = rolled.body.data.revision.id as number;
    // A full update replaces the spec, from the rollback's revision.
    const replaced = await call('Alice', 'POST', `/tenant/acme/service/stats/revision/${rollRev}`, { service: 'social/twitter_stats', labels: { tsvisimage: 'demo14' } });
    assert.equal(replaced.status, 202, JSON.stringify(replaced.body));
    assert.match(await claimText(), /tsvisimage: demo14/);
    assert.equal((await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${replaced.body.data.revision.id}?accept=true`)).status, 200);

    // Removing is a new revision; Sam rejects it and the service stays.
    const removed = await call('Alice', 'DELETE', '/tenant/acme/service/stats');
    assert.equal(removed.status, 202, JSON.stringify(removed.body));
    const removal = removed.body.data.revision.id as number;
    assert.notEqual(removal, rev);
    const rejected = await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${removal}?accept=false`);
    assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
    assert.equal(rejected.body.data.status, 'rejected');
    const after = await call('Alice', 'GET', '/tenant/acme/service/stats/history');
    const changes = after.body.data.map((h: { id: number; change: string }) => [h.id, h.change]);
    assert.deepEqual(changes[0], [removal, 'delete']);
    assert.deepEqual(changes.at(-1), [rev, 'create']);
    assert.equal(changes.length, 6, JSON.stringify(changes));

    // An environment whose marks the service would exceed: the dry run says so, the create is 422.
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main/environment/tiny', { cluster: 'k8s-example', marks: { instances: 2 } })).status, 201);
    const tight = { ...spec, environment: 'main/tiny' };
    const tightDry = await call('Alice', 'POST', '/tenant/acme/service/big?dryrun=true', tight);
    assert.equal(tightDry.status, 200);
    assert.equal(tightDry.body.data.admission.ok, false);
    assert.deepEqual(tightDry.body.data.admission.over.map((o: { dimension: string; mark: number }) => [o.dimension, o.mark]), [['instances', 2]]);
    const over = await call('Alice', 'POST', '/tenant/acme/service/big', tight);
    assert.equal(over.status, 422, JSON.stringify(over.body));
    assert.equal(over.body.code, 'MarkExceeded');
    assert.match(String(over.body.content?.message), /would take environment main\/tiny over its marks \(instances: \d+ needed, 2 allowed\)/);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/service/big')).status, 404, 'nothing was written');

    // A revision that is not this service's is not found under it; neither is an unknown service.
    assert.equal((await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/999?accept=true`)).status, 404);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/service/nothing')).status, 404);
    // Bad input names the field.
    const bad = await call('Alice', 'POST', '/tenant/acme/service/x', { service: 'a/b/c' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.content && (bad.body.content as { issues: { path: string }[] }).issues[0]?.path, 'service');
    assert.equal((await call('Alice', 'POST', '/tenant/acme/service/x', { ...spec, environment: 'main/nope' })).status, 404);
    // A claim built from fields the policy cannot store is refused naming the field, and nothing is written.
    const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
    const before = await api.services.policy.head(sam);
    const nul = await call('Alice', 'POST', '/tenant/acme/service/y', { ...spec, labels: { note: 'a\u0000b' } });
    assert.equal(nul.status, 400, JSON.stringify(nul.body));
    assert.match(String((nul.body.content as { message: string }).message), /labels\.note holds a NUL character/);
    assert.equal(await api.services.policy.head(sam), before);
  });
});
