/**
 * Request limits hold by bytes read, not by what the client declares, and
 * batches are capped — checked on the guard the tRPC route runs first.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { batchSize, guardRequest, MAX_BATCH } from './http-limits';

const URL_BASE = 'http://localhost/api/trpc';

/** A streamed body with no Content-Length, as a chunked upload arrives. */
function chunked(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ >= chunks) return controller.close();
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
}

function post(url: string, body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request(url, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

describe('HTTP request limits', () => {
  test('a chunked body over the limit is refused with 413 after reading just past the limit', async () => {
    let pulled = 0;
    const stream = chunked(1000, 1024).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(c, ctl) {
          pulled += c.byteLength;
          ctl.enqueue(c);
        },
      }),
    );
    const res = await guardRequest(post(`${URL_BASE}/policy.applyText`, stream), { endpoint: '/api/trpc', maxBytes: 64 * 1024 });
    assert.ok(res instanceof Response, 'refused');
    assert.equal(res.status, 413);
    const body = (await res.json()) as { error: { message: string; code: string } };
    assert.equal(body.error.code, 'PAYLOAD_TOO_LARGE');
    assert.match(body.error.message, /over the limit of 65536 bytes/);
    assert.ok(pulled < 200 * 1024, `stopped reading early (read ${pulled} bytes of 1 MB)`);
  });

  test('a Content-Length that understates the body does not get it past the limit', async () => {
    const req = post(`${URL_BASE}/policy.applyText`, chunked(10, 10 * 1024), { 'content-length': '10' });
    const res = await guardRequest(req, { endpoint: '/api/trpc', maxBytes: 32 * 1024 });
    assert.ok(res instanceof Response);
    assert.equal(res.status, 413);
  });

  test('a declared Content-Length over the limit is refused before reading', async () => {
    const req = post(`${URL_BASE}/policy.applyText`, 'x', { 'content-length': String(50 * 1024 * 1024) });
    const res = await guardRequest(req, { endpoint: '/api/trpc' });
    assert.ok(res instanceof Response);
    assert.equal(res.status, 413);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /52428800 bytes, over the limit of/);
  });

  test('a body within the limit passes through whole, chunked or not', async () => {
    const req = post(`${URL_BASE}/policy.applyText`, chunked(3, 1000));
    const out = await guardRequest(req, { endpoint: '/api/trpc', maxBytes: 4000 });
    assert.ok(!(out instanceof Response));
    assert.equal((await out.text()).length, 3000);
    assert.equal(out.headers.get('content-length'), '3000');
  });

  test(`a batch of more than ${MAX_BATCH} calls is refused; ${MAX_BATCH} pass`, async () => {
    const names = (n: number) => Array.from({ length: n }, () => 'policy.head').join(',');
    const over = await guardRequest(new Request(`${URL_BASE}/${names(MAX_BATCH + 1)}?batch=1&input={}`), { endpoint: '/api/trpc' });
    assert.ok(over instanceof Response);
    assert.equal(over.status, 400);
    assert.match(((await over.json()) as { error: { message: string } }).error.message, new RegExp(`batches ${MAX_BATCH + 1} calls; at most ${MAX_BATCH}`));
    const ok = await guardRequest(new Request(`${URL_BASE}/${names(MAX_BATCH)}?batch=1&input={}`), { endpoint: '/api/trpc' });
    assert.ok(!(ok instanceof Response));
    assert.equal(batchSize(new URL(`${URL_BASE}/policy.head`), '/api/trpc'), 1);
  });

  test('a batch is counted as tRPC counts it, after decoding the path: %2C separates calls too', async () => {
    const encoded = Array.from({ length: 200 }, () => 'policy.head').join('%2C');
    const over = await guardRequest(new Request(`${URL_BASE}/${encoded}?batch=1&input={}`), { endpoint: '/api/trpc' });
    assert.ok(over instanceof Response);
    assert.equal(over.status, 400);
    assert.match(((await over.json()) as { error: { message: string } }).error.message, new RegExp(`batches 200 calls; at most ${MAX_BATCH}`));
    const mixed = `${Array.from({ length: 11 }, () => 'policy.head').join(',')}%2c${Array.from({ length: 10 }, () => 'policy.head').join('%2C')}`;
    assert.equal(batchSize(new URL(`${URL_BASE}/${mixed}?batch=1`), '/api/trpc'), 21);
    // A path that does not decode is refused before tRPC reads it.
    const bad = await guardRequest(new Request(`${URL_BASE}/policy.head%ff?batch=1&input={}`), { endpoint: '/api/trpc' });
    assert.ok(bad instanceof Response);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /not valid percent-encoding/);

    // The route, as Next.js calls it: no procedure of the 200 runs.
    const route = await import('../../app/api/trpc/[trpc]/route');
    const res = await (route.GET as (r: Request, c: unknown) => Promise<Response>)(new Request(`${URL_BASE}/${encoded}?batch=1&input={}`), { params: Promise.resolve({ trpc: encoded }) });
    assert.equal(res.status, 400);
  });

  test('tRPC itself refuses more than MAX_BATCH decoded calls with the options every console handler passes', async () => {
    const { fetchRequestHandler } = await import('@trpc/server/adapters/fetch');
    const { appRouter } = await import('./root');
    const { TRPC_HANDLER_LIMITS } = await import('../http/batch');
    let contexts = 0;
    const encoded = Array.from({ length: MAX_BATCH + 1 }, () => 'policy.head').join('%2C');
    const res = await fetchRequestHandler({
      endpoint: '/api/trpc',
      req: new Request(`${URL_BASE}/${encoded}?batch=1&input={}`),
      router: appRouter,
      createContext: () => {
        contexts++;
        throw new Error('no call of an oversized batch gets this far');
      },
      ...TRPC_HANDLER_LIMITS,
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Batch call exceeds maximum size/);
    assert.equal(contexts, 0);
  });

  test('the tRPC route handler itself refuses a chunked upload past 10 MiB and an oversized batch', async () => {
    // The exported handler, as Next.js calls it: the guard runs before tRPC or any service.
    const route = await import('../../app/api/trpc/[trpc]/route');
    const ctx = { params: Promise.resolve({ trpc: 'policy.applyText' }) };
    const big = post(`${URL_BASE}/policy.applyText`, chunked(45, 256 * 1024), { 'content-type': 'application/json' });
    const res = await (route.POST as (r: Request, c: unknown) => Promise<Response>)(big, ctx);
    assert.equal(res.status, 413);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /over the limit of/);
    const calls = Array.from({ length: MAX_BATCH + 1 }, () => 'policy.head').join(',');
    const batch = await (route.GET as (r: Request, c: unknown) => Promise<Response>)(new Request(`${URL_BASE}/${calls}?batch=1&input={}`), ctx);
    assert.equal(batch.status, 400);
  });
});

describe('a large body is parsed only for a caller who may change something somewhere', () => {
  // Imported here: the limits above need no services.
  const setup = async () => {
    const { memoryRepos } = await import('../repo/memory');
    const { seedDemo } = await import('../seed/demo');
    const { createServices } = await import('../services');
    const { serveEveryDoorForTests } = await import('../testing/console');
    const repos = memoryRepos();
    await seedDemo(repos);
    const services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    return { services, server: await serveEveryDoorForTests(services) };
  };
  /** 100 KiB that is not JSON: parsed, it is a 400 (tRPC: PARSE_ERROR); refused first, it is never parsed. */
  const notJson = 'x'.repeat(100 * 1024);

  test('tRPC and REST alike: 403 to a user with no role, 401 anonymous, before the body is parsed; parsed (and found wanting) for a role holder', async () => {
    const { services, server } = await setup();
    try {
      const send = async (path: string, user: string | null) => {
        const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(user ? { authorization: `Bearer test:${user}` } : {}) }, body: notJson });
        return { status: res.status, text: await res.text() };
      };
      for (const path of ['/api/trpc/policy.applyText', '/api/1.0-beta/tenant/acme/service/x', '/api/dm/expand']) {
        const nobody = await send(path, 'nina');
        assert.equal(nobody.status, 403, `${path}: ${nobody.text}`);
        assert.match(nobody.text, /You may not send a body of 102400 bytes: you have no role that lets you change policy in any namespace/);
        assert.equal((await send(path, null)).status, 401, path);
        // John (a namespace admin) gets his body parsed: it is not JSON.
        const john = await send(path, 'John');
        assert.equal(john.status, 400, `${path}: ${john.text}`);
        assert.match(john.text, /JSON|json|parse/i);
      }
    } finally {
      await server.close();
      await services.resolution.close();
    }
  });
});
