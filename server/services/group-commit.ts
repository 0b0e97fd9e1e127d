/**
 * Group commit: writes that arrive for the same key while one is being
 * committed wait, and are then committed together, in one go.
 *
 * Why: every policy write is a generation, and every generation costs a
 * resolution of the whole policy and a revision, one after another. Fifty
 * API clients creating services at once would otherwise each wait for the
 * forty-nine before them. A lone writer never waits for a batch: the first
 * item of an idle key is committed at once; only items that arrive during a
 * commit share the next one (as a database's group commit shares a log
 * flush).
 *
 * Followers known to be on their way are waited for, briefly: a write that
 * announces itself (`expect(group)`) before its own checks (reads that
 * take a few milliseconds each) is counted, and an idle key about to
 * commit waits — at most `gatherMs` — while writes of its group are still
 * being checked. Without it a burst of fifty creates committed the first
 * alone and the other forty-nine one full commit later: every burst paid
 * two commits. Once none is announced, a burst's stragglers (requests
 * still being read off their sockets) get `quietMs` to announce
 * themselves. A lone writer (no other write of its group announced within
 * `quietMs` of its own) waits one turn of the event loop.
 *
 * `commit(items, {waited})` answers one result per item, in order: a
 * value, or an Error for that item alone. If it throws, every item of the
 * batch fails with that error. `waited` says the items queued behind an
 * earlier commit: what they checked before queueing may have changed.
 */
export class GroupCommit<I, O> {
  private readonly queues = new Map<string, { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[]>();
  private readonly running = new Set<string>();
  /** Announced writes per group that have not submitted (or given up) yet. */
  private readonly expected = new Map<string, number>();
  /** Woken whenever an announced write submits or gives up. */
  private arrivals: (() => void)[] = [];

  constructor(
    private readonly commit: (items: I[], context: { waited: boolean }) => Promise<(O | Error)[]>,
    private readonly maxBatch = 64,
    private readonly gatherMs = 100,
    private readonly quietMs = 10,
  ) {}

  /** When each group had its last two writes announced ([previous, last]). */
  private readonly announced = new Map<string, [number, number]>();

  /**
   * A write of `group` is on its way: until `arrived()` is called (by
   * `submit` with this group, or by the caller when it gives up), idle keys
   * of the group wait for it before committing. Call `arrived` exactly once.
   */
  expect(group: string): { arrived: () => void } {
    this.expected.set(group, (this.expected.get(group) ?? 0) + 1);
    if (this.announced.size >= 10_000) this.announced.clear();
    this.announced.set(group, [this.announced.get(group)?.[1] ?? -Infinity, performance.now()]);
    let done = false;
    return {
      arrived: () => {
        if (done) return;
        done = true;
        const n = (this.expected.get(group) ?? 1) - 1;
        if (n > 0) this.expected.set(group, n);
        else this.expected.delete(group);
        const wake = this.arrivals;
        this.arrivals = [];
        for (const w of wake) w();
      },
    };
  }

  /** Items waiting for a commit (not those being committed): the queue depth. */
  waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** Commit `item` under `key`; `announced` is what `expect` gave this write (its arrival is noted here). */
  submit(key: string, item: I, announced?: { arrived: () => void }, group?: string): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (group !== undefined) this.groupOf.set(key, group);
      const queue = this.queues.get(key) ?? [];
      queue.push({ item, resolve, reject });
      this.queues.set(key, queue);
      announced?.arrived();
      if (!this.running.has(key)) void this.drain(key);
    });
  }

  private readonly groupOf = new Map<string, string>();

  /** Wait (at most gatherMs) while writes of the key's group are announced but not here yet. */
  private gather(key: string): Promise<void> | undefined {
    const group = this.groupOf.get(key);
    // Not an announcing writer: no promise, so the commit starts in this very turn.
    if (group === undefined) return undefined;
    return this.gatherFor(key, group);
  }

  private async gatherFor(key: string, group: string): Promise<void> {
    const deadline = performance.now() + this.gatherMs;
    // Requests already read off other sockets in this turn have not run yet: let them announce themselves.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Gather while announced writes are on their way, or — in a burst (two announced within quietMs of each other) —
    // one was announced within quietMs: more of the burst may follow. A lone write's own announcement is no burst: at ten
    // creates a second, each waited out quietMs after announcing itself, for nobody.
    const busy = () => {
      if (this.expected.get(group)) return true;
      const [previous, last] = this.announced.get(group) ?? [-Infinity, -Infinity];
      return last - previous < this.quietMs && performance.now() - last < this.quietMs;
    };
    while (busy() && (this.queues.get(key)?.length ?? 0) < this.maxBatch) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.expected.get(group) ? left : Math.min(left, this.quietMs));
        this.arrivals.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private async drain(key: string): Promise<void> {
    this.running.add(key);
    try {
      for (let round = 0; ; round++) {
        // Every commit first gathers the writes known to be coming (bounded by gatherMs).
        const gathering = this.gather(key);
        if (gathering) await gathering;
        const queue = this.queues.get(key);
        if (!queue || queue.length === 0) break;
        const batch = queue.splice(0, this.maxBatch);
        try {
          const results = await this.commit(
            batch.map((b) => b.item),
            { waited: round > 0 },
          );
          batch.forEach((b, i) => {
            const r = results[i];
            if (r instanceof Error) b.reject(r);
            else if (r === undefined) b.reject(new Error('group commit: no result for this item'));
            else b.resolve(r);
          });
        } catch (e) {
          for (const b of batch) b.reject(e);
        }
      }
    } finally {
      this.queues.delete(key);
      this.running.delete(key);
      this.groupOf.delete(key);
    }
  }
}
