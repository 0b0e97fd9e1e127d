/**
 * The tRPC surface on PGlite: callers (no HTTP) for rights and codes, and
 * the fetch adapter for HTTP statuses and the error shape the editor reads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { TRPCError } from '@trpc/server';
import { openDb, type DbHandle } from '../db/client';
import { drizzleRepos } from '../repo/drizzle';
import { createServices, type Services } from '../services';
import type { Actor } from '../services/actor';
import { appRouter, createCaller } from './root';

const alice: Actor = { id: 'local:alice', name: 'alice', labels: { org: 'dev' }, provider: 'test' };
const CLAIM = 'kind: claim\nmetadata: {namespace: main, name: c1}\nuser: alice\nservice: web\n';

describe('tRPC policy API on PGlite', () => {
  let h: DbHandle;
  let services: Services;
  before(async () => {
    h = await openDb({ pgliteDir: 'memory://' });
    // An empty install: the configured domain admin writes the first policy.
    services = createServices(drizzleRepos(h.db), { usersFile: undefined, domainAdmins: ['alice'] });
  });
  after(() => h.close());

  const code = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'OK';
    } catch (e) {
      assert.ok(e instanceof TRPCError, String(e));
      return e.code;
    }
  };

  test('anonymous callers get UNAUTHORIZED for reads and writes; schemas are public', async () => {
    const anon = createCaller({ actor: null, services });
    assert.equal(await code(anon.policy.list({})), 'UNAUTHORIZED');
    assert.equal(await code(anon.policy.applyText({ text: CLAIM, baseGeneration: 0 })), 'UNAUTHORIZED');
    assert.equal(await code(anon.policy.generations({})), 'UNAUTHORIZED');
    assert.equal(Object.keys(await anon.policy.schemas()).length, 19);
    assert.equal(await services.policy.head(alice), 0, 'nothing was written');
  });

  test('writes, reads back and history through the API', async () => {
    const api = createCaller({ actor: alice, services });
    const w = await api.policy.applyText({ text: CLAIM, baseGeneration: 0, message: 'add c1' });
    assert.equal(w.generation, 1);
    const obj = await api.policy.get({ kind: 'Claim', namespace: 'main', name: 'c1' });
    assert.equal(obj.text, CLAIM);
    const gens = await api.policy.generations({});
    assert.deepEqual(gens.map((g) => [g.generation, g.author, g.message]), [[1, 'alice', 'add c1']]);
    assert.equal(await code(api.policy.get({ kind: 'claim', namespace: 'main', name: 'nope' })), 'NOT_FOUND');
    assert.equal(await code(api.policy.applyText({ text: CLAIM.replace('c1', 'c2'), baseGeneration: 0 })), 'CONFLICT');
    assert.equal(await code(api.policy.applyText({ text: 'kind: nope\n', baseGeneration: 1 })), 'UNPROCESSABLE_CONTENT');
  });

  test('over HTTP: statuses from the one error table, diagnostics in error data', async () => {
    const call = (actor: Actor | null, path: string, input: unknown) =>
      fetchRequestHandler({
        endpoint: '/api/trpc',
        router: appRouter,
        createContext: async () => ({ actor, services }),
        req: new Request(`http://localhost/api/trpc/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ json: input }),
        }),
      });
    const anon = await call(null, 'policy.applyText', { text: CLAIM, baseGeneration: 1 });
    assert.equal(anon.status, 401);
    const bad = await call(alice, 'policy.applyText', { text: 'kind: claim\nmetadata: {namespace: main, name: c9}\nuser: 5\nservice: web\n', baseGeneration: 1 });
    assert.equal(bad.status, 422);
    const body = (await bad.json()) as { error: { json: { message: string; data: { diagnostics: { line: number; column: number; message: string }[] } } } };
    assert.match(body.error.json.message, /line 3, column 7: user: expected string, got number 5/);
    assert.deepEqual(body.error.json.data.diagnostics.map((d) => [d.line, d.column]), [[3, 7]]);
    const stale = await call(alice, 'policy.applyText', { text: CLAIM.replace('c1', 'c3'), baseGeneration: 0 });
    assert.equal(stale.status, 409);
    const huge = await call(alice, 'policy.applyText', { text: 'x'.repeat(10 * 1024 * 1024 + 10), baseGeneration: 1 });
    assert.equal(huge.status, 400, 'input validation refuses requests over 10 MiB');
    assert.equal(await services.policy.head(alice), 1);
  });
});
