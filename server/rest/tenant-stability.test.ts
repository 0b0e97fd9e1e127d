/**
 * Issue 35, item 1, end to end on the real pipeline: the platform team's
 * claim `social/prod` is accepted and applied to a GitOps repository; then a
 * tenant creates two services through the REST simple form whose
 * parameters conflict with it on the shared twitter_stats instances. The
 * creates answer with their own claim's error, and `social/prod` keeps
 * its instances — in the resolution, in the revisions' plans and in the
 * repository.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { GitOpsActuator, readTrackedFiles } from '../apply/gitops/actuator';
import { runOnce } from '../apply/worker';
import { restHarness } from '../testing/rest';
import type { Actor } from '../services/actor';

const sam: Actor = { id: 'local:Sam', name: 'Sam', labels: { org: 'it', global_ops: 'true' }, provider: 'test' } as Actor;

describe('a tenant’s creates never break the platform’s running claim', () => {
  const api = restHarness({ freeNamespaces: ['acme*'] });
  const dir = mkdtempSync(join(tmpdir(), 'keelson-stability-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('conflicting creates answer 422 with their reason; social/prod keeps its instances in the plan and the repository', async () => {
    const { services } = api;
    const actuator = new GitOpsActuator(dir);
    const applyAll = async () => {
      while (await runOnce({ revisions: api.repos.revisions, actuator }));
    };
    // The platform's policy (the demo) accepted and applied.
    const demo = await services.revisions.ensureForGeneration(await services.policy.head(sam));
    await services.revisions.decide(sam, { revisionId: demo.id, decision: 'accept' });
    await applyAll();
    const prodInstances = (state: { instances: { key: string; claims: string[]; code?: unknown }[] }) =>
      state.instances.filter((i) => i.claims.includes('social/prod')).map((i) => ({ key: i.key, code: i.code }));
    const before = prodInstances((await services.resolution.get(sam)).state);
    assert.ok(before.length > 0, 'social/prod deploys instances');
    const repoBefore = await readTrackedFiles(dir);
    assert.ok(Object.keys(repoBefore).length > 0);

    assert.equal((await api.call('Sam', 'POST', '/tenant/acme', { namespaces: ['acme'] })).status, 201);
    assert.equal((await api.call('Sam', 'POST', '/tenant/acme/account/main', {})).status, 201);
    assert.equal((await api.call('Sam', 'POST', '/tenant/acme/account/main/environment/dev', { cluster: 'k8s-example' })).status, 201);
    const body = { deployment: { artifact: { ref: { name: 'twitter_stats', domain: 'social' } }, environment: 'main/dev', config: { parameter: { tsvisimage: 'demo11' } } } };
    const generations: number[] = [];
    for (const path of ['/tenant/acme/service/api/simple?wait=10', '/tenant/acme/service/api2/simple?accept=true&wait=10']) {
      const answer = await api.call('Sam', 'POST', path, body);
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'ServiceError');
      const content = answer.body.content as { message: string; generation: number; claim: { status: string } };
      assert.match(content.message, /conflicting code parameters for instance '[^']+': claim 'acme\/api2?' renders values different from deployed claim 'social\/prod', which keeps the instance/);
      assert.equal(content.claim.status, 'error');
      generations.push(content.generation);
    }
    await applyAll();

    // The platform's claim stays resolved, with the same instances rendering the same code.
    const now = (await services.resolution.get(sam)).state;
    assert.equal(now.claims.find((c) => c.namespace === 'social' && c.name === 'prod')?.status, 'resolved');
    assert.deepEqual(prodInstances(now), before);
    // No revision of the creates touches an instance of social/prod (no detach, update or delete).
    const prodKeys = new Set(before.map((i) => i.key));
    for (const g of generations) {
      const rev = await services.revisions.byGeneration(sam, g, { wait: true });
      assert.ok(rev.id !== null);
      const { plan } = await services.revisions.get(sam, rev.id);
      const touching = plan.steps.filter((s: { key: string }) => prodKeys.has(s.key));
      assert.deepEqual(touching, [], `revision ${rev.id} leaves social/prod's instances alone`);
    }
    // And the repository holds what it held.
    assert.deepEqual(await readTrackedFiles(dir), repoBefore);
  });
});
