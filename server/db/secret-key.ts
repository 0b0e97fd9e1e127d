/**
 * Which key an installation's resource secrets are sealed with. They are
 * sealed with KEELSON_SECRET_KEY or, when it is unset, with a key of the
 * installation's own (in the database on PostgreSQL, in the data folder
 * with PGlite), and the database holds only the sealed values: a backup
 * restored without its key, or a data folder that lost its key file, left
 * every secret unreadable ("unable to authenticate data", a 500 on each
 * reveal) while new ones were sealed with another key.
 *
 * The `settings` row `resources.secret-key-check` names the key the
 * secrets are sealed with, without revealing it. A console checks its key
 * against it at start and refuses to start with another one, saying which;
 * a restore refuses a backup whose secrets the restored console could not
 * open (server/db/backup.ts).
 */
import { eq, getTableName, isNotNull } from 'drizzle-orm';
import { SecretBox } from './secret-box';
import type { Db } from './client';
import { settings, tenantResources } from './schema';

export const SECRET_KEY_CHECK = 'resources.secret-key-check';
/** Where a PostgreSQL installation without KEELSON_SECRET_KEY keeps its key (server/auth/shared-secret.ts). */
export const STORED_SECRET_KEY = 'resources.secret-key';

/** The columns holding sealed values: a backup's are opened before it is restored. */
export const SEALED_COLUMNS: readonly { table: string; column: string }[] = [{ table: getTableName(tenantResources), column: tenantResources.sealed.name }];

/** A key as the checks see it: where it comes from (for messages), its check value, and whether a sealed value opens with it. */
export interface SecretKeyProbe {
  where: string;
  check: string;
  opens(sealed: string): boolean;
}

export function keyProbe(key: Buffer, where: string): SecretKeyProbe {
  const box = new SecretBox(key);
  return { where, check: box.keyCheck(), opens: (sealed) => box.opens(sealed) };
}

/** What to do about a key that is not the secrets' own: one sentence, for the start refusal and the restore's. */
export const USE_THE_SEALING_KEY =
  'Set KEELSON_SECRET_KEY to the key of the installation the secrets come from, or put that installation\'s secret-key file (in its KEELSON_DATA_DIR) in place of this one';

export class SecretKeyMismatch extends Error {}

async function storedCheck(db: Db): Promise<string | undefined> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, SECRET_KEY_CHECK));
  return row?.value;
}

/** At most this many sealed values are opened to learn whether a database without a check is this key's. */
const SAMPLE = 1000;

/**
 * Refuses (SecretKeyMismatch) a key the database's secrets were not sealed
 * with; records the key's check when the database has none yet (a new one,
 * or one from before the check: its sealed values decide).
 */
export async function verifySecretKey(db: Db, probe: SecretKeyProbe): Promise<void> {
  if ((await storedCheck(db)) === undefined) {
    const rows = await db.select({ sealed: tenantResources.sealed }).from(tenantResources).where(isNotNull(tenantResources.sealed)).limit(SAMPLE);
    const closed = rows.filter((r) => !probe.opens(r.sealed!)).length;
    if (closed > 0) throw mismatch(probe, `${closed} of its ${rows.length} secrets do not open with it`);
    // Two consoles starting together: the first row stays, and the other compares with it below.
    await db.insert(settings).values({ key: SECRET_KEY_CHECK, value: probe.check }).onConflictDoNothing();
  }
  if ((await storedCheck(db)) !== probe.check) throw mismatch(probe, 'they were sealed with another key');
}

function mismatch(probe: SecretKeyProbe, why: string): SecretKeyMismatch {
  return new SecretKeyMismatch(
    `The console cannot start: the resource secrets in its database are not sealed with its key (${probe.where}): ${why}. ` +
      `${USE_THE_SEALING_KEY}, and start it again.`,
  );
}
