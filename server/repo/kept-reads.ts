/**
 * Answers a repository keeps, and until when.
 *
 * Exclusive (the embedded database): this process is the only writer, so a
 * read stays true until one of its own writes; the repository clears what it
 * kept around each write (before: no read made during it is kept; after: none
 * made before it survives).
 *
 * Shared (PostgreSQL), with a version: another process may write at any
 * moment, so an answer is kept together with the version read before it was
 * asked, and handed out only to a caller that reads the same version. The
 * version is moved in the same transaction as any write to what is kept (the
 * access tables' trigger, migration 0017), and a caller's version is read
 * after its request began (shared-heads.ts), so what it gets holds every
 * write committed before then, as if it had asked itself. An answer may be
 * newer than its version (a write committed between the two reads); it is
 * never older. Clearing around this repository's own writes still applies.
 *
 * Shared without a version: nothing is kept.
 */
export class KeptReads {
  private readonly kept = new Map<string, { version: number | undefined; value: Promise<unknown> }>();

  constructor(
    private readonly exclusive: boolean,
    private readonly max = 10_000,
    private readonly version?: () => Promise<number | undefined>,
    /** Called after each of the owner's writes: a later read of this process's requests checks the version the write moved (shared-heads.ts). */
    private readonly afterWrite?: () => void,
  ) {}

  /** Runs the owner's write `f`, forgetting what was kept before it (no read made during it is kept) and after it (none made before it survives). */
  async writing<T>(f: () => Promise<T>): Promise<T> {
    this.clear();
    try {
      return await f();
    } finally {
      this.clear();
      this.afterWrite?.();
    }
  }

  /**
   * `read()`'s answer for `key`, read once while nothing is written; each
   * caller gets its own copy (callers change what they get), made by `copy`
   * (a structured clone unless the caller knows a cheaper one: some reads are
   * asked on every request).
   */
  async read<T>(key: string, read: () => PromiseLike<T>, copy: (kept: T) => T = structuredClone): Promise<T> {
    let version: number | undefined;
    if (!this.exclusive) {
      version = await this.version?.();
      if (version === undefined) return read();
    }
    let entry = this.kept.get(key);
    // A caller still at an older version than what is kept reads for itself (replacing it would only make newer callers read again).
    if (entry && version !== undefined && entry.version !== undefined && entry.version > version) return read();
    if (!entry || entry.version !== version) {
      if (this.kept.size >= this.max) this.kept.clear();
      // A real promise: drizzle's query builders are thenables that run the query again on every then().
      const value = Promise.resolve(read());
      const made = { version, value };
      entry = made;
      this.kept.set(key, made);
      // A failed read is not an answer to keep.
      value.catch(() => this.kept.get(key) === made && this.kept.delete(key));
    }
    return copy((await entry.value) as T);
  }

  clear(): void {
    this.kept.clear();
  }
}
