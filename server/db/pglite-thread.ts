/**
 * The embedded database on its own thread, behind the part of PGlite's
 * interface drizzle uses (query, exec, transaction, close).
 *
 * Under load PGlite was 40% of the request thread: PostgreSQL itself runs
 * in WebAssembly on the caller's thread, and so do encoding parameters and
 * decoding every row. The console is one process on two cores; with the
 * database on a second thread, requests are parsed, authorised and answered
 * while statements run. Results cross by structured clone, which copies
 * strings and plain objects far faster than PGlite decodes them.
 *
 * Only the server (its runtime and the reliability tests' console process)
 * uses this; tests that open a throw-away database keep PGlite in-process.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

interface Result {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

interface QueryOptions {
  rowMode?: 'array' | 'object';
  parsers?: Record<number, (value: string) => unknown>;
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

/** The thread's file, found from the working directory (Next.js bundles this module where the sources are not). */
function threadFile(): string {
  const p = join(/* turbopackIgnore: true */ process.cwd(), 'server', 'db', 'pglite-thread.mjs');
  if (!existsSync(p)) throw new Error(`The embedded database's thread (${p}) is missing: run the console from its folder.`);
  return p;
}

/** An error as PGlite threw it, with PostgreSQL's fields (code, constraint, …) for callers that read them. */
function rebuild(fields: Record<string, unknown>): Error {
  const e = new Error(String(fields.message ?? 'database error'));
  for (const [k, v] of Object.entries(fields)) if (k !== 'message' && k !== 'stack') (e as unknown as Record<string, unknown>)[k] = v;
  return e;
}

/**
 * The caller's parsers, as the thread can take them: drizzle passes
 * identities (dates and intervals stay text), and only those are possible
 * across threads; any other parser is refused rather than silently ignored.
 */
function textTypes(parsers: QueryOptions['parsers']): number[] | undefined {
  if (!parsers) return undefined;
  const out: number[] = [];
  for (const [type, fn] of Object.entries(parsers)) {
    if (fn('x') !== 'x') throw new Error(`pglite-thread: a parser for type ${type} that is not the identity cannot run on the database's thread`);
    out.push(Number(type));
  }
  return out;
}

type Call = (msg: Record<string, unknown>) => Promise<unknown>;

/** The database as queries see it: the whole of it, or one open transaction. */
class Connection {
  constructor(
    private readonly call: Call,
    private readonly tx?: number,
  ) {}

  query<T = unknown>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<Result & { rows: T[] }> {
    return this.call({ op: 'query', sql, params: params ?? [], rowMode: opts?.rowMode, textTypes: textTypes(opts?.parsers), tx: this.tx }) as Promise<Result & { rows: T[] }>;
  }

  exec(sql: string): Promise<Result[]> {
    return this.call({ op: 'exec', sql, tx: this.tx }) as Promise<Result[]>;
  }
}

export class PGliteThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private txSeq = 0;
  private failure: Error | undefined;
  readonly ready: Promise<void>;

  private readonly whole = new Connection((m) => this.call(m));

  private constructor(dir: string) {
    this.worker = new Worker(threadFile(), { workerData: { dir }, execArgv: [] });
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (m: { ready?: boolean; error?: Record<string, unknown> }) => {
        if (m.ready === undefined) return;
        this.worker.off('message', onMessage);
        if (m.ready) resolve();
        else reject(rebuild(m.error ?? {}));
      };
      this.worker.on('message', onMessage);
      this.worker.once('error', reject);
    });
    this.worker.on('message', (m: { id?: number; ok?: boolean; value?: unknown; error?: Record<string, unknown> }) => {
      if (m.id === undefined) return;
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (!p) return;
      if (m.ok) p.resolve(m.value);
      else p.reject(rebuild(m.error ?? {}));
    });
    // The thread gone (out of memory, a crash in PostgreSQL): every waiting statement fails, and so does every later one.
    const lost = (e: Error) => {
      this.failure ??= new Error(`The embedded database's thread stopped: ${e.message}`);
      for (const p of this.pending.values()) p.reject(this.failure);
      this.pending.clear();
    };
    this.worker.on('error', lost);
    this.worker.on('exit', (code) => lost(new Error(`exit code ${code}`)));
  }

  static async create(dir: string): Promise<PGliteThread> {
    const t = new PGliteThread(dir);
    try {
      await t.ready;
    } catch (e) {
      await t.worker.terminate();
      throw e;
    }
    return t;
  }

  query<T = unknown>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<Result & { rows: T[] }> {
    return this.whole.query<T>(sql, params, opts);
  }

  exec(sql: string): Promise<Result[]> {
    return this.whole.exec(sql);
  }

  private call(msg: Record<string, unknown>): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id });
    });
  }

  /**
   * As PGlite's: the callback's queries run in one transaction, committed
   * when it returns and rolled back when it throws. The callback starts
   * without waiting for `begin` to be answered: its first statements follow
   * `begin` to the thread and wait there for the transaction to open. A
   * transaction holds the one connection from its BEGIN to its end, and
   * every answer it waits for is a turn of this (busy) thread: under load
   * that turn was a good part of each transaction's hold, which every other
   * statement waited out.
   */
  async transaction<T>(fn: (tx: Connection) => Promise<T>): Promise<T> {
    const tx = ++this.txSeq;
    const begun = this.call({ op: 'begin', tx });
    // Its failure (the thread gone, BEGIN refused) reaches the statements, and is thrown below.
    begun.catch(() => undefined);
    let value: T;
    try {
      value = await fn(new Connection((m) => this.call(m), tx));
      await begun;
    } catch (e) {
      await this.call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw e;
    }
    await this.call({ op: 'end', tx, commit: true });
    return value;
  }

  async close(): Promise<void> {
    if (this.failure) return;
    try {
      await this.call({ op: 'close' });
    } finally {
      this.failure = new Error('The embedded database is closed.');
      await this.worker.terminate();
    }
  }
}
