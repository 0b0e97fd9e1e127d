/**
 * A request the server cannot decode is the client's fault: a malformed
 * percent-escape in a REST or DM path or query is a 400 in the API's
 * envelope, read before anything else (a bad escape in the query is not
 * read as U+FFFD), and well-formed escapes still work. The proxy in front
 * of the Next.js routes answers the same way (e2e/encoding.spec.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BAD_PATH_ENCODING, BAD_QUERY_ENCODING } from '../http/percent-encoding';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { testAuth } from '../testing/rest';
import { dmApi } from './dm';
import { restApi } from './index';
import { RateLimiter } from './rate-limit';

describe('percent-encoding in REST and DM requests', () => {
  let services: Services;
  let rest: (req: Request) => Promise<Response>;
  let dm: (req: Request) => Promise<Response>;
  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
    const opts = { services: async () => services, authenticate: testAuth, rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }) };
    rest = restApi(opts);
    dm = dmApi(opts);
  });
  after(() => services.resolution.close());

  const send = (handler: (req: Request) => Promise<Response>, url: string, method = 'GET') =>
    handler(new Request(`http://localhost${url}`, { method, headers: { authorization: 'Bearer test:Sam', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) }, ...(method === 'POST' ? { body: '{}' } : {}) }));

  test('a path that does not decode is a 400 BadRequest, for every method and under both prefixes', async () => {
    for (const [handler, path] of [
      [rest, '/api/1.0-beta/tenant/%ff'],
      [rest, '/api/1.0-beta/tenant/%E0%A4%A/service/x'],
      [dm, '/api/dm/deployments/%ff'],
      [dm, '/api/dm/deployments/shop%2Fweb/manifests/%c0'],
    ] as const) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const res = await send(handler, path, method);
        assert.equal(res.status, 400, `${method} ${path}`);
        assert.deepEqual(await res.json(), { code: 'BadRequest', content: { message: BAD_PATH_ENCODING } }, `${method} ${path}`);
      }
    }
  });

  test('a query that does not decode is a 400 too, not a value with U+FFFD in it', async () => {
    for (const [handler, url] of [
      [rest, '/api/1.0-beta/platform?x=%ff'],
      [rest, '/api/1.0-beta/tenant/x/resource/secret/y?reveal=%ff'],
      [rest, '/api/1.0-beta/platform?%zz=1'],
      [dm, '/api/dm/deployments?x=%e2%82'],
    ] as const) {
      const res = await send(handler, url);
      assert.equal(res.status, 400, url);
      assert.deepEqual(await res.json(), { code: 'BadRequest', content: { message: BAD_QUERY_ENCODING } }, url);
    }
  });

  test('well-formed escapes are read as before', async () => {
    assert.equal((await send(rest, '/api/1.0-beta/platform?x=%20a%2Fb%E2%82%AC')).status, 200);
    assert.equal((await send(dm, '/api/dm/deployments/nope%2Fnothing')).status, 404);
    assert.equal((await send(rest, '/api/1.0-beta/tenant/%6E%6F%70%65')).status, 404, 'tenant "nope", decoded');
  });
});
