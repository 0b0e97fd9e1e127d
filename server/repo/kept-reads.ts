/**
 * Answers an exclusive repository keeps until it writes. On the embedded
 * database this process is the only writer, so a read stays true until one
 * of its own writes: the repository clears what it kept around each write
 * (before: no read made during it is kept; after: none made before it
 * survives). On a shared database nothing is kept (see fresh-reads.ts).
 */
export class KeptReads {
  private readonly kept = new Map<string, Promise<unknown>>();

  constructor(
    private readonly exclusive: boolean,
    private readonly max = 10_000,
  ) {}

  /** `read()`'s answer for `key`, read once while nothing is written; each caller gets its own copy (callers change what they get). */
  read<T>(key: string, read: () => PromiseLike<T>): Promise<T> {
    if (!this.exclusive) return Promise.resolve(read());
    let p = this.kept.get(key) as Promise<T> | undefined;
    if (!p) {
      if (this.kept.size >= this.max) this.kept.clear();
      // A real promise: drizzle's query builders are thenables that run the query again on every then().
      p = Promise.resolve(read());
      this.kept.set(key, p);
      // A failed read is not an answer to keep.
      p.catch(() => this.kept.get(key) === p && this.kept.delete(key));
    }
    return p.then((v) => structuredClone(v));
  }

  clear(): void {
    this.kept.clear();
  }
}
