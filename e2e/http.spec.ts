import { expect, test } from '@playwright/test';

/** Static assets from public/ are served to anyone, without a sign-in redirect. */
test('favicon and robots.txt are served from public/', async ({ request, page }) => {
  const svg = await request.get('/favicon.svg', { maxRedirects: 0 });
  expect(svg.status()).toBe(200);
  expect(svg.headers()['content-type']).toContain('image/svg+xml');
  const ico = await request.get('/favicon.ico', { maxRedirects: 0 });
  expect(ico.status()).toBe(200);
  const robots = await request.get('/robots.txt', { maxRedirects: 0 });
  expect(await robots.text()).toContain('Disallow: /');
  await page.goto('/signin');
  await expect(page.locator('link[rel="icon"][href^="/favicon.svg"]')).toHaveCount(1);
});

/** A streamed body with no Content-Length: up to 40 MiB if nobody stops reading. */
function chunkedBody(): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new Uint8Array(256 * 1024).fill(0x20);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= 40 * 1024 * 1024) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

/** The server counts what it reads: a chunked upload (no Content-Length) past 10 MiB is refused. */
test('request limits hold over real HTTP: chunked bodies by bytes read, batches by count', async ({ baseURL }) => {
  const body = chunkedBody();
  const res = await fetch(`${baseURL}/api/trpc/policy.applyText`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
  expect(res.status).toBe(413);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');

  const calls = Array.from({ length: 21 }, () => 'policy.schemas').join(',');
  const batch = await fetch(`${baseURL}/api/trpc/${calls}?batch=1&input=${encodeURIComponent('{}')}`);
  expect(batch.status).toBe(400);
  expect(((await batch.json()) as { error: { message: string } }).error.message).toContain('at most 20');
});

/** Sign-in forms are small: a chunked upload to next-auth is refused before next-auth buffers it. */
test('a chunked upload to the sign-in endpoint is refused by bytes read', async ({ baseURL }) => {
  const res = await fetch(`${baseURL}/api/auth/callback/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: chunkedBody(),
    duplex: 'half',
  } as RequestInit);
  expect(res.status).toBe(413);
  expect(((await res.json()) as { error: { message: string } }).error.message).toContain('over the limit of 65536 bytes');
});

test('failed sign-ins are limited per account: the sixth try is 429 with Retry-After, even with the right password', async ({ request, page }) => {
  const attempt = async (password: string) => {
    const { csrfToken } = (await (await request.get('/api/auth/csrf')).json()) as { csrfToken: string };
    return request.post('/api/auth/callback/local', {
      form: { username: 'carol', password, csrfToken, callbackUrl: '/objects', json: 'true' },
      maxRedirects: 0,
    });
  };
  for (let i = 0; i < 5; i++) expect((await attempt('wrong')).status()).not.toBe(429);
  const blocked = await attempt('carol');
  expect(blocked.status()).toBe(429);
  expect(Number(blocked.headers()['retry-after'])).toBeGreaterThan(0);
  // The form says why.
  await page.goto('/signin');
  await page.getByLabel('User name').fill('carol');
  await page.getByLabel('Password').fill('carol');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.locator('.alert-error')).toContainText('Too many failed sign-ins');
});

test('failed sign-ins count against the account however they are sent: JSON bodies and padded names too', async ({ request }) => {
  // An account nobody else signs in as here (unknown names are counted like known ones).
  const attempt = async (username: string, as: 'json' | 'form') => {
    const { csrfToken } = (await (await request.get('/api/auth/csrf')).json()) as { csrfToken: string };
    const fields = { username, password: 'wrong', csrfToken, callbackUrl: '/objects', json: 'true' };
    return request.post('/api/auth/callback/local', { ...(as === 'json' ? { data: fields } : { form: fields }), maxRedirects: 0 });
  };
  for (const [name, as] of [[' mallory', 'json'], ['MALLORY', 'json'], ['mallory ', 'form'], ['\tMallory', 'json'], ['mallory', 'json']] as const) {
    expect((await attempt(name, as)).status(), `${JSON.stringify(name)} as ${as}`).not.toBe(429);
  }
  for (const [name, as] of [['mallory', 'form'], ['  Mallory  ', 'json']] as const) {
    const blocked = await attempt(name, as);
    expect(blocked.status(), `${JSON.stringify(name)} as ${as}`).toBe(429);
    expect(Number(blocked.headers()['retry-after'])).toBeGreaterThan(0);
  }
});
