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
 * `commit(items, {waited})` answers one result per item, in order: a
 * value, or an Error for that item alone. If it throws, every item of the
 * batch fails with that error. `waited` says the items queued behind an
 * earlier commit: what they checked before queueing may have changed.
 */
export class GroupCommit<I, O> {
  private readonly queues = new Map<string, { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[]>();
  private readonly running = new Set<string>();

  constructor(
    private readonly commit: (items: I[], context: { waited: boolean }) => Promise<(O | Error)[]>,
    private readonly maxBatch = 64,
  ) {}

  /** Items waiting for a commit (not those being committed): the queue depth. */
  waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  submit(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const queue = this.queues.get(key) ?? [];
      queue.push({ item, resolve, reject });
      this.queues.set(key, queue);
      if (!this.running.has(key)) void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    this.running.add(key);
    try {
      for (let round = 0; ; round++) {
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
    }
  }
}
