/**
 * The hostile corpus through the REST API, one request at a time: each is
 * answered with its refusal (or, for a dry run, with claims that end in
 * errors) from the engine's own limits, nothing is written, and the server
 * answers an ordinary read after each (how fast: the hostile benchmarks). The load test replays the same requests between
 * ordinary traffic at the load rate.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TIERED_OFFERING } from '../testing/cluster';
import { HOSTILE_REQUESTS } from '../testing/hostile-rest';
import { restHarness } from '../testing/rest';

describe('hostile requests through the REST API', () => {
  // A resolution budget of many minutes: the engine's limits, which the refusals name, are what stops each request.
  // (Reading a request keeps its own 20 s budget, which this harness cannot set.)
  const api = restHarness({ freeNamespaces: ['acme-*'], resolver: { threads: 2, timeoutMs: 600_000, admissionTimeoutMs: 600_000, memoryMb: 1024, warmSandbox: true } });
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
    test(h.name, { timeout: 900_000 }, async () => {
      const head = await api.services.policy.head(sam);
      // Answered within the engine's limits (template output, service levels, regex steps), whose errors the
      // refusals name; how fast is the hostile benchmarks' figure, not an assertion here.
      const r = await h.send(api.url.replace(/\/api\/.*$/, ''), 'Sam', i);
      assert.ok(h.expect.includes(r.status), `${h.name}: ${r.status} ${r.message}`);
      assert.ok(r.status < 500);
      if (r.status >= 400) assert.ok(r.message.length > 10, `a refusal says why: ${r.message}`);
      const list = await api.call('Sam', 'GET', '/tenant/acme/service');
      assert.equal(list.status, 200, 'an ordinary read right after is answered');
      assert.equal(await api.services.policy.head(sam), head, 'nothing was written');
      const rules = await api.call('Sam', 'GET', '/tenant/acme');
      assert.equal(JSON.stringify(rules.body.data?.rules ?? {}).includes('hostile'), false, 'no hostile rule was taken');
    });
  }
});
