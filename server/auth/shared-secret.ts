/**
 * The session-signing secret shared by every process of a deployment. With
 * NEXTAUTH_SECRET set, that is it. Otherwise, on a PostgreSQL server (where
 * several console processes may serve the same users) the first process
 * generates one and stores it in the database; every later process reads
 * the same value, so a session signed by one is accepted by all. (The
 * embedded PGlite database belongs to one process: its secret stays in the
 * data folder, see env.ts.)
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { settings } from '../db/schema';

const KEY = 'auth.session-secret';

export async function sharedSessionSecret(db: Db): Promise<string> {
  // Insert-if-absent, then read: two processes starting together agree on the winner's value.
  await db.insert(settings).values({ key: KEY, value: randomBytes(32).toString('base64url') }).onConflictDoNothing();
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, KEY));
  if (!row) throw new Error('the shared session secret could not be stored');
  return row.value;
}
