/**
 * A database outage is recognised in the shapes postgres.js and drizzle
 * throw it, and answered 503 Unavailable with a retry-after by the REST API
 * (route errors and authentication alike) and by tRPC, instead of a 500.
 * The end-to-end proof on a stopped PostgreSQL is server/reliability/outage.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { TRPCError } from '@trpc/server';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { APP_ERROR_TO_TRPC } from '../api/errors';
import { appRouter, createCaller } from '../api/root';
import { createRestCore, createRestHandler, webHandler, API_PREFIX } from '../rest/dispatch';
import { answeringDbOutage, REST_ERRORS } from '../rest/errors';
import { route } from '../rest/route';
import { AppError } from '../errors';
import type { Services } from '../services';
import { DB_RETRY_AFTER_SECONDS, DB_UNAVAILABLE_MESSAGE, dbUnavailableError, dbUnavailableReason, isDbUnavailable } from './unavailable';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });
const closed = () => Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED', errno: 'CONNECTION_CLOSED' });
/** A PostgresError as postgres.js builds it: the SQLSTATE in `code`, with a severity. */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { name: 'PostgresError', code, severity: 'FATAL' });
const wrapped = (cause: Error) => new DrizzleQueryError('select 1', [], cause);

describe('recognising a database outage', () => {
  test('connection errors, wrapped by drizzle or not, and the server going away or starting', () => {
    for (const e of [
      refused(),
      wrapped(refused()),
      wrapped(closed()),
      Object.assign(new Error('write CONNECTION_ENDED'), { code: 'CONNECTION_ENDED' }),
      Object.assign(new Error('write CONNECT_TIMEOUT'), { code: 'CONNECT_TIMEOUT' }),
      wrapped(pgError('57P01', 'terminating connection due to administrator command')),
      pgError('57P03', 'the database system is starting up'),
      pgError('08006', 'connection failure'),
      new AggregateError([refused(), refused()], 'connect failed'),
      new AppError('UNAVAILABLE', DB_UNAVAILABLE_MESSAGE),
    ]) assert.equal(isDbUnavailable(e), true, String(e));
  });

  test('everything else stays what it is: query errors, a refusing template URL, domain errors', () => {
    for (const e of [
      new Error('boom'),
      wrapped(pgError('23505', 'duplicate key value violates unique constraint')),
      pgError('40001', 'could not serialize access'),
      // A code alone is not a SQLSTATE: 08… counts only on a server error (with a severity).
      Object.assign(new Error('x'), { code: '08006' }),
      Object.assign(new TypeError('fetch failed'), { cause: refused() }),
      new AppError('CONFLICT', 'stale'),
      undefined,
      'ECONNREFUSED',
    ]) assert.equal(isDbUnavailable(e), false, String(e));
    assert.equal(dbUnavailableError(new Error('boom')), undefined);
  });

  test('the API error says what to do and when; the log line says what the connection said, not the query', () => {
    const e = dbUnavailableError(wrapped(refused()))!;
    assert.equal(e.code, 'UNAVAILABLE');
    assert.equal(e.message, 'The database is unreachable; try again shortly.');
    assert.equal(e.details?.retryAfterSeconds, DB_RETRY_AFTER_SECONDS);
    assert.equal(dbUnavailableReason(wrapped(refused())), 'connect ECONNREFUSED 127.0.0.1:5432');
    assert.equal(dbUnavailableReason(wrapped(pgError('57P01', 'terminating connection'))), '57P01 terminating connection');
  });

  test('the error tables: 503 Unavailable in REST, SERVICE_UNAVAILABLE (503) in tRPC', () => {
    assert.deepEqual(REST_ERRORS.UNAVAILABLE, { status: 503, code: 'Unavailable' });
    assert.deepEqual(APP_ERROR_TO_TRPC.UNAVAILABLE, { trpc: 'SERVICE_UNAVAILABLE', http: 503 });
  });
});

describe('answering a database outage', () => {
  const alice = { id: 'local:alice', name: 'alice', labels: {}, provider: 'test' as const };
  const down = route({ method: 'GET', path: '/down', summary: 'fails', tag: 'test', auth: 'public', access: 'anyone', handler: async () => Promise.reject(wrapped(closed())) });
  const broken = route({ method: 'GET', path: '/broken', summary: 'fails', tag: 'test', auth: 'public', access: 'anyone', handler: async () => Promise.reject(new Error('a bug')) });

  test('REST: a route whose query finds the database gone is 503 Unavailable with retry-after; other faults stay 500', async () => {
    const handler = createRestHandler({ routes: [down, broken], services: async () => ({}) as Services, authenticate: async () => ({ actor: null }) });
    const r = await handler(new Request(`http://localhost${API_PREFIX}/down`));
    assert.equal(r.status, 503);
    assert.equal(r.headers.get('retry-after'), String(DB_RETRY_AFTER_SECONDS));
    const body = (await r.json()) as { code: string; content: { message: string; retryAfterSeconds: number } };
    assert.equal(body.code, 'Unavailable');
    assert.equal(body.content.message, DB_UNAVAILABLE_MESSAGE);
    assert.equal(body.content.retryAfterSeconds, DB_RETRY_AFTER_SECONDS);
    const errors = console.error;
    console.error = () => {};
    try {
      assert.equal((await handler(new Request(`http://localhost${API_PREFIX}/broken`))).status, 500);
    } finally {
      console.error = errors;
    }
  });

  test('REST: authentication that reads tokens from a database that is gone is 503 too', async () => {
    const handler = webHandler(
      answeringDbOutage(createRestCore({ routes: [down], services: async () => ({}) as Services, authenticate: async () => Promise.reject(wrapped(refused())) })),
    );
    const r = await handler(new Request(`http://localhost${API_PREFIX}/down`));
    assert.equal(r.status, 503);
    assert.equal(r.headers.get('retry-after'), String(DB_RETRY_AFTER_SECONDS));
    assert.equal(((await r.json()) as { code: string }).code, 'Unavailable');
  });

  test('tRPC: SERVICE_UNAVAILABLE with the message for callers, 503 over HTTP with appCode UNAVAILABLE', async () => {
    const services = { policy: { head: async () => Promise.reject(wrapped(refused())) } } as unknown as Services;
    await assert.rejects(createCaller({ actor: alice, services }).policy.head(), (e: unknown) => {
      assert.ok(e instanceof TRPCError);
      assert.equal(e.code, 'SERVICE_UNAVAILABLE');
      assert.equal(e.message, DB_UNAVAILABLE_MESSAGE);
      return true;
    });
    const res = await fetchRequestHandler({
      endpoint: '/api/trpc',
      router: appRouter,
      createContext: async () => ({ actor: alice, services }),
      req: new Request('http://localhost/api/trpc/policy.head'),
    });
    assert.equal(res.status, 503);
    const body = (await res.json()) as { error: { json: { message: string; data: { appCode: string; httpStatus: number } } } };
    assert.equal(body.error.json.message, DB_UNAVAILABLE_MESSAGE);
    assert.equal(body.error.json.data.appCode, 'UNAVAILABLE');
  });
});
