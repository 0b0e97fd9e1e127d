/**
 * Database backends for storage tests: PGlite always, and the PostgreSQL
 * server that `npm test` starts (KEELSON_TEST_PG_URL). Each `open()` gives a
 * fresh, migrated, empty database.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDb, type DbHandle } from '../db/client';

export interface Backend {
  name: 'pglite' | 'postgres';
  open(): Promise<DbHandle & { url?: string }>;
}

const PG_URL = process.env.KEELSON_TEST_PG_URL;

export function backends(): Backend[] {
  const list: Backend[] = [{ name: 'pglite', open: () => openDb({ pgliteDir: 'memory://' }) }];
  if (PG_URL) list.push({ name: 'postgres', open: () => openFreshPostgres(PG_URL) });
  else if (!warned) {
    warned = true;
    console.warn('KEELSON_TEST_PG_URL is not set: storage tests run on PGlite only (npm test sets it).');
  }
  return list;
}
let warned = false;

async function openFreshPostgres(adminUrl: string): Promise<DbHandle & { url: string }> {
  const name = `keelson_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDb({ url: url.toString(), max: 20 });
  return {
    ...handle,
    // Other processes (a worker under test) connect to the same database.
    url: url.toString(),
    async close() {
      await handle.close();
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
