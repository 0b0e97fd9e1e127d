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

test('an idle key waits for announced writes of its group, and not for ever', async () => {
  const batches: number[][] = [];
  const g = new GroupCommit<number, number>(async (items) => {
    batches.push(items);
    return items;
  }, 64, 200);
  // Three writes announce themselves; the first is ready at once, the others after their checks.
  const a = g.expect('alice'), b = g.expect('alice'), c = g.expect('alice');
  const first = g.submit('alice/k', 1, a, 'alice');
  await new Promise((r) => setTimeout(r, 20));
  const second = g.submit('alice/k', 2, b, 'alice');
  await new Promise((r) => setTimeout(r, 20));
  const third = g.submit('alice/k', 3, c, 'alice');
  assert.deepEqual(await Promise.all([first, second, third]), [1, 2, 3]);
  assert.deepEqual(batches, [[1, 2, 3]], 'one commit for the three, not the first alone');

  // Nobody announced: a lone write goes at once.
  const started = performance.now();
  assert.equal(await g.submit('alice/k', 4, undefined, 'alice'), 4);
  assert.ok(performance.now() - started < 100);

  // A write that announced itself and then gave up (a refused check) is not waited for…
  const gaveUp = g.expect('bob');
  setTimeout(() => gaveUp.arrived(), 10);
  const t0 = performance.now();
  assert.equal(await g.submit('bob/k', 5, g.expect('bob'), 'bob'), 5);
  assert.ok(performance.now() - t0 < 150, 'the commit went once the other gave up');
  // …and one that never arrives holds the commit up for gatherMs at most.
  const never = g.expect('carol');
  const t1 = performance.now();
  assert.equal(await g.submit('carol/k', 6, undefined, 'carol'), 6);
  const waitedMs = performance.now() - t1;
  assert.ok(waitedMs >= 150 && waitedMs < 1000, `waited ${waitedMs} ms`);
  never.arrived();
});

test('a lone write that announced itself does not wait for stragglers; a burst does', async () => {
  const batches: number[][] = [];
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // quietMs of 300 (a burst's stragglers' window), so waiting it out or not is plain to see.
  const g = new GroupCommit<number, number>(async (items) => {
    batches.push(items);
    return items;
  }, 64, 2_000, 300);
  // Alone: announced, checked (a few ms), committed — with nothing else of its group announced, at once.
  const lone = g.expect('dave');
  await sleep(5);
  const t0 = performance.now();
  assert.equal(await g.submit('dave/k', 1, lone, 'dave'), 1);
  assert.ok(performance.now() - t0 < 200, `a lone write waited ${(performance.now() - t0).toFixed(0)} ms`);

  // A burst: two announced together; a third, announced 100 ms later, still joins their commit.
  const x = g.expect('erin'), y = g.expect('erin');
  const first = g.submit('erin/k', 2, x, 'erin');
  const second = g.submit('erin/k', 3, y, 'erin');
  await sleep(100);
  const third = g.submit('erin/k', 4, g.expect('erin'), 'erin');
  assert.deepEqual(await Promise.all([first, second, third]), [2, 3, 4]);
  assert.deepEqual(batches, [[1], [2, 3, 4]], 'the straggler shares the burst\'s commit');
});
