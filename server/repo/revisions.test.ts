/**
 * The revision store's contract, one set of tests for every implementation:
 * drizzle on PGlite and on a real PostgreSQL server, and in memory.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { DbHandle } from '../db/client';
import { backends } from '../testing/backends';
import { MemoryRevisionRepository } from './memory-revisions';
import { DrizzleRevisionRepository } from './revisions';
import type { NewRevision, RevisionRepository } from './revisions.types';

const revision = (generation: number, baseRevisionId: number | null, extra: Partial<NewRevision> = {}): NewRevision => ({
  generation,
  baseRevisionId,
  status: 'pending',
  author: 'alice',
  rollbackOf: null,
  counts: { create: 1 },
  cost: { total: { delta: { monthly: 5 } }, currency: 'EUR' },
  quota: [],
  plan: { steps: [], actions: [] },
  sections: [
    { namespace: 'social', overMarks: false, counts: { create: 1 } },
    { namespace: 'main', overMarks: false, counts: {} },
  ],
  ...extra,
});

function contract(name: string, make: () => Promise<{ repo: RevisionRepository; close?: () => Promise<void> }>) {
  describe(`RevisionRepository on ${name}`, () => {
    let repo: RevisionRepository;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ repo, close } = await make());
    });
    after(async () => close?.());

    /** Ids by generation, for the tests that build on earlier ones. */
    const ids: Record<number, number> = {};
    const status = async (generation: number) => (await repo.get(ids[generation]!))?.status;

    test('starts empty', async () => {
      assert.deepEqual(await repo.head(), { acceptedRevisionId: null, appliedRevisionId: null });
      assert.deepEqual(await repo.list(), []);
      assert.equal(await repo.byGeneration(1), undefined);
    });

    test('insert creates a revision with its sections and a created event; the same generation again exists', async () => {
      const r = await repo.insert(revision(1, null));
      assert.equal(r.status, 'created');
      if (r.status !== 'created') return;
      ids[1] = r.revision.id;
      assert.equal(r.revision.status, 'pending');
      assert.deepEqual(r.superseded, []);
      assert.deepEqual((await repo.byGeneration(1))?.plan, { steps: [], actions: [] });
      assert.deepEqual((await repo.sections([r.revision.id])).map((s) => [s.namespace, s.status, s.decidedBy]), [
        ['main', 'pending', null],
        ['social', 'pending', null],
      ]);
      assert.deepEqual((await repo.events(r.revision.id)).map((e) => e.kind), ['created']);
      const [listed] = await repo.list();
      assert.equal(listed?.id, r.revision.id);
      assert.deepEqual(listed?.cost, { delta: { monthly: 5 } }, 'a list carries the cost total only');
      assert.equal('plan' in listed!, false, 'a list leaves the plan out');
      const again = await repo.insert(revision(1, null));
      assert.equal(again.status, 'exists');
    });

    test('a revision computed against another base than the accepted one is stale', async () => {
      assert.deepEqual(await repo.insert(revision(2, 999)), { status: 'stale', acceptedRevisionId: null });
    });

    test('a newer generation supersedes older pending revisions; one computed late is born superseded', async () => {
      const r = await repo.insert(revision(3, null));
      assert.equal(r.status, 'created');
      if (r.status !== 'created') return;
      ids[3] = r.revision.id;
      assert.deepEqual(r.superseded, [ids[1]]);
      assert.equal(await status(1), 'superseded');
      assert.deepEqual((await repo.events(ids[1]!)).map((e) => e.kind), ['created', 'superseded']);
      const late = await repo.insert(revision(2, null));
      assert.equal(late.status, 'created');
      if (late.status === 'created') assert.equal(late.revision.status, 'superseded');
      assert.equal(await status(3), 'pending');
      const noop = await repo.insert(revision(4, null, { status: 'no-op', sections: [] }));
      assert.equal(noop.status, 'created');
      if (noop.status === 'created') {
        ids[4] = noop.revision.id;
        assert.equal(noop.revision.status, 'no-op');
      }
      assert.equal(await status(3), 'superseded');
    });

    test('statuses of several generations in one read: each its own, one without a revision absent', async () => {
      const got = await repo.statusesByGenerations([4, 1, 3, 99]);
      assert.deepEqual(
        [...got].sort((a, b) => a[0] - b[0]),
        [
          [1, { id: ids[1], status: 'superseded' }],
          [3, { id: ids[3], status: 'superseded' }],
          [4, { id: ids[4], status: 'no-op' }],
        ],
      );
      assert.equal((await repo.statusesByGenerations([])).size, 0);
    });

    test('deciding: sections one by one; the last accept accepts the revision, moves the head and queues one job', async () => {
      const r = await repo.insert(revision(5, null));
      assert.equal(r.status, 'created');
      const id = (ids[5] = (r as { revision: { id: number } }).revision.id);
      const one = await repo.decide({ revisionId: id, namespaces: ['main'], decision: 'accept', actor: 'john', comment: 'fine' });
      assert.equal(one.status, 'ok');
      if (one.status === 'ok') assert.deepEqual([one.revision.status, one.decided, one.jobId], ['pending', ['main'], undefined]);
      const twice = await repo.decide({ revisionId: id, namespaces: ['main'], decision: 'accept', actor: 'sam' });
      assert.equal(twice.status, 'conflict');
      assert.match((twice as { reason: string }).reason, /already accepted by john/);
      const partly = await repo.decide({ revisionId: id, namespaces: ['social', 'nope'], decision: 'accept', actor: 'sam' });
      assert.deepEqual(partly, { status: 'conflict', reason: `Revision ${id} has no section for namespace "nope".` });
      assert.equal((await repo.sections([id])).find((x) => x.namespace === 'social')?.status, 'pending', 'all or nothing');
      const last = await repo.decide({ revisionId: id, namespaces: ['social'], decision: 'accept', actor: 'sam' });
      assert.equal(last.status, 'ok');
      if (last.status !== 'ok') return;
      assert.equal(last.revision.status, 'accepted');
      assert.ok(last.jobId);
      assert.equal((await repo.head()).acceptedRevisionId, id);
      assert.deepEqual((await repo.jobsFor(id)).map((j) => [j.id, j.kind, j.status]), [[last.jobId, 'apply', 'queued']]);
      const s = await repo.sections([id]);
      assert.deepEqual(s.map((x) => [x.namespace, x.status, x.decidedBy, x.comment]), [
        ['main', 'accepted', 'john', 'fine'],
        ['social', 'accepted', 'sam', null],
      ]);
      assert.deepEqual((await repo.events(id)).map((e) => e.kind), ['created', 'section-accepted', 'section-accepted', 'accepted']);
      const after = await repo.decide({ revisionId: id, namespaces: ['main'], decision: 'reject', actor: 'sam' });
      assert.deepEqual(after, { status: 'conflict', reason: 'Cannot reject this revision: it has already been accepted.' });
      assert.deepEqual(await repo.decide({ revisionId: 99_999, namespaces: [], decision: 'accept', actor: 'sam' }), { status: 'not-found' });
    });

    test('a revision whose base is no longer the accepted one cannot be decided', async () => {
      // Generation 6 computed against nothing, while revision 5 is accepted: refused as stale.
      assert.equal((await repo.insert(revision(6, null))).status, 'stale');
      const r = await repo.insert(revision(6, ids[5]!));
      assert.equal(r.status, 'created');
      ids[6] = (r as { revision: { id: number } }).revision.id;
    });

    test('of racing decisions on one section exactly one wins', async () => {
      const results = await Promise.all(
        ['a', 'b', 'c', 'd'].map((actor) => repo.decide({ revisionId: ids[6]!, namespaces: ['social'], decision: 'accept', actor })),
      );
      assert.equal(results.filter((r) => r.status === 'ok').length, 1);
      assert.equal(results.filter((r) => r.status === 'conflict').length, 3);
      const rejected = await repo.decide({ revisionId: ids[6]!, namespaces: ['main'], decision: 'reject', actor: 'sam', comment: 'no' });
      assert.equal(rejected.status, 'ok');
      assert.equal(await status(6), 'rejected');
    });

    test('apply events follow the state machine; an illegal transition is refused and changes nothing', async () => {
      const id = ids[5]!;
      const early = await repo.transition(id, 'succeed');
      assert.deepEqual(early, { ok: false, reason: 'Cannot finish applying this revision: it has already been accepted.' });
      assert.equal(await status(5), 'accepted');
      assert.equal((await repo.transition(ids[6]!, 'start')).ok, false, 'a rejected revision is never applied');
      assert.equal(await status(6), 'rejected');
      assert.deepEqual(await repo.transition(99_999, 'start'), { ok: false, reason: 'Revision 99999 does not exist.' });
      assert.deepEqual(await repo.transition(id, 'start'), { ok: true, to: 'applying' });
      assert.deepEqual(await repo.transition(id, 'start'), { ok: true, to: 'applying' }, 'a resumed apply starts again');
      assert.equal((await repo.head()).appliedRevisionId, null);
      assert.deepEqual(await repo.transition(id, 'succeed'), { ok: true, to: 'applied' });
      const applied = await repo.get(id);
      assert.equal(applied?.status, 'applied');
      assert.ok(applied?.appliedAt instanceof Date);
      assert.equal((await repo.head()).appliedRevisionId, id, 'succeeding makes it the applied revision');
      assert.equal((await repo.transition(id, 'fail')).ok, false);
      assert.equal((await repo.transition(id, 'retry')).ok, false);
      assert.equal(await status(5), 'applied');
    });

    test('jobs: one holder per lease; a job not due or leased is not handed out; an abandoned lease is taken over', async () => {
      const [job] = await repo.jobsFor(ids[5]!);
      const a = await repo.claim('worker-a', 60_000);
      assert.equal(a?.id, job!.id);
      assert.deepEqual([a?.status, a?.lockedBy, a?.attempts], ['running', 'worker-a', 1]);
      assert.equal(await repo.claim('worker-b', 60_000), undefined, 'the lease is live');
      assert.equal(await repo.renewLease(job!.id, 'worker-a'), true);
      assert.equal(await repo.renewLease(job!.id, 'worker-b'), false);
      await repo.retryJobLater(job!.id, 3600_000, 'cluster unreachable');
      assert.equal(await repo.claim('worker-b', 60_000), undefined, 'not due for an hour');
      assert.equal(await repo.renewLease(job!.id, 'worker-a'), false, 'released');
      await repo.retryJobLater(job!.id, 0, 'cluster unreachable');
      const b = await repo.claim('worker-b', 60_000);
      assert.deepEqual([b?.id, b?.lockedBy, b?.attempts, b?.lastError], [job!.id, 'worker-b', 2, 'cluster unreachable']);
      await new Promise((r) => setTimeout(r, 20));
      const c = await repo.claim('worker-c', 1);
      assert.equal(c?.lockedBy, 'worker-c', 'a lease older than leaseMs was abandoned');
      await repo.finishJob(job!.id, 'done');
      assert.equal(await repo.claim('worker-a', 60_000), undefined);
      const [done] = await repo.jobsFor(ids[5]!);
      assert.deepEqual([done?.status, done?.lockedBy, done?.lastError], ['done', null, null]);
      assert.ok(done?.finishedAt instanceof Date);
      const queued = await repo.enqueue('apply', ids[5]!);
      assert.equal((await repo.claim('worker-a', 60_000))?.id, queued);
      await repo.finishJob(queued, 'failed', 'gave up');
      assert.deepEqual((await repo.jobsFor(ids[5]!)).map((j) => [j.status, j.lastError]), [
        ['done', null],
        ['failed', 'gave up'],
      ]);
    });

    test('steps keep their progress; events and actual state per instance', async () => {
      const id = ids[5]!;
      const plan = [
        { index: 0, key: 'k#web', action: 'create' },
        { index: 1, key: 'k#db', action: 'create' },
        { index: 2, key: 'k#old', action: 'delete' },
      ];
      await repo.initSteps(id, plan);
      await repo.markStep(id, 0, 'done');
      await repo.markStep(id, 1, 'failed', 'boom');
      await repo.markStep(id, 2, 'skipped', 'skipped: step 1 did not succeed');
      await repo.initSteps(id, plan);
      assert.deepEqual((await repo.steps(id)).map((s) => [s.stepIndex, s.key, s.status, s.attempts, s.error]), [
        [0, 'k#web', 'done', 1, null],
        [1, 'k#db', 'failed', 1, 'boom'],
        [2, 'k#old', 'skipped', 0, 'skipped: step 1 did not succeed'],
      ]);
      await repo.event(id, 'step-done', 'Created k#web', { step: 0 });
      await repo.event(id, 'step-failed', 'k#db failed', { step: 1 });
      await repo.event(id, 'note', 'about the revision', { actor: 'sam', section: 'main' });
      assert.deepEqual((await repo.eventsForInstance('k#db')).map((e) => [e.kind, e.step]), [['step-failed', 1]]);
      assert.deepEqual((await repo.eventsForInstance('k#nope')).length, 0);
      const all = await repo.events(id);
      const last = all.at(-1)!;
      assert.deepEqual([last.kind, last.actor, last.section, last.step], ['note', 'sam', 'main', null]);
      assert.deepEqual((await repo.events(id, all.at(-2)!.id)).map((e) => e.kind), ['note'], 'events after an id');

      await repo.setInstanceState({ key: 'k#web', revisionId: id, status: 'applied', deployName: 'a-web' });
      await repo.setInstanceState({ key: 'k#db', revisionId: id, status: 'failed', error: 'boom', deployName: 'a-db' });
      await repo.setInstanceState({ key: 'k#web', revisionId: id, status: 'deleted', deployName: 'a-web' });
      assert.deepEqual((await repo.instanceStates(['k#web', 'k#nope'])).map((s) => [s.key, s.status, s.error]), [['k#web', 'deleted', null]]);
      assert.deepEqual((await repo.instanceStates()).map((s) => s.key).sort(), ['k#db', 'k#web']);
      assert.deepEqual(await repo.instanceStates([]), []);
    });

    test('a list is newest first, pages with before and limit', async () => {
      const all = await repo.list();
      assert.deepEqual(all.map((r) => r.id), [...all.map((r) => r.id)].sort((a, b) => b - a));
      assert.equal(all.length, 6);
      const page = await repo.list({ before: all[1]!.id, limit: 2 });
      assert.deepEqual(page.map((r) => r.id), [all[2]!.id, all[3]!.id]);
    });

    test('what a caller gets is a copy or read-only: changing it changes nothing stored', async () => {
      const r = (await repo.get(ids[5]!))!;
      // The drizzle store keeps recent plans decoded and shares them frozen.
      const steps = (r.plan as { steps: unknown[] }).steps;
      if (Object.isFrozen(steps)) assert.throws(() => steps.push('x'), TypeError);
      else steps.push('x');
      r.status = 'failed';
      const again = (await repo.get(ids[5]!))!;
      assert.deepEqual(again.plan, { steps: [], actions: [] });
      assert.equal(again.status, 'applied');
    });
  });
}

for (const b of backends()) {
  contract(b.name, async () => {
    const h: DbHandle = await b.open();
    return { repo: new DrizzleRevisionRepository(h.db), close: () => h.close() };
  });
}
contract('memory', async () => ({ repo: new MemoryRevisionRepository() }));

for (const b of backends()) {
  describe(`revision plans on ${b.name}`, () => {
    test('an insert that waited for the lock sees what its holder committed: a newer revision makes it born superseded', async () => {
      const h: DbHandle = await b.open();
      try {
        const repo = new DrizzleRevisionRepository(h.db);
        let late: Promise<unknown> | undefined;
        // Another console holds the head's lock and stores generation 2's revision meanwhile; generation 1's insert waits for it.
        await h.db.transaction(async (tx) => {
          await tx.execute(sql`select * from deployment_head where id = 1 for update`);
          late = repo.insert(revision(1, null));
          await new Promise((r) => setTimeout(r, 200));
          await tx.execute(sql`insert into revisions (generation, status, author, counts, cost, quota, plan) values (2, 'pending', 'bob', '{}'::jsonb, '{}'::jsonb, '[]'::jsonb, '{}')`);
        });
        const res = (await late) as Awaited<ReturnType<typeof repo.insert>>;
        assert.equal(res.status, 'created');
        if (res.status === 'created') assert.equal(res.revision.status, 'superseded', 'born superseded: the newer one committed while it waited');
        assert.equal((await repo.insert(revision(2, null))).status, 'exists');
      } finally {
        await h.close();
      }
    });

    test('a plan is stored zipped and read back whole by another process’s repository', async () => {
      const h: DbHandle = await b.open();
      try {
        const writer = new DrizzleRevisionRepository(h.db);
        const plan = { steps: [{ key: 'k#db', action: 'create' }], actions: [{ key: 'k#db', kind: 'create', note: 'é ✓'.repeat(200) }] };
        const res = await writer.insert(revision(1, null, { plan }));
        assert.equal(res.status, 'created');
        const id = res.status === 'created' ? res.revision.id : -1;
        const stored = await h.db.execute(`select plan from revisions where id = ${id}`);
        const text = ((Array.isArray(stored) ? stored : (stored as { rows: { plan: string }[] }).rows) as { plan: string }[])[0]!.plan;
        assert.ok(text.startsWith('H4sI'), 'gzipped base64 in the column');
        const reader = new DrizzleRevisionRepository(h.db);
        const row = (await reader.get(id))!;
        assert.equal(row.status, 'pending');
        assert.deepEqual(row.plan, plan);
        assert.deepEqual((await reader.byGeneration(1))!.plan, plan);
      } finally {
        await h.close();
      }
    });
  });
}
