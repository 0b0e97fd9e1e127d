/**
 * Backup and restore round-trip, on PGlite and on PostgreSQL: a used
 * installation (the demo, a revision accepted and applied to the GitOps
 * repository, its events, steps and jobs) is backed up, restored into an
 * empty database and folder, and every table row and every repository
 * file and commit is equal. A restore never merges, and a damaged file
 * restores nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { GitOpsActuator, commitLog, readTrackedFiles } from '../apply/gitops/actuator';
import { runOnce } from '../apply/worker';
import { drizzleRepos } from '../repo/drizzle';
import { seedDemo } from '../seed/demo';
import { createServices } from '../services';
import { backends } from '../testing/backends';
import { backup, restore, type RestoreOptions } from './backup';
import type { Db } from './client';
import { keyProbe } from './secret-key';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'keelson-backup-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** These installations hold no resource secrets: any key opens them (server/cli/backup-keys.test.ts has those that do). */
const ANY_KEY: RestoreOptions = { secretKey: () => keyProbe(Buffer.alloc(32, 9), 'a test key') };

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];
const accessVersion = async (db: Db) => Number(rowsOf(await db.execute(sql.raw('select version from access_version where id = 1')))[0]?.version);

async function everyRow(db: Db): Promise<Record<string, string[]>> {
  const tables = rowsOf(await db.execute(sql.raw(`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`))).map((t) => String(t.table_name));
  const out: Record<string, string[]> = {};
  // access_version is not data (backup.ts): the restore moves it, checked on its own.
  for (const t of tables.filter((t) => t !== 'access_version')) out[t] = rowsOf(await db.execute(sql.raw(`select row_to_json(x)::text as j from "${t}" x`))).map((r) => String(r.j)).sort();
  return out;
}

for (const backend of backends()) {
  describe(`backup and restore (${backend.name})`, () => {
    test('a used installation round-trips: every row, every repository file and commit', async () => {
      const source = await backend.open();
      const target = await backend.open();
      try {
        const repos = drizzleRepos(source.db);
        await seedDemo(repos);
        const services = createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });
        const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
        const rev = await services.revisions.ensureForGeneration(await repos.policy.head());
        assert.equal((await services.revisions.decide(sam, { revisionId: rev.id, decision: 'accept' })).status, 'accepted');
        const gitops = temp();
        while (await runOnce({ revisions: repos.revisions, actuator: new GitOpsActuator(gitops) }));
        assert.equal((await repos.revisions.get(rev.id))!.status, 'applied');
        await services.resolution.close();

        const file = join(temp(), 'keelson.backup');
        const made = await backup(source.db, gitops, file);
        assert.ok(made.rows > 100 && made.files > 5, JSON.stringify(made));

        const restoredRepo = join(temp(), 'gitops');
        const versionBefore = await accessVersion(target.db);
        const back = await restore(target.db, restoredRepo, file, ANY_KEY);
        // A console that kept what it read of the empty database's tenants and users reads them again.
        assert.ok((await accessVersion(target.db)) > versionBefore, 'the restore moved the access version');
        assert.deepEqual(back, { tables: back.tables, rows: made.rows, files: made.files, secrets: 0 });
        assert.deepEqual(await everyRow(target.db), await everyRow(source.db));
        assert.deepEqual(await readTrackedFiles(restoredRepo), await readTrackedFiles(gitops));
        assert.deepEqual(await commitLog(restoredRepo), await commitLog(gitops));

        // The restored installation carries on: new rows get new ids, not restored ones.
        await drizzleRepos(target.db).revisions.event(rev.id, 'note', 'after the restore');
        const events = await drizzleRepos(target.db).revisions.events(rev.id);
        assert.equal(new Set(events.map((e) => e.id)).size, events.length);

        // A backup made before policy_changes existed (no rows of it) restores them, derived from the generations.
        const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n').filter(Boolean);
        const kept = lines.filter((l) => !l.startsWith('{"table":"policy_changes"'));
        assert.ok(lines.length - kept.length > 10, 'the demo changed objects: policy_changes has rows');
        const endAt = kept.findIndex((l) => l.startsWith('{"end":true'));
        const endRecord = JSON.parse(kept[endAt]!) as { rows: number };
        kept[endAt] = JSON.stringify({ ...endRecord, rows: endRecord.rows - (lines.length - kept.length) });
        const olderFile = join(temp(), 'older.backup');
        writeFileSync(olderFile, gzipSync(kept.join('\n') + '\n'));
        const third = await backend.open();
        try {
          await restore(third.db, undefined, olderFile, ANY_KEY);
          assert.deepEqual(await everyRow(third.db), await everyRow(source.db));
          // A service's history reads them: the same generations as the source's.
          const claim = (await repos.policy.listObjects({ kind: 'claim' }))[0]!;
          const history = async (db: Db) => (await drizzleRepos(db).policy.listGenerations({ touching: { kind: 'claim', name: claim.name } })).map((g) => g.generation);
          assert.ok((await history(source.db)).length > 0);
          assert.deepEqual(await history(third.db), await history(source.db));
        } finally {
          await third.close();
        }

        // A restore never merges: into a database with rows, it refuses and changes nothing.
        const before = await everyRow(target.db);
        await assert.rejects(restore(target.db, join(temp(), 'other'), file, ANY_KEY), /The database is not empty \(table \w+ has rows\)/);
        assert.deepEqual(await everyRow(target.db), before);
        // Not even one row: a database where one user has signed in is in use (that user was once taken for a head, and lost).
        const used = await backend.open();
        try {
          await drizzleRepos(used.db).users.upsertUser({ id: 'local:ann', name: 'ann', email: null, provider: 'local', labels: {} });
          const usedBefore = await everyRow(used.db);
          await assert.rejects(restore(used.db, undefined, file, ANY_KEY), /The database is not empty \(table users has rows\)/);
          assert.deepEqual(await everyRow(used.db), usedBefore);
        } finally {
          await used.close();
        }
      } finally {
        await source.close();
        await target.close();
      }
    });

    test('a damaged or cut-short backup restores nothing', async () => {
      const source = await backend.open();
      const empty = await backend.open();
      try {
        await seedDemo(drizzleRepos(source.db));
        const file = join(temp(), 'keelson.backup');
        await backup(source.db, undefined, file);
        const fresh = await everyRow(empty.db);
        const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
        const cut = join(temp(), 'cut.backup');
        writeFileSync(cut, gzipSync(lines.slice(0, Math.floor(lines.length / 2)).join('\n')));
        await assert.rejects(restore(empty.db, undefined, cut, ANY_KEY), /cut short .* Nothing was restored/);
        const bad = join(temp(), 'bad.backup');
        writeFileSync(bad, gzipSync([lines[0], '{"table":"policy_objects","row":', ...lines.slice(1)].join('\n')));
        await assert.rejects(restore(empty.db, undefined, bad, ANY_KEY), /is damaged at line 2/);
        const other = join(temp(), 'other.backup');
        writeFileSync(other, gzipSync('{"format":"something-else"}\n'));
        await assert.rejects(restore(empty.db, undefined, other, ANY_KEY), /is not a Keelson backup/);
        assert.deepEqual(await everyRow(empty.db), fresh, 'as freshly migrated');
      } finally {
        await source.close();
        await empty.close();
      }
    });
  });
}
