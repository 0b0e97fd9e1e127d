/**
 * `keelson backup FILE` and `keelson restore FILE`: the whole database
 * (DATABASE_URL, else the embedded PGlite under KEELSON_DATA_DIR) and the
 * local GitOps repository, to and from one file (server/db/backup.ts).
 * With PGlite the console must be stopped first: one process owns its files.
 */
import { join } from 'node:path';
import { backup, restore, RestoreError } from '../db/backup';
import { openDb } from '../db/client';
import { keyProbe, STORED_SECRET_KEY, type SecretKeyProbe } from '../db/secret-key';
import { env, type Env } from '../env';
import { parse, UsageError } from './args';
import type { Io } from './main';

const HELP = (cmd: string) => `Usage: keelson ${cmd} FILE

${cmd === 'backup' ? 'Write the database and the GitOps repository to FILE (gzipped JSON lines).' : 'Restore FILE into an empty database and an absent GitOps repository; all or nothing.'}
The database is DATABASE_URL, or the embedded PGlite in KEELSON_DATA_DIR (stop the
console first); the repository is KEELSON_GITOPS_DIR (default KEELSON_DATA_DIR/gitops).
Resource secrets stay sealed with their key, which the file does not hold unless the
database keeps it (PostgreSQL without KEELSON_SECRET_KEY): a restore opens them with
the key the restored console will use, and refuses when they do not open.
`;

/**
 * The key the restored installation's consoles will use, as `npm start`
 * picks it (scripts/start.mjs): KEELSON_SECRET_KEY; else, on PostgreSQL, the
 * key the database keeps (the backup's own, once restored); else the data
 * folder's file.
 */
function restoredKey(e: Env, backupSettings: ReadonlyMap<string, string>): SecretKeyProbe | { none: string } {
  if (!e.secretKeyFile) return keyProbe(e.secretKey, 'KEELSON_SECRET_KEY');
  if (e.databaseUrl) {
    const kept = backupSettings.get(STORED_SECRET_KEY);
    return kept ? keyProbe(Buffer.from(kept, 'base64'), 'the key the backed-up database keeps') : { none: 'KEELSON_SECRET_KEY is not set and the backup does not hold its database\'s own key' };
  }
  return keyProbe(e.secretKey, `the key in ${e.secretKeyFile}`);
}

/** Where the key of a backup's secrets is, for the operator to keep. */
function keptKey(e: Env): string {
  if (!e.secretKeyFile) return 'KEELSON_SECRET_KEY';
  return e.databaseUrl ? 'the key the database keeps (in the backup, too: keep the file like the secrets)' : `the key in ${e.secretKeyFile}`;
}

export async function backupCommand(cmd: 'backup' | 'restore', argv: string[], io: Io, e: Env = env()): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv, { help: { type: 'boolean', short: 'h' } });
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`keelson ${cmd}: ${err.message}\n\n${HELP(cmd)}`);
      return 2;
    }
    throw err;
  }
  if (parsed.values.help) {
    io.out(HELP(cmd));
    return 0;
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length) {
    io.err(`keelson ${cmd}: give one FILE\n\n${HELP(cmd)}`);
    return 2;
  }
  const h = await openDb({ url: e.databaseUrl, pgliteDir: join(e.dataDir, 'pglite') });
  try {
    if (cmd === 'backup') {
      const s = await backup(h.db, e.gitopsDir, file);
      io.out(`Backed up ${s.rows} rows of ${s.tables} tables and ${s.files} repository files to ${file}\n`);
      if (s.secrets > 0) io.out(`Its ${s.secrets} resource secrets are sealed with ${keptKey(e)}: a restore needs that key.\n`);
    } else {
      const s = await restore(h.db, e.gitopsDir, file, { secretKey: (settings) => restoredKey(e, settings) });
      io.out(`Restored ${s.rows} rows of ${s.tables} tables and ${s.files} repository files from ${file}\n`);
    }
    return 0;
  } catch (err) {
    if (err instanceof RestoreError) {
      io.err(`keelson restore: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await h.close();
  }
}
