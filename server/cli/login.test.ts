/**
 * `keelson login` / `logout` and the saved token, against the console's
 * REST API and tRPC on loopback (the real token service): the credentials
 * file and its modes, one-line errors (401, 429 with Retry-After,
 * unreachable), prompts on a terminal, commands that then run with the
 * token alone, and logout revoking it on the server.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { serveConsoleForTests } from '../testing/console';
import type { TestServer } from '../testing/rest';
import { configDir, credentialsPath, findCredential, normaliseServer, readCredentials, removeCredential, saveCredential } from './credentials';
import { loginCommand, logoutCommand, type Terminal } from './login';
import type { Io } from './main';
import { connect, describeError, RemoteError } from './remote';

function capture(): Io & { stdout: () => string; stderr: () => string } {
  let o = '';
  let e = '';
  return { out: (s) => void (o += s), err: (s) => void (e += s), stdout: () => o, stderr: () => e };
}

const noTerminal: Terminal = {
  isTTY: false,
  ask: () => Promise.reject(new Error('no terminal')),
  askHidden: () => Promise.reject(new Error('no terminal')),
};

const mode = (p: string) => statSync(p).mode & 0o777;

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('keelson credentials file', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'keelson-creds-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('where it lives', () => {
    assert.equal(configDir({ KEELSON_CONFIG_DIR: '/x/y', HOME: '/home/u' }), '/x/y');
    assert.equal(configDir({ HOME: '/home/u' }), '/home/u/.config/keelson');
    assert.equal(configDir({ HOME: '/home/u', XDG_CONFIG_HOME: '/cfg' }), '/cfg/keelson');
    assert.equal(credentialsPath({ KEELSON_CONFIG_DIR: '/x' }), '/x/credentials.json');
  });

  test('one token per console however its URL is written; folder 0700, file 0600', () => {
    assert.equal(normaliseServer('HTTP://LocalHost:3000/'), 'http://localhost:3000');
    assert.equal(normaliseServer('https://example.com:443/keelson//'), 'https://example.com/keelson');
    assert.throws(() => normaliseServer('localhost:3000'), /not an http\(s\) URL|not a URL/);
    const env = { KEELSON_CONFIG_DIR: join(dir, 'nested', 'keelson') };
    const p = saveCredential({ server: 'http://localhost:3000/', token: 'kst_a', expiresAt: null }, env);
    assert.equal(p, join(dir, 'nested', 'keelson', 'credentials.json'));
    assert.equal(mode(p), 0o600);
    assert.equal(mode(configDir(env)), 0o700);
    saveCredential({ server: 'http://other:1', token: 'kst_b', expiresAt: '2030-01-01T00:00:00.000Z' }, env);
    saveCredential({ server: 'http://LOCALHOST:3000', token: 'kst_c', expiresAt: null }, env);
    assert.deepEqual(readCredentials(env).map((c) => [c.server, c.token]), [['http://other:1', 'kst_b'], ['http://localhost:3000', 'kst_c']]);
    assert.equal(findCredential('http://localhost:3000/', env)?.token, 'kst_c');
    assert.equal(mode(p), 0o600);
    assert.equal(removeCredential('http://other:1/', env)?.token, 'kst_b');
    assert.equal(removeCredential('http://other:1/', env), undefined);
    assert.equal(removeCredential('http://localhost:3000', env)?.token, 'kst_c');
    assert.equal(existsSync(p), false, 'the file goes with its last token');
  });

  test('a damaged file is named in the error', () => {
    const env = { KEELSON_CONFIG_DIR: join(dir, 'bad') };
    saveCredential({ server: 'http://h:1', token: 'kst_x', expiresAt: null }, env);
    writeFileSync(credentialsPath(env), '{not json');
    assert.throws(() => readCredentials(env), /credentials\.json is not valid JSON/);
  });
});

describe('keelson login / logout against a console', () => {
  let server: TestServer;
  let services: Services;
  let dir: string;
  let n = 0;
  /** A fresh config folder per test, and the server's URL. */
  const envFor = (extra: Record<string, string> = {}) => ({ KEELSON_CONFIG_DIR: join(dir, `c${++n}`), ...extra });

  before(async () => {
    const repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    server = await serveConsoleForTests(services);
    dir = mkdtempSync(join(tmpdir(), 'keelson-login-'));
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('login saves a token (0600) that later commands use without a password; logout revokes it', async () => {
    const env = envFor({ KEELSON_USER: 'alice', KEELSON_PASSWORD: 'alice' });
    const io = capture();
    assert.equal(await loginCommand(['--server', `${server.url}/`], io, env, noTerminal), 0, io.stderr());
    const file = credentialsPath(env);
    assert.match(io.stdout(), new RegExp(`Logged in to ${server.url} as alice\\. Token saved in ${file}; it expires on \\d{4}-\\d\\d-\\d\\d\\.`));
    assert.equal(mode(file), 0o600);
    assert.equal(mode(configDir(env)), 0o700);
    const saved = JSON.parse(readFileSync(file, 'utf8')).credentials;
    assert.equal(saved.length, 1);
    assert.equal(saved[0].server, server.url);
    assert.match(saved[0].token, /^kst_/);
    assert.ok(new Date(saved[0].expiresAt).getTime() > Date.now() + 29 * 86_400_000);

    // Without KEELSON_USER / KEELSON_PASSWORD: the saved token, with or without --server.
    const tokenEnv = { KEELSON_CONFIG_DIR: env.KEELSON_CONFIG_DIR };
    assert.equal((await (await connect(server.url, tokenEnv)).users.me.query()).name, 'Alice');
    assert.equal((await (await connect(undefined, tokenEnv)).users.me.query()).name, 'Alice');
    assert.ok(Array.isArray(await (await connect(server.url, tokenEnv)).revisions.list.query({})));
    const listed = await services.tokens.list({ id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' });
    assert.ok(listed.some((t) => saved[0].token.startsWith(`kst_${t.prefix}`) && t.lastUsedAt));

    const out = capture();
    assert.equal(await logoutCommand([], out, tokenEnv), 0, out.stderr());
    assert.equal(out.stdout(), `Logged out of ${server.url}: the token was revoked there and removed from ${file}.\n`);
    assert.equal(existsSync(file), false);
    assert.equal(await services.tokens.authenticate(saved[0].token), null, 'revoked on the server');

    const again = capture();
    assert.equal(await logoutCommand(['--server', server.url], again, tokenEnv), 0);
    assert.equal(again.stdout(), `Not logged in to ${server.url}; nothing to do.\n`);
    await assert.rejects(connect(server.url, tokenEnv), (e: unknown) => e instanceof RemoteError && e.exitCode === 2 && /not logged in to .*keelson login --server/.test(e.message));
  });

  test('a token revoked elsewhere: commands say to log in again; logout still forgets it', async () => {
    const env = envFor({ KEELSON_USER: 'alice', KEELSON_PASSWORD: 'alice' });
    assert.equal(await loginCommand(['--server', server.url], capture(), env, noTerminal), 0);
    const tokenEnv = { KEELSON_CONFIG_DIR: env.KEELSON_CONFIG_DIR };
    const { token } = findCredential(server.url, tokenEnv)!;
    const alice = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' as const };
    const t = (await services.tokens.list(alice)).find((x) => token.startsWith(`kst_${x.prefix}`) && !x.revokedAt)!;
    await services.tokens.revoke(alice, t.id);
    const client = await connect(server.url, tokenEnv);
    const err = await client.users.me.query().then(() => null, (e: unknown) => e);
    assert.match(describeError(err), /unknown, revoked or expired.*keelson login --server URL again/);
    const out = capture();
    assert.equal(await logoutCommand(['--server', server.url], out, tokenEnv), 0);
    assert.match(out.stdout(), /removed from .*, but not revoked there \(the server no longer accepts it \(revoked or expired\)\)/);
  });

  test('an expired saved token is refused before anything is sent', async () => {
    const env = envFor();
    saveCredential({ server: server.url, token: 'kst_old', expiresAt: '2020-01-02T00:00:00.000Z' }, env);
    await assert.rejects(connect(server.url, env), /the token saved for .* expired on 2020-01-02: run keelson login --server .* again/);
  });

  test('a wrong password is one line and exit 1, and nothing is saved', async () => {
    const env = envFor({ KEELSON_USER: 'john', KEELSON_PASSWORD: 'wrong' });
    const io = capture();
    assert.equal(await loginCommand(['--server', server.url], io, env, noTerminal), 1);
    assert.equal(io.stderr(), 'keelson: sign-in as john failed: wrong user name or password\n');
    assert.equal(existsSync(credentialsPath(env)), false);
  });

  test('past the sign-in limit: 429 with the wait', async () => {
    const env = envFor({ KEELSON_USER: 'bob', KEELSON_PASSWORD: 'wrong' });
    let io = capture();
    for (let i = 0; i < 10 && !io.stderr().includes('too many'); i++) {
      io = capture();
      assert.equal(await loginCommand(['--server', server.url], io, env, noTerminal), 1);
    }
    assert.match(io.stderr(), /^keelson: sign-in as bob refused: too many failed attempts; try again in \d+ s\n$/);
  });

  test('an unreachable console is one line and exit 1', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const io = capture();
    assert.equal(await loginCommand(['--server', url], io, envFor({ KEELSON_USER: 'alice', KEELSON_PASSWORD: 'alice' }), noTerminal), 1);
    assert.equal(io.stderr(), `keelson: cannot reach ${url}: ECONNREFUSED\n`);
  });

  test('on a terminal the user name and password are asked (the password without echo)', async () => {
    const asked: string[] = [];
    const term: Terminal = {
      isTTY: true,
      ask: async (q) => (asked.push(`ask ${q}`), 'sam'),
      askHidden: async (q) => (asked.push(`hidden ${q}`), 'sam'),
    };
    const env = envFor();
    const io = capture();
    assert.equal(await loginCommand(['--server', server.url], io, env, term), 0, io.stderr());
    assert.deepEqual(asked, ['ask User name: ', 'hidden Password for sam: ']);
    assert.match(io.stdout(), /as sam\./);
    // --user skips the first question.
    asked.length = 0;
    assert.equal(await loginCommand(['--server', server.url, '--user', 'sam'], capture(), env, term), 0);
    assert.deepEqual(asked, ['hidden Password for sam: ']);
  });

  test('usage errors: no server, no terminal to ask on, stray arguments', async () => {
    let io = capture();
    assert.equal(await loginCommand([], io, envFor(), noTerminal), 2);
    assert.match(io.stderr(), /name the console with --server URL/);
    io = capture();
    assert.equal(await loginCommand(['--server', server.url], io, envFor({ KEELSON_USER: 'alice' }), noTerminal), 2);
    assert.match(io.stderr(), /no password: set KEELSON_PASSWORD/);
    io = capture();
    assert.equal(await loginCommand(['--server', 'localhost:3000'], io, envFor(), noTerminal), 2);
    assert.match(io.stderr(), /not an http\(s\) URL|not a URL/);
    io = capture();
    assert.equal(await logoutCommand(['extra'], io, envFor()), 2);
    io = capture();
    assert.equal(await logoutCommand([], io, envFor()), 2);
    assert.match(io.stderr(), /not logged in to any console/);
  });
});
