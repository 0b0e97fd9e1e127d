/**
 * Backup and restore of a Keelson installation: every table of the database
 * (PGlite or PostgreSQL alike) and the local GitOps repository, in one
 * gzipped file of JSON lines:
 *
 *   {"format":"keelson-backup","version":1,"createdAt":…,"migrations":N}
 *   {"table":"policy_objects","row":{…}}          one per row, parents first
 *   {"file":".git/objects/ab/cdef…","data":"<base64>"}   one per repository file
 *   {"end":true,"rows":R,"files":F}
 *
 * Rows travel as PostgreSQL's own JSON (`row_to_json`) and come back through
 * `json_populate_record`, so every column type round-trips without a
 * per-table mapping; sequences are set past the restored ids. A restore goes
 * into an empty, migrated database in one transaction: all or nothing.
 *
 * Resource secrets travel sealed, and the key that opens them is not the
 * database's to carry (KEELSON_SECRET_KEY, or the PGlite data folder's
 * secret-key file; a PostgreSQL installation without either keeps its key in
 * `settings`, so in the backup). Rather than put that key in the file under
 * a passphrase (a second secret to keep, and a backup that opens its own
 * secrets), a restore opens every sealed value of the backup with the key
 * the restored console will use, and refuses, restoring nothing, when they
 * do not open (./secret-key.ts).
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { Db } from './client';
import { SEALED_COLUMNS, SECRET_KEY_CHECK, USE_THE_SEALING_KEY, type SecretKeyProbe } from './secret-key';

export const BACKUP_FORMAT = 'keelson-backup';
export const BACKUP_VERSION = 1;

type Row = Record<string, unknown>;

async function query<T = Row>(db: Db | Parameters<Parameters<Db['transaction']>[0]>[0], text: string): Promise<T[]> {
  const r = await db.execute(sql.raw(text));
  return (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as T[];
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Not data, so neither backed up nor restored: a version consoles compare to
 * know that what they kept of the access tables is still true. A restore
 * moves it, so a console that kept reads of the database before the restore
 * reads them again.
 */
const NOT_BACKED_UP = new Set(['access_version']);

/**
 * What an empty database holds anyway, replaced by the backup's: the heads a
 * database gets when it is opened, and the keys a console makes when it
 * starts. Rows in any other table mean the database is in use: a restore
 * refuses it (a single signed-in user once passed for a head and was lost).
 */
const REPLACED_ON_RESTORE = new Set(['policy_head', 'deployment_head', 'settings']);
const SETTINGS = 'settings';

/** The application's tables, parents before the tables that refer to them. */
async function tablesInOrder(db: Db): Promise<string[]> {
  const tables = (await query<{ table_name: string }>(db, `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`))
    .map((t) => t.table_name)
    .filter((t) => !NOT_BACKED_UP.has(t));
  const refs = await query<{ child: string; parent: string }>(
    db,
    `select tc.table_name as child, ccu.table_name as parent
       from information_schema.table_constraints tc
       join information_schema.constraint_column_usage ccu on tc.constraint_name = ccu.constraint_name and tc.table_schema = ccu.table_schema
      where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = 'public'`,
  );
  const parents = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const r of refs) if (r.child !== r.parent) parents.get(r.child)?.add(r.parent);
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (t: string, path: Set<string>) => {
    if (seen.has(t) || path.has(t)) return;
    path.add(t);
    for (const p of parents.get(t) ?? []) visit(p, path);
    seen.add(t);
    out.push(t);
  };
  for (const t of tables) visit(t, new Set());
  return out;
}

/** The columns of a table's primary key, to write rows in a stable order (a row referring to an older one of its table comes after it). */
async function primaryKey(db: Db, table: string): Promise<string[]> {
  const rows = await query<{ column_name: string }>(
    db,
    `select kcu.column_name from information_schema.table_constraints tc
       join information_schema.key_column_usage kcu on tc.constraint_name = kcu.constraint_name and tc.table_schema = kcu.table_schema
      where tc.table_schema = 'public' and tc.table_name = '${table.replace(/'/g, "''")}' and tc.constraint_type = 'PRIMARY KEY'
      order by kcu.ordinal_position`,
  );
  return rows.map((r) => r.column_name);
}

async function migrationCount(db: Db): Promise<number> {
  try {
    const r = await query<{ n: number | string }>(db, `select count(*) as n from drizzle.__drizzle_migrations`);
    return Number(r[0]?.n ?? 0);
  } catch {
    return 0;
  }
}

async function* repositoryFiles(dir: string): AsyncGenerator<{ path: string; data: Buffer }> {
  if (!existsSync(dir)) return;
  const walk = async function* (d: string): AsyncGenerator<string> {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) yield* walk(p);
      else if (e.isFile()) yield p;
    }
  };
  for await (const p of walk(dir)) {
    const rel = relative(dir, p).split(sep).join('/');
    // Scratch space of an interrupted write (see the GitOps actuator): not state.
    if (rel.startsWith('.git/keelson-tmp/')) continue;
    yield { path: rel, data: await readFile(p) };
  }
}

export interface BackupSummary {
  tables: number;
  rows: number;
  files: number;
  /** Sealed resource secrets among the rows: a restore needs the key they were sealed with. */
  secrets: number;
}

/** The sealed values of a row of `table` (as row_to_json writes it). */
function sealedValues(table: string, row: unknown): string[] {
  if (typeof row !== 'object' || row === null) return [];
  return SEALED_COLUMNS.filter((c) => c.table === table)
    .map((c) => (row as Row)[c.column])
    .filter((v): v is string => typeof v === 'string');
}

/** Write the database and the GitOps repository (`gitopsDir`, if it exists) to `file`. */
export async function backup(db: Db, gitopsDir: string | undefined, file: string): Promise<BackupSummary> {
  const summary: BackupSummary = { tables: 0, rows: 0, files: 0, secrets: 0 };
  const sealedTables = new Set(SEALED_COLUMNS.map((c) => c.table));
  const migrations = await migrationCount(db);
  const tables = await tablesInOrder(db);
  const keys = new Map<string, string[]>();
  for (const t of tables) keys.set(t, await primaryKey(db, t));
  async function* lines(): AsyncGenerator<string> {
    yield JSON.stringify({ format: BACKUP_FORMAT, version: BACKUP_VERSION, createdAt: new Date().toISOString(), migrations }) + '\n';
    // One snapshot for every table: a backup taken while the console writes is still consistent.
    const rowsByTable = await db.transaction(async (tx) => {
      await tx.execute(sql.raw('set transaction isolation level repeatable read'));
      const all: [string, string[]][] = [];
      for (const t of tables) {
        const key = keys.get(t) ?? [];
        const order = key.length ? ` order by ${key.map(ident).join(', ')}` : '';
        const rows = await query<{ j: unknown }>(tx, `select row_to_json(t)::text as j from ${ident(t)} t${order}`);
        all.push([t, rows.map((r) => String(r.j))]);
      }
      return all;
    });
    for (const [t, rows] of rowsByTable) {
      summary.tables++;
      for (const j of rows) {
        summary.rows++;
        if (sealedTables.has(t)) summary.secrets += sealedValues(t, JSON.parse(j)).length;
        yield `{"table":${JSON.stringify(t)},"row":${j}}\n`;
      }
    }
    if (gitopsDir) {
      for await (const f of repositoryFiles(gitopsDir)) {
        summary.files++;
        yield JSON.stringify({ file: f.path, data: f.data.toString('base64') }) + '\n';
      }
    }
    yield JSON.stringify({ end: true, rows: summary.rows, files: summary.files }) + '\n';
  }
  await mkdir(dirname(file), { recursive: true });
  // Readable by its owner only: it holds resource secrets (encrypted) and, on a PostgreSQL server that keeps its own keys, the keys.
  await pipeline(Readable.from(lines()), createGzip(), createWriteStream(file, { mode: 0o600 }));
  return summary;
}

export class RestoreError extends Error {}

export interface RestoreOptions {
  /**
   * The key the restored installation's consoles will open secrets with,
   * given the backup's `settings` rows (where a PostgreSQL installation
   * without KEELSON_SECRET_KEY keeps its own); or why there is none.
   */
  secretKey(backupSettings: ReadonlyMap<string, string>): SecretKeyProbe | { none: string };
}

/**
 * Restore `file` into `db` (migrated, and empty: a restore never merges) and
 * its repository files into `gitopsDir` (which must not hold a repository),
 * when its secrets open with the restored installation's key.
 */
export async function restore(db: Db, gitopsDir: string | undefined, file: string, opts: RestoreOptions): Promise<BackupSummary> {
  const tables = await tablesInOrder(db);
  const replaced: string[] = [];
  for (const t of tables) {
    const n = Number((await query<{ n: number | string }>(db, `select count(*) as n from ${ident(t)}`))[0]?.n ?? 0);
    if (REPLACED_ON_RESTORE.has(t)) replaced.push(t);
    else if (n > 0) throw new RestoreError(`The database is not empty (table ${t} has rows): a restore goes into an empty database. Nothing was restored.`);
  }
  if (gitopsDir && existsSync(join(gitopsDir, '.git'))) throw new RestoreError(`${gitopsDir} already holds a git repository: a restore does not overwrite one. Nothing was restored.`);
  const known = new Set(tables);
  const input = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  const rows: { table: string; row: string }[] = [];
  const files: { path: string; data: string }[] = [];
  const sealed: string[] = [];
  const backupSettings = new Map<string, string>();
  type Header = { format?: string; version?: number; migrations?: number };
  let header: Header | undefined;
  let end: { rows: number; files: number } | undefined;
  let lineNo = 0;
  try {
    for await (const line of input) {
      lineNo++;
      if (!line) continue;
      const o = JSON.parse(line) as Record<string, unknown>;
      if (!header) {
        const h: Header = o;
        header = h;
        if (h.format !== BACKUP_FORMAT) throw new RestoreError(`${file} is not a Keelson backup (line 1). Nothing was restored.`);
        if (h.version !== BACKUP_VERSION) throw new RestoreError(`${file} is backup format ${h.version}; this Keelson reads ${BACKUP_VERSION}. Nothing was restored.`);
        continue;
      }
      if (typeof o.table === 'string') {
        if (!known.has(o.table)) throw new RestoreError(`line ${lineNo}: table ${o.table} does not exist in this database (a backup from another Keelson version?). Nothing was restored.`);
        rows.push({ table: o.table, row: JSON.stringify(o.row) });
        sealed.push(...sealedValues(o.table, o.row));
        if (o.table === SETTINGS && typeof o.row === 'object' && o.row !== null) {
          const s = o.row as Row;
          backupSettings.set(String(s.key), String(s.value));
        }
      } else if (typeof o.file === 'string') {
        if (o.file.startsWith('/') || o.file.split('/').includes('..')) throw new RestoreError(`line ${lineNo}: file path ${o.file} leaves the repository. Nothing was restored.`);
        files.push({ path: o.file, data: String(o.data) });
      } else if (o.end === true) end = o as unknown as typeof end;
    }
  } catch (e) {
    if (e instanceof RestoreError) throw e;
    throw new RestoreError(`${file} is damaged at line ${lineNo}: ${(e as Error).message}. Nothing was restored.`);
  }
  if (!header) throw new RestoreError(`${file} is empty. Nothing was restored.`);
  if (!end || end.rows !== rows.length || end.files !== files.length) throw new RestoreError(`${file} is cut short (no end record, or counts differ). Nothing was restored.`);
  const migrations = await migrationCount(db);
  if (header.migrations !== undefined && header.migrations > migrations) {
    throw new RestoreError(`${file} was made by a newer Keelson (${header.migrations} migrations; this database has ${migrations}). Nothing was restored.`);
  }
  checkSecretKey(file, sealed, backupSettings, opts);
  // A backup without secrets restores under any key: the check of the one it was made with is left out (the console records its own at start).
  const restored = sealed.length > 0 ? rows : rows.filter((r) => r.table !== SETTINGS || (JSON.parse(r.row) as Row).key !== SECRET_KEY_CHECK);
  await db.transaction(async (tx) => {
    for (const t of replaced) await query(tx, `delete from ${ident(t)}`);
    for (const r of restored) {
      const lit = r.row.replace(/'/g, "''");
      await query(tx, `insert into ${ident(r.table)} overriding system value select * from json_populate_record(null::${ident(r.table)}, '${lit}'::json)`);
    }
    // A backup made before policy_changes existed has none of its rows: they are derived from the generations (migration 0016 does the same).
    if (known.has('policy_changes')) {
      await query(
        tx,
        `insert into policy_changes (kind, name, generation, namespace)
         select c->>'kind', c->>'name', g.generation, c->>'namespace' from policy_generations g cross join jsonb_array_elements(g.changes) c
         on conflict do nothing`,
      );
    }
    // Serial columns continue after the restored ids.
    const serials = await query<{ table_name: string; column_name: string; seq: string }>(
      tx,
      `select table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) as seq
         from information_schema.columns where table_schema = 'public' and pg_get_serial_sequence(quote_ident(table_name), column_name) is not null`,
    );
    for (const s of serials) {
      await query(tx, `select setval('${s.seq.replace(/'/g, "''")}', coalesce((select max(${ident(s.column_name)}) from ${ident(s.table_name)}), 0) + 1, false)`);
    }
    // Whether or not the backup held access rows (their writes move it too), the access tables are now another
    // installation's: the version moves on, from the clock (a database made again does not repeat one), and its row is
    // made again if it was missing.
    await query(
      tx,
      `insert into access_version (id, version) values (1, (extract(epoch from clock_timestamp()) * 1000000)::bigint)
       on conflict (id) do update set version = greatest(access_version.version + 1, excluded.version)`,
    );
  });
  if (gitopsDir) {
    for (const f of files) {
      const p = join(gitopsDir, ...f.path.split('/'));
      await mkdir(dirname(p), { recursive: true });
      await writeFile(p, Buffer.from(f.data, 'base64'));
    }
  }
  return { tables: new Set(restored.map((r) => r.table)).size, rows: restored.length, files: files.length, secrets: sealed.length };
}

/** Refuses (restoring nothing) a backup whose secrets do not open with the restored installation's key. */
function checkSecretKey(file: string, sealed: readonly string[], backupSettings: ReadonlyMap<string, string>, opts: RestoreOptions): void {
  if (sealed.length === 0) return;
  const key = opts.secretKey(backupSettings);
  const how = `${USE_THE_SEALING_KEY}, and restore again. Nothing was restored.`;
  if ('none' in key) throw new RestoreError(`${file} holds ${sealed.length} sealed resource secrets, and ${key.none}: the restored console could not open them. ${how}`);
  const closed = sealed.filter((s) => !key.opens(s)).length;
  const check = backupSettings.get(SECRET_KEY_CHECK);
  if (closed > 0 || (check !== undefined && check !== key.check)) {
    throw new RestoreError(
      `The resource secrets in ${file} (${closed > 0 ? `${closed} of ${sealed.length}` : sealed.length}) were sealed with another key than the one the restored console would use (${key.where}). ${how}`,
    );
  }
}
