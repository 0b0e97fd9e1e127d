import { expect, test } from '@playwright/test';

/**
 * Limits count what the server decodes, and a request it cannot decode is
 * the client's fault, answered in the API's own shape — over real HTTP, as
 * Next.js routes it (its own routing decodes paths before our handlers run).
 */

type Envelope = { code: string; content: { message: string } };

test('a tRPC batch written with %2C is counted as the calls tRPC makes of it', async ({ baseURL }) => {
  const calls = Array.from({ length: 200 }, () => 'policy.schemas').join('%2C');
  const res = await fetch(`${baseURL}/api/trpc/${calls}?batch=1&input=${encodeURIComponent('{}')}`);
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: { message: string } }).error.message).toContain('batches 200 calls; at most 20');
  // Mixed: 10 plain commas and 11 encoded ones are 22 calls.
  const mixed = `${Array.from({ length: 11 }, () => 'policy.schemas').join(',')}%2C${Array.from({ length: 11 }, () => 'policy.schemas').join('%2c')}`;
  const res2 = await fetch(`${baseURL}/api/trpc/${mixed}?batch=1&input=${encodeURIComponent('{}')}`);
  expect(res2.status).toBe(400);
});

test('malformed percent-encoding in a REST or DM path or query is a 400 in the API envelope, not a 500', async ({ baseURL }) => {
  for (const path of ['/api/1.0-beta/tenant/%ff', '/api/1.0-beta/tenant/%ff/service/x', '/api/1.0-beta/%E0%A4%A', '/api/dm/deployments/%ff', '/api/dm/deployments/a%2Fb/manifests/%c0']) {
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${baseURL}${path}`, { method, redirect: 'manual', ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.headers.get('content-type'), `${method} ${path}`).toContain('application/json');
      const body = (await res.json()) as Envelope;
      expect(body.code, `${method} ${path}`).toBe('BadRequest');
      expect(body.content.message, `${method} ${path}`).toMatch(/percent-encoding/);
    }
  }
  // Next.js reads the query before our handlers and hands them a bad escape as U+FFFD (the REST handler refuses
  // one it sees itself: server/rest/encoding.test.ts); either way it is an answer in the API's shape, never a 500.
  for (const query of ['/api/1.0-beta/platform?x=%ff', '/api/1.0-beta/platform?%zz=1', '/api/dm/deployments?x=%e2%82', '/api/1.0-beta/tenant/%ff?x=%ff']) {
    const res = await fetch(`${baseURL}${query}`);
    expect(res.status, query).toBeLessThan(500);
    expect(res.headers.get('content-type'), query).toContain('application/json');
  }
  // Well-formed escapes still work.
  const ok = await fetch(`${baseURL}/api/1.0-beta/platform?x=%20a%2Fb`);
  expect(ok.status).toBe(200);
});

test('a tRPC (or sign-in) path that does not decode is a 400, not a 500', async ({ baseURL }) => {
  for (const path of [`/api/trpc/policy.schemas%ff?batch=1&input=${encodeURIComponent('{}')}`, '/api/trpc/policy.schemas%ff', '/api/auth/%ff']) {
    const res = await fetch(`${baseURL}${path}`);
    expect(res.status, path).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message, path).toMatch(/not valid percent-encoding/);
  }
});
