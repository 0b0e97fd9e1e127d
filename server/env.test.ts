import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { rmSync } from 'node:fs';
import { EnvError, loadEnv } from './env';

const made: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'keelson-env-'));
  made.push(d);
  return d;
};
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('configuration', () => {
  test('defaults: port 3000, PGlite, demo seed, and an auth secret generated once and kept', () => {
    const d = dir();
    const e = loadEnv({ KEELSON_DATA_DIR: d });
    assert.equal(e.port, 3000);
    assert.equal(e.databaseUrl, undefined);
    assert.equal(e.seed, 'demo');
    assert.equal(e.authUrl, 'http://localhost:3000');
    assert.ok(existsSync(join(d, 'auth-secret')));
    assert.equal(loadEnv({ KEELSON_DATA_DIR: d }).authSecret, e.authSecret, 'the secret survives restarts');
    assert.equal(readFileSync(join(d, 'auth-secret'), 'utf8').trim(), e.authSecret);
  });

  test('a GitOps remote: each process gets a scratch clone of its own under the data folder; DM fetch hosts are read as a list', () => {
    const d = dir();
    const e = loadEnv({ KEELSON_DATA_DIR: d, KEELSON_GITOPS_REMOTE: 'https://git.example.com/ops/gitops.git', KEELSON_DM_ALLOW_HOSTS: 'raw.githubusercontent.com, 127.0.0.1:4011' });
    assert.equal(e.gitopsRemote, 'https://git.example.com/ops/gitops.git');
    assert.ok(e.gitopsDir.startsWith(join(d, 'gitops-clones') + '/') && e.gitopsDir.endsWith(`-${process.pid}`), e.gitopsDir);
    assert.deepEqual(e.dmTemplates.allowHosts, ['raw.githubusercontent.com', '127.0.0.1:4011']);
    const local = loadEnv({ KEELSON_DATA_DIR: d });
    assert.equal(local.gitopsRemote, undefined);
    assert.equal(local.gitopsDir, join(d, 'gitops'));
    assert.deepEqual(local.dmTemplates.allowHosts, []);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    ['PORT', { PORT: 'eighty' }, /PORT:/],
    ['PORT range', { PORT: '70000' }, /PORT:/],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL: must be a postgres:\/\//],
    ['KEELSON_SEED', { KEELSON_SEED: 'everything' }, /KEELSON_SEED:/],
    ['KEELSON_USERS_FILE', { KEELSON_USERS_FILE: '/nonexistent/users.yaml' }, /KEELSON_USERS_FILE: file not found/],
    ['NEXTAUTH_URL', { NEXTAUTH_URL: 'not a url' }, /NEXTAUTH_URL:/],
    ['NEXTAUTH_SECRET', { NEXTAUTH_SECRET: 'short' }, /NEXTAUTH_SECRET: must be at least 16/],
    ['half an OIDC setup', { KEELSON_OIDC_ISSUER: 'http://127.0.0.1:4010' }, /KEELSON_OIDC_ISSUER: set all of/],
    ['KEELSON_GITOPS_REMOTE', { KEELSON_GITOPS_REMOTE: 'git://example.com/gitops.git' }, /KEELSON_GITOPS_REMOTE: must be an http or https URL/],
    ['KEELSON_DM_ALLOW_HOSTS', { KEELSON_DM_ALLOW_HOSTS: 'http://example.com' }, /KEELSON_DM_ALLOW_HOSTS: must be a comma-separated list of host or host:port/],
    ['KEELSON_DM_PYTHON', { KEELSON_DM_PYTHON: 'yes' }, /KEELSON_DM_PYTHON:/],
  ];
  for (const [name, vars, msg] of bad) {
    test(`a bad ${name} stops start-up with a message naming it`, () => {
      assert.throws(() => loadEnv({ KEELSON_DATA_DIR: dir(), ...vars }), (e: unknown) => e instanceof EnvError && msg.test(e.message));
    });
  }

  test('OIDC settings and domain admins', () => {
    const e = loadEnv({
      KEELSON_DATA_DIR: dir(),
      KEELSON_OIDC_ISSUER: 'http://127.0.0.1:4010/',
      KEELSON_OIDC_CLIENT_ID: 'console',
      KEELSON_OIDC_CLIENT_SECRET: 's',
      KEELSON_DOMAIN_ADMINS: 'sam, root',
    });
    assert.equal(e.oidc?.issuer, 'http://127.0.0.1:4010');
    assert.deepEqual(e.domainAdmins, ['sam', 'root']);
  });
});
