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

/** The server counts what it reads: a chunked upload (no Content-Length) past 10 MiB is refused. */
test('request limits hold over real HTTP: chunked bodies by bytes read, batches by count', async ({ baseURL }) => {
  let sent = 0;
  const chunk = new Uint8Array(256 * 1024).fill(0x20);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Up to 40 MiB if nobody stops reading.
      if (sent >= 40 * 1024 * 1024) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
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
