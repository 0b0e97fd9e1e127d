import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDb, type DbHandle } from '../db/client';
import { DrizzlePolicyRepo } from './drizzle';

/**
 * The embedded database's only writer keeps each service's history (the
 * generations that touched a name) current from its own commits: the answers
 * must be the database's, read or not.
 */
describe('service histories kept by the embedded database’s only writer', () => {
  let handle: DbHandle;
  let kept: DrizzlePolicyRepo;
  let fresh: DrizzlePolicyRepo;
  let reads = 0;
  before(async () => {
    handle = await openDb({ pgliteDir: 'memory://' });
    kept = new DrizzlePolicyRepo(handle.db, { exclusive: true });
    // The same database read without keeping anything: what the answers must equal.
    fresh = new DrizzlePolicyRepo(handle.db);
    const prepared = (kept as unknown as { prepared: { touching: { execute: (...a: unknown[]) => Promise<unknown> } } }).prepared.touching;
    const execute = prepared.execute.bind(prepared);
    prepared.execute = async (...a: unknown[]) => {
      reads++;
      const rows = await execute(...a);
      await held; // as a slow answer would arrive: after a commit that came later
      return rows;
    };
  });
  let held: Promise<void> = Promise.resolve();
  after(() => handle.close());

  const claim = (name: string, tier: string) => ({ kind: 'claim', namespace: 'web', name, text: `tier: ${tier}\n`, spec: { user: 'sam', service: 'shop', labels: { tier } } });
  const write = async (name: string, tier: string) => {
    const r = await kept.commit({ baseGeneration: await kept.head(), author: 'sam', message: `${name} ${tier}`, upserts: [claim(name, tier)], deletes: [] });
    assert.equal(r.status, 'committed');
    return r.status === 'committed' ? r.generation.generation : 0;
  };
  const history = (repo: DrizzlePolicyRepo, name: string, limit = 10) => repo.listGenerations({ touching: { kind: 'claim', name }, limit });

  test('read once; a commit that touches the name goes first without a read; others leave it as it was', async () => {
    const a1 = await write('a', '1');
    await write('b', '1');
    assert.deepEqual((await history(kept, 'a')).map((g) => g.generation), [a1]);
    assert.equal(reads, 1);
    const a2 = await write('a', '2');
    await write('b', '2');
    const now = await history(kept, 'a');
    assert.equal(reads, 1, 'answered from what was kept');
    assert.deepEqual(now.map((g) => g.generation), [a2, a1]);
    assert.deepEqual(now, await history(fresh, 'a'), 'as the database answers');
    now[0]!.changes.length = 0; // a caller changing its answer changes no other
    assert.deepEqual(await history(kept, 'a'), await history(fresh, 'a'));
  });

  test('a read whose answer arrives after a commit is not kept', async () => {
    const before = reads;
    let release!: () => void;
    held = new Promise((r) => (release = r));
    const overlapped = history(kept, 'c');
    await new Promise((r) => setTimeout(r, 20)); // the read has its rows, not yet its answer
    held = Promise.resolve();
    const c1 = await write('c', '1');
    release();
    assert.deepEqual(await overlapped, [], 'read before the commit');
    const again = await history(kept, 'c');
    assert.equal(reads, before + 2, 'read again');
    assert.deepEqual(again.map((g) => g.generation), [c1]);
  });

  test('a longer history than was read is read; a short one that was all there is is not', async () => {
    for (const t of ['1', '2', '3']) await write('d', t);
    const before = reads;
    assert.equal((await history(kept, 'd', 2)).length, 2);
    assert.equal((await history(kept, 'd', 5)).length, 3);
    assert.equal(reads, before + 2, 'two were read, and there might have been more');
    assert.deepEqual(await history(kept, 'd', 5), await history(fresh, 'd', 5));
    assert.equal(reads, before + 2, 'three of five: that was all of it');
  });
});
