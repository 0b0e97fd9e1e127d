/**
 * Backups carry what they need: resource secrets are sealed with a key the
 * database does not hold (KEELSON_SECRET_KEY, or the PGlite data folder's
 * secret-key file), so `keelson restore` opens every secret of the backup
 * with the key the restored console will use, and refuses — naming the key
 * and what to do, restoring nothing — when they do not open. Given the
 * right key, every secret reads back. A console started with another key
 * than its secrets' refuses to start, saying so, instead of answering each
 * reveal with a 500.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { sharedSecretKey } from '../auth/shared-secret';
import { openDb, type DbHandle } from '../db/client';
import { keyProbe, SecretKeyMismatch, verifySecretKey } from '../db/secret-key';
import { loadEnv, type Env } from '../env';
import { drizzleRepos } from '../repo/drizzle';
import type { Actor } from '../services/actor';
import { createServices, type Services } from '../services';
import { backends } from '../testing/backends';
import { TEST_SHOP_CERT, TEST_SHOP_KEY } from '../testing/tls';
import { backupCommand } from './backup';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'keelson-backup-keys-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const sam: Actor = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' };
/** The secrets planted in the installation that is backed up. */
const SECRETS = { 'db-password': 'correct horse battery staple', 'api-token': 's3cr3t-t0k3n-4f1e' };
const TLS_KEY = TEST_SHOP_KEY;

function servicesFor(h: DbHandle, secretKey: Buffer): Services {
  return createServices(drizzleRepos(h.db), { usersFile: undefined, domainAdmins: ['Sam'], secretKey });
}

async function plantSecrets(services: Services): Promise<void> {
  await services.tenants.create(sam, { name: 'acme', namespaces: ['acme-web'] });
  for (const [name, value] of Object.entries(SECRETS)) await services.resources.register(sam, { tenant: 'acme', kind: 'secret', name, body: { value } });
  await services.resources.register(sam, { tenant: 'acme', kind: 'certificate', name: 'web-tls', body: { cert: TEST_SHOP_CERT, key: TLS_KEY, domain: 'shop.example.com' } });
}

/** Every secret of the restored installation, revealed by a domain admin. */
async function revealAll(services: Services): Promise<Record<string, string | undefined>> {
  const out: Record<string, string | undefined> = {};
  for (const name of Object.keys(SECRETS)) out[name] = (await services.resources.get(sam, { tenant: 'acme', kind: 'secret', name, reveal: true })).secret;
  out['web-tls'] = (await services.resources.get(sam, { tenant: 'acme', kind: 'certificate', name: 'web-tls', reveal: true })).secret;
  return out;
}
const EXPECTED = { ...SECRETS, 'web-tls': TLS_KEY };

async function cli(cmd: 'backup' | 'restore', file: string, e: Env) {
  let out = '';
  let err = '';
  const code = await backupCommand(cmd, [file], { out: (s) => (out += s), err: (s) => (err += s) }, e);
  return { code, out, err };
}

const pgliteEnv = (dataDir: string, extra: Record<string, string> = {}) => loadEnv({ NODE_ENV: 'test', KEELSON_DATA_DIR: dataDir, ...extra });
const pglite = (e: Env) => openDb({ pgliteDir: join(e.dataDir, 'pglite') });
const tenantCount = async (h: DbHandle) => (await drizzleRepos(h.db).tenants.list()).length;

describe('backup and restore carry the secrets’ key (PGlite, through the CLI)', () => {
  // One installation with secrets, backed up once, for every restore below.
  let source: Env;
  let file: string;
  before(async () => {
    source = pgliteEnv(temp());
    const h = await pglite(source);
    const services = servicesFor(h, source.secretKey);
    await plantSecrets(services);
    await services.resolution.close();
    await h.close();
    file = join(temp(), 'keelson.backup');
    const made = await cli('backup', file, source);
    assert.equal(made.code, 0, made.err);
    assert.equal(made.out.split('\n')[1], `Its 3 resource secrets are sealed with the key in ${source.secretKeyFile}: a restore needs that key.`);
  });

  test('a restore into a fresh data folder refuses a backup whose secrets its key cannot open, and restores nothing', async () => {
    // A fresh data folder makes a key of its own: not the secrets' key.
    const fresh = pgliteEnv(temp());
    const refused = await cli('restore', file, fresh);
    assert.equal(refused.code, 1, refused.out);
    assert.match(refused.err, /^keelson restore: The resource secrets in .* \(3 of 3\) were sealed with another key than the one the restored console would use \(the key in .*secret-key\)\./);
    assert.match(refused.err, /Set KEELSON_SECRET_KEY to the key of the installation the secrets come from, or put that installation's secret-key file .* in place of this one/);
    assert.match(refused.err, /Nothing was restored\.$/m);
    const empty = await pglite(fresh);
    try {
      assert.equal(await tenantCount(empty), 0, 'nothing restored');
    } finally {
      await empty.close();
    }
  });

  test('with the key file copied over, or given as KEELSON_SECRET_KEY, every secret reads back', async () => {
    // The operator copies the old installation's secret-key file into the new data folder.
    const copied = temp();
    copyFileSync(source.secretKeyFile!, join(copied, 'secret-key'));
    // Or sets KEELSON_SECRET_KEY to it.
    const key = readFileSync(source.secretKeyFile!, 'utf8').trim();
    for (const target of [pgliteEnv(copied), pgliteEnv(temp(), { KEELSON_SECRET_KEY: key })]) {
      const r = await cli('restore', file, target);
      assert.equal(r.code, 0, r.err);
      const back = await pglite(target);
      try {
        // The console starts: its key is the secrets' own.
        await verifySecretKey(back.db, keyProbe(target.secretKey, target.secretKeyFile ?? 'KEELSON_SECRET_KEY'));
        const restored = servicesFor(back, target.secretKey);
        assert.deepEqual(await revealAll(restored), EXPECTED);
        await restored.resolution.close();
      } finally {
        await back.close();
      }
    }
  });
});

for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe('backup and restore carry the secrets’ key (PostgreSQL, the key kept in the database)', () => {
    test('the backup holds the database’s own key: a restore reads every secret back; another KEELSON_SECRET_KEY is refused', async () => {
      const a = await backend.open();
      const b = await backend.open();
      const c = await backend.open();
      try {
        const sourceKey = Buffer.from(await sharedSecretKey(a.db), 'base64');
        const services = servicesFor(a, sourceKey);
        await plantSecrets(services);
        await services.resolution.close();
        const file = join(temp(), 'keelson.backup');
        const made = await cli('backup', file, pgliteEnv(temp(), { DATABASE_URL: a.url! }));
        assert.equal(made.code, 0, made.err);

        const wrong = await cli('restore', file, pgliteEnv(temp(), { DATABASE_URL: c.url!, KEELSON_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }));
        assert.equal(wrong.code, 1);
        assert.match(wrong.err, /another key than the one the restored console would use \(KEELSON_SECRET_KEY\).* Nothing was restored\./s);
        assert.equal(await tenantCount(c), 0);

        assert.equal((await cli('restore', file, pgliteEnv(temp(), { DATABASE_URL: b.url! }))).code, 0);
        // As npm start does on PostgreSQL: the key the database keeps.
        const restoredKey = Buffer.from(await sharedSecretKey(b.db), 'base64');
        const restored = servicesFor(b, restoredKey);
        assert.deepEqual(await revealAll(restored), EXPECTED);
        await restored.resolution.close();
      } finally {
        await a.close();
        await b.close();
        await c.close();
      }
    });
  });
}

describe('a console started with another key than its secrets’', () => {
  test('refuses to start, naming its key and what to do; with the right key it starts and records the key’s check', async () => {
    for (const backend of backends()) {
      const h = await backend.open();
      try {
        const right = Buffer.alloc(32, 1);
        const other = Buffer.alloc(32, 2);
        const services = servicesFor(h, right);
        await plantSecrets(services);
        await services.resolution.close();
        // A database from before the check: its sealed values decide.
        await assert.rejects(verifySecretKey(h.db, keyProbe(other, '/data/secret-key')), (e: unknown) => {
          assert.ok(e instanceof SecretKeyMismatch, String(e));
          assert.match(e.message, /^The console cannot start: the resource secrets in its database are not sealed with its key \(\/data\/secret-key\): 3 of its 3 secrets do not open with it\. Set KEELSON_SECRET_KEY to the key/);
          return true;
        });
        await verifySecretKey(h.db, keyProbe(right, 'KEELSON_SECRET_KEY'));
        // From now on the check decides, secrets or not.
        await h.db.execute(sql.raw('delete from tenant_resources'));
        await assert.rejects(verifySecretKey(h.db, keyProbe(other, 'KEELSON_SECRET_KEY')), /sealed with another key/);
        await verifySecretKey(h.db, keyProbe(right, 'KEELSON_SECRET_KEY'));
      } finally {
        await h.close();
      }
    }
  });

  test('a secret that does not open is an error that says why, not “unable to authenticate data”', async () => {
    const h = await backends()[0]!.open();
    try {
      const owner = servicesFor(h, Buffer.alloc(32, 1));
      await plantSecrets(owner);
      await owner.resolution.close();
      const other = servicesFor(h, Buffer.alloc(32, 2));
      await assert.rejects(other.resources.get(sam, { tenant: 'acme', kind: 'secret', name: 'db-password', reveal: true }), (e: Error) => {
        assert.doesNotMatch(e.message, /unable to authenticate/);
        assert.match(e.message, /secret db-password .* sealed with another key/);
        return true;
      });
      await other.resolution.close();
    } finally {
      await h.close();
    }
  });
});
