/**
 * POST /tenant/<t>/service/<s>/revision/<previous>/simple over HTTP:
 * Axebow's simple form of an update (§5.9.16) — an artifact reference and
 * its config instead of a bundle — refused to those who may not change the
 * service and for a base that is not its current revision, and otherwise
 * a new revision whose claim is the offering with those parameters, scale
 * and resilience, in the environment the service already runs in.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Repos } from '../repo/types';
import { restHarness } from '../testing/rest';
import { API_PREFIX } from './dispatch';
import { REST_ROUTES } from './index';
import { openApiDocument } from './openapi';


/** Alice's service shares her demo dev claim's instances: without it, another image is no conflict. */
async function withoutDemoDevClaims(repos: Repos): Promise<void> {
  const deletes = ['alice_dev', 'bob_dev'].map((name) => ({ kind: 'claim', namespace: 'social', name }));
  await repos.policy.commit({ baseGeneration: await repos.policy.head(), author: 'keelson', message: 'no demo dev claims', upserts: [], deletes });
}

const simple = (parameter: Record<string, string | number>, more: Record<string, unknown> = {}) => ({
  deployment: { artifact: { ref: { domain: 'social', name: 'twitter_stats' } }, config: { parameter, ...more } },
  comment: 'simple update',
});

describe('REST API: updating a service with the simple form', () => {
  const api = restHarness({ freeNamespaces: ['acme-*'], prepare: withoutDemoDevClaims });
  const call = api.call;
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  const claimText = async () => (await api.services.policy.getObject(sam, { kind: 'claim', namespace: 'acme-web', name: 'stats' })).text;

  test('refused to outsiders and for a stale or pending base; otherwise a revision in the same environment', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main', {})).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example' })).status, 201);
    const created = await call('Alice', 'POST', '/tenant/acme/service/stats/simple', { deployment: { ...simple({ tsvisimage: 'demo12' }).deployment, environment: 'main/prod' } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const first = created.body.data.revision.id as number;
    assert.equal((await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${first}?accept=true`)).status, 200);
    const before = await claimText();

    // Denied first: no credentials, then someone outside the tenant; nothing changes.
    assert.equal((await call(null, 'POST', `/tenant/acme/service/stats/revision/${first}/simple`, simple({ tsvisimage: 'demo13' }))).status, 401);
    const outsider = await call('Bob', 'POST', `/tenant/acme/service/stats/revision/${first}/simple`, simple({ tsvisimage: 'demo13' }));
    assert.equal(outsider.status, 403, JSON.stringify(outsider.body));
    assert.match(String(outsider.body.content?.message), /Only members of tenant acme/);
    // A body without an artifact names the field; an unknown base revision is stale, naming the current one.
    const bad = await call('Alice', 'POST', `/tenant/acme/service/stats/revision/${first}/simple`, { deployment: { config: { parameter: {} } } });
    assert.equal(bad.status, 400);
    assert.equal((bad.body.content as { issues: { path: string }[] }).issues[0]?.path, 'deployment.artifact');
    const unknown = await call('Alice', 'POST', `/tenant/acme/service/stats/revision/${first + 50}/simple`, simple({ tsvisimage: 'demo13' }));
    assert.equal(unknown.status, 409);
    assert.equal(unknown.body.code, 'StaleRevision');
    assert.equal((unknown.body.content as { current: number }).current, first);
    // A dry run answers the revision it would make and writes nothing.
    const dry = await call('Alice', 'POST', `/tenant/acme/service/stats/revision/${first}/simple?dryrun=true`, simple({ tsvisimage: 'demo13' }));
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.data.dryrun, true);
    assert.equal(await claimText(), before);

    // The update: every label from the body (parameters, scale per role, resilience); the environment stays.
    const updated = await call('Alice', 'POST', `/tenant/acme/service/stats/revision/${first}/simple`, simple({ tsvisimage: 'demo13', color: 'blue' }, { scale: { web: 2 }, resilience: 1 }));
    assert.equal(updated.status, 202, JSON.stringify(updated.body));
    assert.equal(updated.body.data.revision.status, 'pending');
    const second = updated.body.data.revision.id as number;
    const text = await claimText();
    for (const line of [/tsvisimage: demo13/, /color: blue/, /replicas-web: "2"/, /resilience: "1"/, /target: k8s-example/, /environment: main\/prod/, /user: Alice/, /service: social\/twitter_stats/]) assert.match(text, line);
    assert.doesNotMatch(text, /demo12/);

    // While it is pending no other change starts; once it is current, the first revision is a stale base.
    const pending = await call('Alice', 'POST', `/tenant/acme/service/stats/revision/${first}/simple`, simple({ tsvisimage: 'demo14' }));
    assert.equal(pending.status, 409);
    assert.equal(pending.body.code, 'PendingRevisionExists');
    assert.equal((await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${second}?accept=true`)).status, 200);
    const stale = await call('Alice', 'POST', `/tenant/acme/service/stats/revision/${first}/simple`, simple({ tsvisimage: 'demo14' }));
    assert.equal(stale.status, 409);
    assert.equal(stale.body.code, 'StaleRevision');
    assert.equal((stale.body.content as { current: number }).current, second);
    assert.match(await claimText(), /tsvisimage: demo13/, 'nothing was written');

    // Naming another environment moves it there.
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main/environment/stage', { cluster: 'k8s-example' })).status, 201);
    const moved = await call('Alice', 'POST', `/tenant/acme/service/stats/revision/${second}/simple`, { deployment: { ...simple({ tsvisimage: 'demo13' }).deployment, environment: 'main/stage' } });
    assert.equal(moved.status, 202, JSON.stringify(moved.body));
    assert.match(await claimText(), /environment: main\/stage/);
  });

  test('the OpenAPI document has the route, its body and its refusals', () => {
    const doc = openApiDocument(REST_ROUTES) as { paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, { description: string }> }>> };
    const op = doc.paths[`${API_PREFIX}/tenant/{tenant}/service/{name}/revision/{previous}/simple`]?.post;
    assert.ok(op, 'documented');
    assert.match(JSON.stringify(op.requestBody), /"artifact"/);
    assert.match(op.responses['409']!.description, /StaleRevision[\s\S]*PendingRevisionExists/);
    assert.match(op.responses['422']!.description, /MarkExceeded/);
    assert.ok(op.responses['401'] && op.responses['403'] && op.responses['202']);
  });
});
