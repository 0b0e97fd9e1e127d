import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { LayoutClient, prestartLayoutWorker, setLayoutWorkerFactory } from './layout-client';

/** A stand-in for the ELK worker: records what it was sent and whether it was stopped. */
class FakeWorker {
  sent: unknown[] = [];
  terminated = false;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: { preventDefault(): void; message?: string }) => void) | null = null;
  postMessage(m: unknown) {
    this.sent.push(m);
  }
  terminate() {
    this.terminated = true;
  }
}

describe('layout worker started before the graph arrives', () => {
  let made: FakeWorker[];
  const g = globalThis as { Worker?: unknown };
  let hadWorker: unknown;
  beforeEach(() => {
    made = [];
    hadWorker = g.Worker;
    // Node has no web Worker; the client only checks that one exists.
    g.Worker = FakeWorker;
    setLayoutWorkerFactory(() => {
      const w = new FakeWorker();
      made.push(w);
      return w as unknown as Worker;
    });
  });
  afterEach(() => {
    g.Worker = hadWorker;
  });

  test('the canvas lays out with the worker the page started, not a second one', () => {
    const stop = prestartLayoutWorker();
    assert.equal(made.length, 1);
    const client = new LayoutClient();
    void client.run({ nodes: [], edges: [], groups: [] } as never).catch(() => {});
    assert.equal(made.length, 1, 'no second worker (and no second elkjs load)');
    assert.equal(made[0]!.sent.length, 1, 'the request went to the prestarted worker');
    stop();
    assert.equal(made[0]!.terminated, false, 'leaving the page does not stop a worker a canvas is using');
    client.dispose();
  });

  test('a worker no canvas took is stopped when the page is left', () => {
    const stop = prestartLayoutWorker();
    stop();
    assert.equal(made[0]!.terminated, true);
    // The next page starts afresh.
    const client = new LayoutClient();
    client.warm();
    assert.equal(made.length, 2);
    client.dispose();
  });

  test('a prestarted worker that failed to load is dropped: the canvas starts its own and hears its errors', () => {
    prestartLayoutWorker();
    made[0]!.onerror!({ preventDefault() {}, message: 'no script' });
    assert.equal(made[0]!.terminated, true);
    const client = new LayoutClient();
    client.warm();
    assert.equal(made.length, 2);
    client.dispose();
  });
});
