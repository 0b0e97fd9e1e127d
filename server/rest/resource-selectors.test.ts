/**
 * A registered resource's selector and metadata limit where services may
 * use it, over HTTP, for every kind alike: its own selector (`$.this` the
 * resource, `$.environment` the candidate) and the tenant's
 * validateEnvironmentResource rules (which read its `meta`) are weighed
 * when a service is created and again when a change brings the resource
 * to an environment — 422 naming the resource and the selector, and
 * nothing saved.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Repos } from '../repo/types';
import { restHarness } from '../testing/rest';
import { API_PREFIX } from './dispatch';
import { REST_ROUTES } from './index';
import { openApiDocument } from './openapi';


/** Alice's services share her demo dev claim's instances: without it, their labels conflict with none. */
async function withoutDemoDevClaims(repos: Repos): Promise<void> {
  const deletes = ['alice_dev', 'bob_dev'].map((name) => ({ kind: 'claim', namespace: 'social', name }));
  await repos.policy.commit({ baseGeneration: await repos.policy.head(), author: 'keelson', message: 'no demo dev claims', upserts: [], deletes });
}

const PROD_ONLY = ['$.environment.name', 'prod', '::eq'];
/** The tenant's rule: a resource whose meta says prodOnly=yes goes only where the environment's meta says tier=prod. */
const META_RULE = { reason: 'prod-only resources stay in prod', sel: ['$.resource.meta.prodOnly', 'no', '::getor', 'yes', '::neq', '$.environment.meta.tier', 'prod', '::eq', '::or'] };

describe('REST API: where a resource may be used', () => {
  const api = restHarness({ freeNamespaces: ['acme-*'], secretKey: Buffer.alloc(32, 5), prepare: withoutDemoDevClaims });
  const call = api.call;
  const alice = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' as const };
  const claimText = async (name: string) => (await api.services.policy.getObject(alice, { kind: 'claim', namespace: 'acme-web', name })).text;

  test('selectors and metadata keep resources out of other environments, at create and on every change', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    assert.equal((await call('Alice', 'PATCH', '/tenant/acme', { rules: { validateEnvironmentResource: [META_RULE] } })).status, 200);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main', {})).status, 201);
    for (const [name, tier] of [['prod', 'prod'], ['dev', 'dev']]) {
      assert.equal((await call('Alice', 'POST', `/tenant/acme/account/main/environment/${name}`, { cluster: 'k8s-example', meta: { tier } })).status, 201);
    }

    // A selector that reads what a resource's selector is never given is refused when saved, naming it; nothing is registered.
    const unreadable = await call('Alice', 'POST', '/tenant/acme/port/web', { data: 30380, selector: ['$.service.name', 'stats', '::eq'] });
    assert.equal(unreadable.status, 400, JSON.stringify(unreadable.body));
    assert.match(String(unreadable.body.content?.message), /^port selector: \$\.service\.name: a resource's selector has no \$\.service/);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/port/web')).status, 404);

    // Three kinds, limited two ways: a port and a volume by their own selectors, a secret by its metadata and the tenant's rule.
    assert.equal((await call('Alice', 'POST', '/tenant/acme/port/web', { data: 30380, selector: PROD_ONLY })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/volume/data', { data: { size: '1Gi' }, selector: PROD_ONLY })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/secret/db', { data: 'hunter2', meta: { prodOnly: 'yes' } })).status, 201);
    const svc = (environment: string, labels: Record<string, string>) => ({ service: 'social/twitter_stats', environment, labels: { tsvisimage: 'demo12', ...labels } });

    // Denied at create: each names the resource and what keeps it out; nothing is written.
    const byPort = await call('Alice', 'POST', '/tenant/acme/service/stats', svc('main/dev', { ingress: 'port:web' }));
    assert.equal(byPort.status, 422, JSON.stringify(byPort.body));
    assert.equal(byPort.body.code, 'NoEnvironment');
    assert.match(String(byPort.body.content?.message), /port web's selector \["\$\.environment\.name","prod","::eq"\] is false here/);
    const bySecret = await call('Alice', 'POST', '/tenant/acme/service/stats', svc('main/dev', { password: 'secret:db' }));
    assert.equal(bySecret.status, 422, JSON.stringify(bySecret.body));
    assert.match(String(bySecret.body.content?.message), /validateEnvironmentResource \(secret db\) "prod-only resources stay in prod" is false/);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/service/stats')).status, 404, 'nothing was written');
    // A dry run shows the same reasons in its table.
    const dry = await call('Alice', 'POST', '/tenant/acme/service/stats?dryrun=true', svc('main/dev', { store: 'volume:data' }));
    assert.equal(dry.status, 200);
    assert.deepEqual(dry.body.data.selection.table.map((r: { outcome: string }) => r.outcome), ['excluded']);
    assert.match(dry.body.data.selection.table[0].reasons.join(' '), /volume data's selector .* is false here/);

    // Allowed where they may go; a service using none runs anywhere.
    const stats = await call('Alice', 'POST', '/tenant/acme/service/stats', svc('main/prod', { ingress: 'port:web', password: 'secret:db' }));
    assert.equal(stats.status, 202, JSON.stringify(stats.body));
    assert.equal((await call('Sam', 'PUT', `/tenant/acme/service/stats/revision/${stats.body.data.revision.id}?accept=true`)).status, 200);
    const batch = await call('Alice', 'POST', '/tenant/acme/service/batch', svc('main/dev', {}));
    assert.equal(batch.status, 202, JSON.stringify(batch.body));
    assert.equal((await call('Sam', 'PUT', `/tenant/acme/service/batch/revision/${batch.body.data.revision.id}?accept=true`)).status, 200);

    // Denied on change: moving a service with the port to dev, or giving a dev service the volume, in either form.
    const before = await claimText('stats');
    const moved = await call('Alice', 'PATCH', `/tenant/acme/service/stats/revision/${stats.body.data.revision.id}`, { environment: 'main/dev' });
    assert.equal(moved.status, 422, JSON.stringify(moved.body));
    assert.equal(moved.body.code, 'ResourceNotAllowed');
    assert.match(String(moved.body.content?.message), /^Service stats may not use these resources in environment main\/dev: port web's selector \["\$\.environment\.name","prod","::eq"\] is false here/);
    assert.equal((moved.body.content as { environment: string }).environment, 'main/dev');
    assert.equal(await claimText('stats'), before, 'nothing was saved');
    const batchRev = batch.body.data.revision.id as number;
    const given = await call('Alice', 'PATCH', `/tenant/acme/service/batch/revision/${batchRev}`, { labels: { store: 'volume:data' } });
    assert.equal(given.status, 422, JSON.stringify(given.body));
    assert.match(String(given.body.content?.message), /volume data's selector/);
    const simple = await call('Alice', 'POST', `/tenant/acme/service/batch/revision/${batchRev}/simple`, {
      deployment: { artifact: { ref: { domain: 'social', name: 'twitter_stats' } }, config: { parameter: { tsvisimage: 'demo12', password: 'secret:db' } } },
    });
    assert.equal(simple.status, 422, JSON.stringify(simple.body));
    assert.match(String(simple.body.content?.message), /validateEnvironmentResource \(secret db\) "prod-only resources stay in prod" is false/);
    assert.doesNotMatch(await claimText('batch'), /volume:data|secret:db/);

    // A change that keeps the resources where they may be is no business of theirs.
    const relabelled = await call('Alice', 'PATCH', `/tenant/acme/service/stats/revision/${stats.body.data.revision.id}`, { labels: { note: 'still prod' } });
    assert.equal(relabelled.status, 202, JSON.stringify(relabelled.body));
  });

  test('the OpenAPI document names the refusal on every change and create', () => {
    const doc = openApiDocument(REST_ROUTES) as { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
    const at = (path: string, method: string) => doc.paths[`${API_PREFIX}${path}`]?.[method]?.responses['422']?.description ?? '';
    for (const [path, method] of [
      ['/tenant/{tenant}/service/{name}/revision/{previous}', 'post'],
      ['/tenant/{tenant}/service/{name}/revision/{previous}', 'patch'],
      ['/tenant/{tenant}/service/{name}/revision/{previous}/simple', 'post'],
      ['/tenant/{tenant}/service/{name}/revision/{previous}/scale', 'patch'],
      ['/tenant/{tenant}/service/{name}/revision/{previous}/rollback/{target}', 'put'],
    ] as const) assert.match(at(path, method), /ResourceNotAllowed/, `${method} ${path}`);
    for (const path of ['/tenant/{tenant}/service/{name}', '/tenant/{tenant}/service/{name}/simple']) assert.match(at(path, 'post'), /NoEnvironment[\s\S]*selector/, path);
  });
});
