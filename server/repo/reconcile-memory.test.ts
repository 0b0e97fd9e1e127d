/** Reconcile bookkeeping on PGlite, PostgreSQL and memory: jobs with a subject, and memory moved by compare-and-set. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backends } from '../testing/backends';
import { MemoryRevisionRepository } from './memory-revisions';
import { DrizzleRevisionRepository } from './revisions';
import type { RevisionRepository } from './revisions.types';

function contract(name: string, make: () => Promise<{ repo: RevisionRepository; close?: () => Promise<void> }>) {
  describe(`reconcile bookkeeping on ${name}`, () => {
    let repo: RevisionRepository;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ repo, close } = await make());
    });
    after(async () => close?.());

    test('a job carries its subject; an open one is found until it finishes', async () => {
      assert.equal(await repo.openJob('reconcile', 'demo/a'), false);
      const id = await repo.enqueue('reconcile', 1, 'demo/a');
      assert.equal(await repo.openJob('reconcile', 'demo/a'), true);
      assert.equal(await repo.openJob('reconcile', 'demo/b'), false);
      const job = await repo.claim('w', 60_000);
      assert.equal(job?.subject, 'demo/a');
      await repo.finishJob(id, 'done');
      assert.equal(await repo.openJob('reconcile', 'demo/a'), false);
    });

    test('memory moves only from what the mover saw: two movers, one wins', async () => {
      const first = { generation: 3, count: 0, lastAt: '2026-11-25T10:00:00.000Z', onFailed: false };
      assert.equal(await repo.saveReconcileMemory('demo/a', first, undefined), true);
      assert.equal(await repo.saveReconcileMemory('demo/a', first, undefined), false, 'someone remembered first');
      const next = { ...first, count: 1, lastAt: '2026-11-25T11:00:00.000Z' };
      assert.equal(await repo.saveReconcileMemory('demo/a', next, first), true);
      assert.equal(await repo.saveReconcileMemory('demo/a', { ...next, count: 2 }, first), false, 'moved since');
      assert.deepEqual(await repo.reconcileMemory('demo/a'), next);
      assert.equal(await repo.reconcileMemory('demo/none'), undefined);
    });
  });
}

contract('memory', async () => ({ repo: new MemoryRevisionRepository() }));
for (const b of backends()) {
  contract(b.name, async () => {
    const h = await b.open();
    return { repo: new DrizzleRevisionRepository(h.db), close: () => h.close() };
  });
}
