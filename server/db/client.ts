/**
 * Database connection: PGlite in-process by default, a PostgreSQL server
 * through postgres.js when a URL is given. Both return the same drizzle
 * `PgDatabase` type, so everything above this file has one code path.
 * Migrations from `drizzle/` run here, at open.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
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
}

export function defaultMigrationsFolder(): string {
  return join(process.cwd(), 'drizzle');
}

export async function openDb(opts: OpenDbOptions): Promise<DbHandle> {
  const migrationsFolder = opts.migrationsFolder ?? defaultMigrationsFolder();
  if (opts.url) {
    const client = postgres(opts.url, { max: opts.max ?? 10, onnotice: () => {} });
    const db = drizzlePostgres({ client, schema }) as unknown as Db;
    await migratePostgres(db as never, { migrationsFolder });
    await initialiseRows(db);
    return { db, kind: 'postgres', close: () => client.end({ timeout: 5 }) };
  }
  const dir = opts.pgliteDir ?? 'memory://';
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const client = await PGlite.create(dir);
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  await migratePglite(db as never, { migrationsFolder });
  await initialiseRows(db);
  return { db, kind: 'pglite', close: () => client.close() };
}

/** Singleton rows the code relies on (idempotent). */
async function initialiseRows(db: Db): Promise<void> {
  await db.insert(schema.policyHead).values({ id: 1, generation: 0 }).onConflictDoNothing();
  await db.insert(schema.deploymentHead).values({ id: 1 }).onConflictDoNothing();
}
