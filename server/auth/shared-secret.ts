/**
 * Secrets shared by every process of a deployment: the session-signing
 * secret and the key that encrypts resource secrets at rest. Set in the
 * environment (NEXTAUTH_SECRET, KEELSON_SECRET_KEY), those are they.
 * Otherwise, on a PostgreSQL server (where several console processes may
 * serve the same users and read the same secrets) the first process
 * generates each and stores it in the database; every later process reads
 * the same value, so a session signed by one is accepted by all and a
 * secret one encrypted another can read. (The embedded PGlite database
 * belongs to one process: its secrets stay in the data folder, see env.ts.)
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { settings } from '../db/schema';
import { STORED_SECRET_KEY } from '../db/secret-key';

async function sharedSetting(db: Db, key: string, make: () => string): Promise<string> {
  // Insert-if-absent, then read: two processes starting together agree on the winner's value.
  await db.insert(settings).values({ key, value: make() }).onConflictDoNothing();
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
  if (!row) throw new Error(`the shared setting ${key} could not be stored`);
  return row.value;
}

export function sharedSessionSecret(db: Db): Promise<string> {
  return sharedSetting(db, 'auth.session-secret', () => randomBytes(32).toString('base64url'));
}

/** The AES-256-GCM key for resource secrets, base64 (as KEELSON_SECRET_KEY takes it). */
export function sharedSecretKey(db: Db): Promise<string> {
  return sharedSetting(db, STORED_SECRET_KEY, () => randomBytes(32).toString('base64'));
}
