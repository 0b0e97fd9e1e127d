/**
 * Trust: reads never write, and preview is held to the rights of saving —
 * through the tRPC callers on PGlite with the demo policy and Aptomi's demo
 * users (Alice a service consumer, John a namespace admin of social and
 * platform, Sam a domain admin).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { createCaller } from '../api/root';
import { loadLocalUsers } from '../auth/users';
import { openDb, type DbHandle } from '../db/client';
import { revisions } from '../db/schema';
import { drizzleRepos } from '../repo/drizzle';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import type { Actor } from './actor';
import { createServices, type Services } from './index';

const person = (name: string): Actor => {
  const u = loadLocalUsers().find((x) => x.name === name)!;
  return { id: `local:${name}`, name, labels: u.labels, provider: 'test' };
};

describe('trust: reads never write; preview needs the rights of saving', () => {
  let h: DbHandle;
  let repos: Repos;
  let services: Services;
  const as = (name: string) => createCaller({ actor: person(name), services });
  const code = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'OK';
    } catch (e) {
      if (e instanceof TRPCError) return `${e.code}: ${e.message}`;
      throw e;
    }
  };
  const revisionRows = async () => (await h.db.select({ id: revisions.id, generation: revisions.generation, status: revisions.status }).from(revisions)).sort((a, b) => a.id - b.id);

  before(async () => {
    h = await openDb({ pgliteDir: 'memory://' });
    repos = drizzleRepos(h.db);
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    await services.revisions!.ensureForGeneration(await repos.policy.head());
  });
  after(() => h.close());

  test('revisions.byGeneration past the head is 404 and stores nothing', async () => {
    const head = await repos.policy.head();
    const rows = await revisionRows();
    for (const generation of [head + 1, head + 1000]) {
      assert.match(await code(as('Sam').revisions.byGeneration({ generation })), /^NOT_FOUND: Generation \d+ \(the newest is \d+\)/);
      assert.match(await code(as('Sam').revisions.byGeneration({ generation, wait: true })), /^NOT_FOUND/);
    }
    assert.deepEqual(await revisionRows(), rows, 'no revision row was written or superseded');
  });

  test('asking for a generation whose revision was never computed does not compute it, nor supersede pending ones', async () => {
    // A pending revision first (John edits a claim's labels in social)…
    const obj = (await repos.policy.getObject({ kind: 'claim', namespace: 'social', name: 'alice_dev' }))!;
    const w = await as('John').policy.save({ id: obj, text: obj.text.replace(/\n$/, '\n# touched\n').replace('labels:', 'labels:\n  touched: yes'), baseGeneration: await repos.policy.head() });
    const pending = await as('John').revisions.byGeneration({ generation: w.generation, wait: true });
    assert.equal(pending.status, 'pending');
    // …then a generation written behind the service's back (as another process would, before computing its revision).
    const res = await repos.policy.commit({ baseGeneration: w.generation, author: 'Sam', message: 'elsewhere', upserts: [{ ...obj, text: obj.text + '# again\n', spec: obj.spec }], deletes: [] });
    assert.equal(res.status, 'committed');
    const rows = await revisionRows();
    const seen = await as('Sam').revisions.byGeneration({ generation: w.generation + 1 });
    assert.deepEqual(seen, { id: null, status: 'not computed' });
    assert.deepEqual(await revisionRows(), rows, 'the read wrote no revision');
    const [p] = await h.db.select({ status: revisions.status }).from(revisions).where(eq(revisions.id, pending.id!));
    assert.equal(p!.status, 'pending', 'the pending revision was not superseded by a read');
  });

  test('preview: a service consumer may not preview a bundle change (they could not save it)', async () => {
    const bundle = (await repos.policy.getObject({ kind: 'bundle', namespace: 'social', name: 'twitter_stats' }))!;
    const r = await code(as('Alice').revisions.preview({ text: bundle.text.replace(/\n$/, '\n# edit\n') }));
    assert.match(r, /^FORBIDDEN: You may not change bundle social\/twitter_stats: managing bundles in namespace social needs the namespace-admin or domain-admin role/);
    // John, namespace admin of social, may.
    const ok = await as('John').revisions.preview({ text: bundle.text.replace(/\n$/, '\n# edit\n') });
    assert.equal(ok.ok, true);
  });

  test("preview: a claim in another user's name is refused for a consumer, shown for their own", async () => {
    const claim = (await repos.policy.getObject({ kind: 'claim', namespace: 'social', name: 'alice_dev' }))!;
    const asBob = claim.text.replace(/user: \w+/, 'user: Bob');
    assert.notEqual(asBob, claim.text);
    assert.match(await code(as('Alice').revisions.preview({ text: asBob })), /^FORBIDDEN: .*in the name of user "Bob"/);
    const own = await as('Alice').revisions.preview({ text: claim.text.replace('labels:', 'labels:\n  note: mine') });
    assert.equal(own.ok, true);
  });

  test('preview without signing in is refused', async () => {
    const anon = createCaller({ actor: null, services });
    assert.match(await code(anon.revisions.preview({ text: 'kind: claim' })), /^UNAUTHORIZED/);
  });
});
