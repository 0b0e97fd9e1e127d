/**
 * GET /platform over HTTP: Axebow's #PlatformInfo with the freemium limits,
 * the port range and the reference domain this instance was configured
 * with (server/env.ts, checked once at start), and the defaults an
 * instance configured with nothing answers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { EnvError, loadEnv } from '../env';
import { restHarness } from '../testing/rest';
import { openApiDocument } from './openapi';
import { API_PREFIX } from './dispatch';
import { REST_ROUTES } from './index';

const made: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'keelson-platform-'));
  made.push(d);
  return d;
};
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('GET /platform: configuration a client reads', () => {
  test('a bad limit, port range or domain stops start-up naming the variable', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ KEELSON_FREEMIUM_LIMITS: 'cpu=2' }, /KEELSON_FREEMIUM_LIMITS: "cpu" is not a dimension/],
      [{ KEELSON_FREEMIUM_LIMITS: 'vcpu=two' }, /KEELSON_FREEMIUM_LIMITS: vcpu=two: must be a quantity/],
      [{ KEELSON_FREEMIUM_ADVANCED_LIMITS: 'vcpu=2,vcpu=4' }, /KEELSON_FREEMIUM_ADVANCED_LIMITS: vcpu is given twice/],
      [{ KEELSON_FREEMIUM_LIMITS: 'services=1.5' }, /KEELSON_FREEMIUM_LIMITS: services=1\.5: must be a whole number/],
      [{ KEELSON_PORT_RANGE: '32767-30000' }, /KEELSON_PORT_RANGE: must be first-last/],
      [{ KEELSON_PORT_RANGE: '0-70000' }, /KEELSON_PORT_RANGE: must be first-last/],
      [{ KEELSON_REFERENCE_DOMAIN: 'https://apps.example.com' }, /KEELSON_REFERENCE_DOMAIN: must be a domain name/],
    ];
    for (const [vars, message] of bad) {
      assert.throws(() => loadEnv({ KEELSON_DATA_DIR: dataDir(), ...vars }), (e: unknown) => e instanceof EnvError && message.test(e.message), JSON.stringify(vars));
    }
  });

  describe('configured', () => {
    const env = loadEnv({
      KEELSON_DATA_DIR: dataDir(),
      KEELSON_FREEMIUM_LIMITS: 'vcpu=1, memory=2Gi',
      KEELSON_FREEMIUM_ADVANCED_LIMITS: 'vcpu=4,memory=8Gi,storage=20Gi,services=10',
      KEELSON_PORT_RANGE: '31000-31999',
      KEELSON_REFERENCE_DOMAIN: 'Apps.Example.com',
    });
    const api = restHarness({ platform: env.platform });

    test('anyone, signed in or not, reads the freemium limits, the port range and the reference domain', async () => {
      for (const who of [null, 'Alice']) {
        const r = await api.call(who, 'GET', '/platform');
        assert.equal(r.status, 200);
        assert.deepEqual(r.body.data.freemiumLimits, { vcpu: 1, memory: '2Gi' });
        assert.deepEqual(r.body.data.freemiumAdvancedLimits, { vcpu: 4, memory: '8Gi', storage: '20Gi', services: 10 });
        assert.deepEqual(r.body.data.portRange, [31000, 31999]);
        assert.equal(r.body.data.referenceDomain, 'apps.example.com');
        assert.deepEqual(r.body.data.apiVersions, ['1.0-beta'], 'what it answered before is still there');
      }
    });
  });

  describe('configured with nothing', () => {
    const env = loadEnv({ KEELSON_DATA_DIR: dataDir(), NEXTAUTH_URL: 'https://console.example.org' });
    const api = restHarness({ platform: env.platform });

    test("the defaults: Axebow's freemium quota (2 vCPU, 4 GB), Kubernetes' NodePort range, the console's own host", async () => {
      const r = await api.call(null, 'GET', '/platform');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data.freemiumLimits, { vcpu: 2, memory: '4Gi' });
      assert.deepEqual(r.body.data.freemiumAdvancedLimits, { vcpu: 2, memory: '4Gi' }, 'unset, the advanced limits are the basic ones');
      assert.deepEqual(r.body.data.portRange, [30000, 32767]);
      assert.equal(r.body.data.referenceDomain, 'console.example.org');
    });
  });

  test('the OpenAPI document describes the new fields of the answer', () => {
    const doc = openApiDocument(REST_ROUTES) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const text = JSON.stringify(doc.paths[`${API_PREFIX}/platform`]?.get?.responses['200']);
    for (const field of ['freemiumLimits', 'freemiumAdvancedLimits', 'portRange', 'referenceDomain']) assert.match(text, new RegExp(`"${field}"`), field);
  });
});
