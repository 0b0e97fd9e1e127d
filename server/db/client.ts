/**
 * Database connection: PGlite in-process by default, a PostgreSQL server
 * through postgres.js when a URL is given. Both return the same drizzle
 * `PgDatabase` type, so everything above this file has one code path.
 * Migrations from `drizzle/` run here, at open.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { PGliteThread } from './pglite-thread';
import { guardPostgresClosedSocketWrite } from './postgres-guard';
import * as schema from './schema';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface DbHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export interface OpenDbOptions {
  /** postgres:// URL; when absent PGlite is used. */
  url?: string;
  /** PGlite data folder; `memory://` for a throw-away database. */
  pgliteDir?: string;
  migrationsFolder?: string;
  /** Pool size for postgres.js. */
  max?: number;
  /** PGlite on a thread of its own (pglite-thread.ts): the server's way; tests' throw-away databases stay in-process. */
  pgliteThread?: boolean;
}

export function defaultMigrationsFolder(): string {
  return join(process.cwd(), 'drizzle');
}

export async function openDb(opts: OpenDbOptions): Promise<DbHandle> {
  const migrationsFolder = opts.migrationsFolder ?? defaultMigrationsFolder();
  if (opts.url) {
    guardPostgresClosedSocketWrite();
    const client = postgres(opts.url, {
      max: opts.max ?? 10,
      onnotice: () => {},
      // postgres.js waits (0.5–1) × 3^failures / 100 s, up to 20 s, before a connection tries again, the failures counted
      // across the pool: a few seconds of outage under load and queries sit 20 s in a waiting connection — long after the
      // server is back. Capped at 1 s, a request during an outage fails (503) within a second and one after it succeeds.
      backoff: (failures: number) => Math.min(1, 0.05 * 2 ** failures) * (0.5 + Math.random() / 2),
      // A host that drops packets (rather than refusing) would hold each query for postgres.js's default of 30 s.
      connect_timeout: 10,
    });
    const db = drizzlePostgres({ client, schema }) as unknown as Db;
    try {
      await migratePostgres(db as never, { migrationsFolder });
      await initialiseRows(db);
    } catch (e) {
      // The server is unreachable (or the migration failed): a caller that tries again opens a new client, so end this one.
      await client.end({ timeout: 1 }).catch(() => undefined);
      throw e;
    }
    return { db, kind: 'postgres', close: () => client.end({ timeout: 5 }) };
  }
  const dir = opts.pgliteDir ?? 'memory://';
  if (dir === 'memory://' && !opts.pgliteThread) return openThrowAway(migrationsFolder);
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const client = opts.pgliteThread ? await PGliteThread.create(dir) : await PGlite.create(dir);
  // The thread answers the calls drizzle makes of PGlite (query, transaction), with PGlite's results.
  const db = drizzlePglite({ client: client as PGlite, schema }) as unknown as Db;
  try {
    await migratePglite(db as never, { migrationsFolder });
    await initialiseRows(db);
  } catch (e) {
    await client.close().catch(() => undefined);
    throw e;
  }
  return { db, kind: 'pglite', close: () => client.close() };
}

/**
 * Throw-away databases (tests and benches open hundreds) start as a copy of one migrated data
 * folder: a PGlite boot runs initdb and every migration, seconds each time, while loading a copy
 * skips both. Each copy is a database of its own, as fresh as before. The copy is made once per
 * process and migrations folder, or read from KEELSON_PGLITE_COPY (scripts/test.mjs writes it once
 * for the whole run, for the default folder, with writeMigratedPgliteCopy).
 */
const migratedCopies = new Map<string, Promise<Blob>>();

async function openThrowAway(migrationsFolder: string): Promise<DbHandle> {
  const copy = migratedCopies.get(migrationsFolder) ?? copyFromFile(migrationsFolder);
  if (copy) {
    const client = await PGlite.create('memory://', { loadDataDir: await copy });
    // A copy is a database made now: the one value a migration took from the clock (drizzle/0017's access version,
    // so a database made again never repeats a version a console may still hold) is taken again, as its function does.
    await client.exec('update access_version set version = greatest(version + 1, (extract(epoch from clock_timestamp()) * 1000000)::bigint) where id = 1');
    return { db: drizzlePglite({ client, schema }) as unknown as Db, kind: 'pglite', close: () => client.close() };
  }
  // The first in this process: migrated as before, and its data folder kept for the next ones.
  const client = await PGlite.create('memory://');
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  const migrated = (async () => {
    await migratePglite(db as never, { migrationsFolder });
    await initialiseRows(db);
    return client.dumpDataDir('none');
  })();
  migratedCopies.set(migrationsFolder, migrated);
  try {
    await migrated;
  } catch (e) {
    // Not remembered: the next open migrates again and reports its own error.
    migratedCopies.delete(migrationsFolder);
    await client.close().catch(() => undefined);
    throw e;
  }
  return { db, kind: 'pglite', close: () => client.close() };
}

function copyFromFile(migrationsFolder: string): Promise<Blob> | undefined {
  const file = process.env.KEELSON_PGLITE_COPY;
  if (!file || migrationsFolder !== defaultMigrationsFolder() || !existsSync(file)) return undefined;
  const copy = Promise.resolve(new Blob([readFileSync(file)]));
  migratedCopies.set(migrationsFolder, copy);
  return copy;
}

/** Writes the migrated data folder throw-away databases start from, for KEELSON_PGLITE_COPY. */
export async function writeMigratedPgliteCopy(file: string): Promise<void> {
  const h = await openThrowAway(defaultMigrationsFolder());
  await h.close();
  const copy = await migratedCopies.get(defaultMigrationsFolder());
  if (copy) writeFileSync(file, Buffer.from(await copy.arrayBuffer()));
}

/** Singleton rows the code relies on (idempotent). */
async function initialiseRows(db: Db): Promise<void> {
  await db.insert(schema.policyHead).values({ id: 1, generation: 0 }).onConflictDoNothing();
  await db.insert(schema.deploymentHead).values({ id: 1 }).onConflictDoNothing();
}
