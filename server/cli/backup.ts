/**
 * `keelson backup FILE` and `keelson restore FILE`: the whole database
 * (DATABASE_URL, else the embedded PGlite under KEELSON_DATA_DIR) and the
 * local GitOps repository, to and from one file (server/db/backup.ts).
 * With PGlite the console must be stopped first: one process owns its files.
 */
import { join } from 'node:path';
import { backup, restore, RestoreError } from '../db/backup';
import { openDb } from '../db/client';
import { env } from '../env';
import { parse, UsageError } from './args';
import type { Io } from './main';

const HELP = (cmd: string) => `Usage: keelson ${cmd} FILE

${cmd === 'backup' ? 'Write the database and the GitOps repository to FILE (gzipped JSON lines).' : 'Restore FILE into an empty database and an absent GitOps repository; all or nothing.'}
The database is DATABASE_URL, or the embedded PGlite in KEELSON_DATA_DIR (stop the
console first); the repository is KEELSON_GITOPS_DIR (default KEELSON_DATA_DIR/gitops).
`;

export async function backupCommand(cmd: 'backup' | 'restore', argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv, { help: { type: 'boolean', short: 'h' } });
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`keelson ${cmd}: ${e.message}\n\n${HELP(cmd)}`);
      return 2;
    }
    throw e;
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
  const e = env();
  const h = await openDb({ url: e.databaseUrl, pgliteDir: join(e.dataDir, 'pglite') });
  try {
    if (cmd === 'backup') {
      const s = await backup(h.db, e.gitopsDir, file);
      io.out(`Backed up ${s.rows} rows of ${s.tables} tables and ${s.files} repository files to ${file}\n`);
    } else {
      const s = await restore(h.db, e.gitopsDir, file);
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
