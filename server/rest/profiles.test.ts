/**
 * OpenID provider profiles (Axebow §4.2–4.5): a user links an identity by
 * handing over an ID token the provider signed for this platform. The
 * provider here is real enough: a discovery document and a JWKS served on
 * loopback, tokens signed with its key — and every forged, expired or
 * misdirected token is refused, linking nothing.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { oidcVerifier } from '../auth/oidc-verify';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { serveForTests, testAuth, type TestServer } from '../testing/rest';
import { API_PREFIX } from './dispatch';
import { restApi } from './index';
import { RateLimiter } from './rate-limit';

type Body = { data?: any; code?: string; content?: { message?: string; restCode?: string } }; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('REST API: OpenID provider profiles', () => {
  let server: TestServer;
  let idp: Server;
  let issuer: string;
  let services: Services;
  let repos: Repos;
  let key: KeyLike;
  let stranger: KeyLike;

  before(async () => {
    const published = await generateKeyPair('RS256');
    key = published.privateKey;
    ({ privateKey: stranger } = await generateKeyPair('RS256'));
    const jwk = { ...(await exportJWK(published.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    idp = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      else if (req.url === '/jwks') res.end(JSON.stringify({ keys: [jwk] }));
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
    issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [], identityVerifiers: [oidcVerifier({ provider: 'oidc', issuer, clientId: 'keelson' })] });
    server = await serveForTests(restApi({ services: async () => services, authenticate: testAuth, rateLimit: new RateLimiter({ perSecond: 1e6, burst: 1e6 }) }));
  });
  after(async () => {
    await server.close();
    await new Promise((r) => idp.close(r));
    await services.resolution.close();
  });

  const call = async (user: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> => {
    const res = await fetch(`${server.url}${API_PREFIX}${path}`, {
      method,
      headers: { authorization: `Bearer test:${user}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const token = (sub: string, over: { aud?: string; iss?: string; exp?: number | string; signer?: KeyLike; kid?: string } = {}) =>
    new SignJWT({ email: `${sub}@example.test`, email_verified: true, name: sub })
      .setProtectedHeader({ alg: 'RS256', kid: over.kid ?? 'k1' })
      .setIssuer(over.iss ?? issuer)
      .setAudience(over.aud ?? 'keelson')
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(over.exp ?? '5m')
      .sign(over.signer ?? key);
  const link = async (user: string, jwt: string) => call(user, 'POST', '/user/provider', { jwt });

  test('forged, expired and misdirected tokens are refused (400), and nothing is linked', async () => {
    const cases: [string, string, RegExp][] = [
      ['not a JWT', 'hello', /not a JWT/],
      ['expired', await token('dana', { exp: Math.floor(Date.now() / 1000) - 3600 }), /has expired/],
      ['for another application', await token('dana', { aud: 'someone-else' }), /another application \(audience\)/],
      ['from another issuer', await token('dana', { iss: 'https://evil.example' }), /another provider \(issuer\)/],
      ['signed with a key the provider does not have', await token('dana', { signer: stranger }), /not signed by the provider/],
      ['signed under an unknown key id', await token('dana', { signer: stranger, kid: 'k9' }), /key the provider does not publish/],
    ];
    for (const [what, jwt, re] of cases) {
      const r = await link('Alice', jwt);
      assert.equal(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.content!.message!, re, what);
    }
    const info = await call('Alice', 'GET', '/user/info');
    assert.deepEqual(Object.keys(info.body.data.profiles), ['test'], 'only the native profile');
  });

  test('an API token cannot link a profile (403): a link is a lasting way in', async () => {
    const res = await fetch(`${server.url}${API_PREFIX}/user/provider`, {
      method: 'POST',
      headers: { authorization: 'Bearer token:Alice', 'content-type': 'application/json' },
      body: JSON.stringify({ jwt: await token('dana') }),
    });
    assert.equal(res.status, 403);
    assert.match(((await res.json()) as Body).content!.message!, /not with an API token/);
    assert.equal(await services.users.linkedUser(`oidc:${issuer}#dana`), undefined);
  });

  test('a valid token links the identity; user info shows it; it signs in as the user', async () => {
    const r = await link('Alice', await token('dana'));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const info = await call('Alice', 'GET', '/user/info');
    assert.equal(info.body.data.profiles.oidc.subject, `oidc:${issuer}#dana`);
    assert.equal(info.body.data.profiles.oidc.email, 'dana@example.test');
    assert.equal(info.body.data.profiles.oidc.native, false);
    assert.equal(info.body.data.profiles.test.native, true);
    assert.equal(await services.users.linkedUser(`oidc:${issuer}#dana`), 'local:Alice');
  });

  test('conflicts (409): a second profile for the provider, an identity linked elsewhere, an identity with its own account', async () => {
    const second = await link('Alice', await token('other'));
    assert.equal(second.status, 409);
    assert.match(second.body.content!.message!, /has a oidc profile already/);
    const taken = await link('Bob', await token('dana'));
    assert.equal(taken.status, 409);
    assert.match(taken.body.content!.message!, /linked to another user/);
    await repos.users.upsertUser({ id: `oidc:${issuer}#erin`, name: 'erin@example.test', email: 'erin@example.test', provider: 'oidc', labels: {} });
    const own = await link('Bob', await token('erin'));
    assert.equal(own.status, 409);
    assert.match(own.body.content!.message!, /has its own Keelson account \(erin@example\.test\)/);
    assert.equal((await call('Bob', 'GET', '/user/info')).body.data.profiles.oidc, undefined, 'Bob linked nothing');
  });

  test('removing: a linked profile goes (then 404); the native one never (409); removing the user drops its profiles', async () => {
    assert.equal((await call('Alice', 'DELETE', '/user/provider/test')).status, 409);
    assert.equal((await call('Alice', 'DELETE', '/user/provider/oidc')).status, 200);
    assert.equal((await call('Alice', 'DELETE', '/user/provider/oidc')).status, 404);
    assert.equal(await services.users.linkedUser(`oidc:${issuer}#dana`), undefined, 'dana signs in as herself again');
    assert.equal((await link('Bob', await token('dana'))).status, 201, 'the identity is free to link again');
    assert.equal((await call('Bob', 'DELETE', '/user')).status, 200);
    assert.equal(await services.users.linkedUser(`oidc:${issuer}#dana`), undefined);
  });
});
