/**
 * The hostile corpus through the REST API, one request at a time: each is
 * answered with its refusal (or, for a dry run, with claims that end in
 * errors), quickly, nothing is written, and the server answers an ordinary
 * read at once after each. The load test replays the same requests between
 * ordinary traffic at the load rate.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TIERED_OFFERING } from '../testing/cluster';
import { HOSTILE_REQUESTS } from '../testing/hostile-rest';
import { restHarness } from '../testing/rest';

describe('hostile requests through the REST API', () => {
  const api = restHarness({ freeNamespaces: ['acme-*'], resolver: { threads: 2, timeoutMs: 20_000, memoryMb: 1024, warmSandbox: true } });
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };

  test('the tenant with an environment and an offering', async () => {
    for (const [path, body] of [
      ['/tenant/acme', { namespaces: ['acme-web'] }],
      ['/tenant/acme/account/main', {}],
      ['/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example' }],
    ] as const) {
      assert.equal((await api.call('Sam', 'POST', path, body)).status, 201, path);
    }
    await api.services.policy.apply(sam, { text: TIERED_OFFERING, baseGeneration: await api.services.policy.head(sam) });
  });

  for (const [i, h] of HOSTILE_REQUESTS.entries()) {
    test(h.name, { timeout: 60_000 }, async () => {
      const head = await api.services.policy.head(sam);
      const started = performance.now();
      const r = await h.send(api.url.replace(/\/api\/.*$/, ''), 'Sam', i);
      const took = performance.now() - started;
      assert.ok(h.expect.includes(r.status), `${h.name}: ${r.status} ${r.message}`);
      assert.ok(r.status < 500);
      if (r.status >= 400) assert.ok(r.message.length > 10, `a refusal says why: ${r.message}`);
      // Within the engine's limits (template output, service levels, regex steps), not the test's timeout.
      assert.ok(took < 20_000, `${h.name} answered in ${Math.round(took)} ms`);
      const t = performance.now();
      const list = await api.call('Sam', 'GET', '/tenant/acme/service');
      assert.equal(list.status, 200);
      assert.ok(performance.now() - t < 2_000, 'an ordinary read right after is answered at once');
      assert.equal(await api.services.policy.head(sam), head, 'nothing was written');
      const rules = await api.call('Sam', 'GET', '/tenant/acme');
      assert.equal(JSON.stringify(rules.body.data?.rules ?? {}).includes('hostile'), false, 'no hostile rule was taken');
    });
  }
});
