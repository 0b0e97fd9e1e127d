/**
 * Reads that requests may share on a shared database.
 *
 * Another process may write at any moment, so an answer cannot simply be
 * kept. But a request may take an answer whose query was sent after the
 * request began: to that request it is as if it had asked itself, a little
 * later. Whatever anyone committed before the request began is in it, so a
 * writer still reads its own writes, wherever it wrote them, and a client's
 * next request never reads older than its last.
 *
 * On a 2-core machine with two consoles under load, the head and tenant
 * reads were half of all statements, and the database client half of each
 * request thread. Shared, the head reads fell from 8,500 to 3,000 a minute
 * per console. The tenant read is a request's first, so it is seldom shared.
 *
 * Outside a request (start-up, background work, tests) every read queries.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One state for the process, even when a bundler loads this module once per
 * route: a request begun by one copy is seen by the repositories of another.
 */
const STATE = Symbol.for('keelson.freshReads');
const state = ((globalThis as Record<symbol, unknown>)[STATE] ??= { starts: new AsyncLocalStorage<number>(), shared: false }) as {
  starts: AsyncLocalStorage<number>;
  /** Some repository reads a shared database. */
  shared: boolean;
};

/**
 * Run a request's work: its reads may share answers sent after this moment.
 * Only on a shared database: on Node 20 a store that is entered once slows
 * every promise after it, and the embedded database's own caches need none.
 */
export function withinRequest<T>(work: () => T): T {
  return state.shared ? state.starts.run(performance.now(), work) : work();
}

/** A repository on a shared database exists: requests from now on carry their start. */
export function shareReads(): void {
  state.shared = true;
}

export class FreshReads<V> {
  private readonly entries = new Map<string, { sentAt: number; value: Promise<V> }>();

  constructor(private readonly max = 10_000) {}

  /** `load()`'s answer, or one sent since the current request began (a promise: a query still running is joined). */
  read(key: string, load: () => Promise<V>): Promise<V> {
    const began = state.starts.getStore();
    if (began === undefined) return load();
    const kept = this.entries.get(key);
    if (kept && kept.sentAt >= began) return kept.value;
    const sentAt = performance.now();
    const value = load();
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { sentAt, value });
    // A failed read is not an answer: the next request asks again.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /**
   * This process wrote: nothing sent before now may be shared. (A request
   * that wrote, and began before the entries now dropped were sent, would
   * otherwise read what was there before its own write.)
   */
  forget(): void {
    this.entries.clear();
  }
}
