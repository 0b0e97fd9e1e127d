import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCommit } from './group-commit';

function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

test('a lone item is committed at once, alone', async () => {
  const batches: number[][] = [];
  const g = new GroupCommit<number, number>(async (items) => {
    batches.push(items);
    return items.map((i) => i * 10);
  });
  assert.equal(await g.submit('k', 1), 10);
  assert.deepEqual(batches, [[1]]);
});

test('items arriving during a commit share the next one; other keys do not wait', async () => {
  const batches: string[][] = [];
  const waited: boolean[] = [];
  const first = gate();
  const g = new GroupCommit<string, string>(async (items, context) => {
    batches.push(items);
    waited.push(context.waited);
    if (items[0] === 'a1') await first.p;
    return items.map((i) => i.toUpperCase());
  });
  const a1 = g.submit('a', 'a1');
  const a2 = g.submit('a', 'a2');
  const a3 = g.submit('a', 'a3');
  // Another key is independent of a's running commit.
  assert.equal(await g.submit('b', 'b1'), 'B1');
  first.open();
  assert.deepEqual(await Promise.all([a1, a2, a3]), ['A1', 'A2', 'A3']);
  assert.deepEqual(batches, [['a1'], ['b1'], ['a2', 'a3']]);
  assert.deepEqual(waited, [false, false, true], 'only the batch that queued behind a commit waited');
});

test('an Error result fails its item only; a thrown error fails the whole batch', async () => {
  const first = gate();
  const g = new GroupCommit<number, number>(async (items) => {
    if (items[0] === 0) {
      await first.p;
      return [0];
    }
    if (items.includes(99)) throw new Error('database gone');
    return items.map((i) => (i % 2 ? new Error(`odd ${i}`) : i));
  });
  const zero = g.submit('k', 0);
  const one = g.submit('k', 1);
  const two = g.submit('k', 2);
  first.open();
  assert.equal(await zero, 0);
  await assert.rejects(one, /odd 1/);
  assert.equal(await two, 2);
  const hold = gate();
  const g2 = new GroupCommit<number, number>(async (items) => {
    if (items[0] === 0) await hold.p;
    if (items.includes(99)) throw new Error('database gone');
    return items;
  });
  const z = g2.submit('k', 0);
  const x = g2.submit('k', 5);
  const y = g2.submit('k', 99);
  hold.open();
  assert.equal(await z, 0);
  await assert.rejects(x, /database gone/);
  await assert.rejects(y, /database gone/);
  // The key recovers: the next item commits normally.
  assert.equal(await g2.submit('k', 7), 7);
});

test('batches are capped', async () => {
  const sizes: number[] = [];
  const hold = gate();
  const g = new GroupCommit<number, number>(async (items) => {
    sizes.push(items.length);
    if (items[0] === 0) await hold.p;
    return items;
  }, 3);
  const all = Array.from({ length: 8 }, (_, i) => g.submit('k', i));
  hold.open();
  assert.deepEqual(await Promise.all(all), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(sizes, [1, 3, 3, 1]);
});

/**
 * `work`'s answer, or 'late' if it has none after `ms`. Only a wrong wait makes it late: `ms` is far longer than the
 * few event-loop turns the right answer takes, and far shorter than the wait a wrong one would make, so load decides
 * nothing (no duration is asserted).
 */
async function beforeTimer<T>(work: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const turn = () => new Promise<void>((r) => setImmediate(r));

test('an idle key waits for announced writes of its group, and not for ever', async () => {
  const batches: number[][] = [];
  // gatherMs of a minute: only announcements decide when these commit, however loaded the machine.
  const g = new GroupCommit<number, number>(async (items) => {
    batches.push(items);
    return items;
  }, 64, 60_000);
  // Three writes announce themselves; the first is ready at once, the others after their checks.
  const a = g.expect('alice'), b = g.expect('alice'), c = g.expect('alice');
  const first = g.submit('alice/k', 1, a, 'alice');
  await turn();
  const second = g.submit('alice/k', 2, b, 'alice');
  await turn();
  const third = g.submit('alice/k', 3, c, 'alice');
  assert.deepEqual(await Promise.all([first, second, third]), [1, 2, 3]);
  assert.deepEqual(batches, [[1, 2, 3]], 'one commit for the three, not the first alone');

  // Nobody announced: a lone write goes at once, not after the gathering minute.
  assert.equal(await beforeTimer(g.submit('alice/k', 4, undefined, 'alice'), 30_000), 4);

  // A write that announced itself and then gave up (a refused check) is not waited for.
  const gaveUp = g.expect('bob');
  const bob = g.submit('bob/k', 5, g.expect('bob'), 'bob');
  await turn();
  gaveUp.arrived();
  assert.equal(await beforeTimer(bob, 30_000), 5, 'the commit went once the other gave up');

  // One that never arrives holds the commit up for gatherMs, and no longer: the commit goes without it.
  const short = new GroupCommit<number, number>(async (items) => items, 64, 200);
  const never = short.expect('carol');
  const t1 = performance.now();
  assert.equal(await short.submit('carol/k', 6, undefined, 'carol'), 6);
  // A lower bound only (a timer never fires early; a loaded machine makes waits longer, not shorter).
  assert.ok(performance.now() - t1 >= 150, 'it waited for the announced write');
  never.arrived();
});

test('a lone write that announced itself does not wait for stragglers; a burst does', async () => {
  // Alone: announced, checked, committed — with nothing else of its group announced, at once, not after quietMs
  // (20 s here, so that waiting it out would be plain).
  const lone = new GroupCommit<number, number>(async (items) => items, 64, 60_000, 20_000);
  const dave = lone.expect('dave');
  await turn();
  assert.equal(await beforeTimer(lone.submit('dave/k', 1, dave, 'dave'), 10_000), 1);

  // A burst: two announced together; a third, announced after they were submitted, still joins their commit
  // (quietMs of 3 s: the burst's stragglers' window, far longer than the turn between them).
  const batches: number[][] = [];
  const g = new GroupCommit<number, number>(async (items) => {
    batches.push(items);
    return items;
  }, 64, 10_000, 3_000);
  const x = g.expect('erin'), y = g.expect('erin');
  const first = g.submit('erin/k', 2, x, 'erin');
  const second = g.submit('erin/k', 3, y, 'erin');
  await turn();
  const third = g.submit('erin/k', 4, g.expect('erin'), 'erin');
  assert.deepEqual(await Promise.all([first, second, third]), [2, 3, 4]);
  assert.deepEqual(batches, [[2, 3, 4]], "the straggler shares the burst's commit");
});
