import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { deepFreeze } from '../engine/values';
import { createRestCore, type RestReply } from './dispatch';
import { route } from './route';

/** A schema that counts its checks: a shared answer is checked once per route, whoever reads it. */
function counted<T extends z.ZodType>(schema: T) {
  let checks = 0;
  const s = z.any().transform((v, ctx) => {
    checks++;
    const r = schema.safeParse(v);
    if (!r.success) {
      for (const i of r.error.issues) ctx.addIssue({ ...i, code: 'custom' } as never);
      return z.NEVER;
    }
    return r.data;
  });
  return { schema: s, get checks() {
    return checks;
  } };
}

describe('answers shared by many requests', () => {
  const item = z.object({ name: z.string() });
  const shared = deepFreeze([{ name: 'one', secret: 'not in the schema' }, { name: 'two' }]);
  let answer: unknown = shared;
  const listCheck = counted(z.array(item));
  const otherCheck = counted(z.array(z.object({ name: z.string().max(2) })));
  const core = createRestCore({
    routes: [
      route({ method: 'GET', path: '/list', tag: 't', summary: 's', auth: 'public', access: 'anyone', response: listCheck.schema, handler: async () => ({ data: answer as never }) }),
      route({ method: 'GET', path: '/other', tag: 't', summary: 's', auth: 'public', access: 'anyone', response: otherCheck.schema, handler: async () => ({ data: shared as never }) }),
    ],
    services: async () => ({}) as never,
    authenticate: async () => ({ actor: null }),
  });
  const get = (path: string): Promise<RestReply> => core({ method: 'GET', url: `http://localhost/api/1.0-beta${path}`, headers: { get: () => null }, body: null });

  test('a frozen answer is checked and serialised once; every reader gets the same body, without what the schema leaves out', async () => {
    const first = await get('/list');
    const second = await get('/list');
    assert.equal(listCheck.checks, 1);
    assert.deepEqual(first.json, { data: [{ name: 'one' }, { name: 'two' }] });
    assert.equal(second.text, JSON.stringify(first.json));
    assert.ok(!second.text!.includes('secret'));
  });

  test('an answer that is not frozen is checked every time', async () => {
    answer = [{ name: 'three' }];
    await get('/list');
    await get('/list');
    assert.equal(listCheck.checks, 3);
    answer = shared;
  });

  test("the same frozen value through another route is checked against that route's schema", async (t) => {
    const logged: string[] = [];
    t.mock.method(console, 'error', (m: string) => logged.push(m));
    const r = await get('/other');
    assert.equal(logged.length, 1, 'the failed check is logged as a fault');
    assert.equal(otherCheck.checks, 1);
    assert.equal(r.status, 500, 'names longer than the other schema allows: refused there, though the first route accepted them');
  });
});
