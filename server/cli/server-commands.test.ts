/**
 * `keelson delete` against the console's tRPC on loopback (the real
 * services, a saved API token): objects named `KIND NAMESPACE/NAME` are
 * deleted without their whole text, files still work, and words that are
 * neither say so with the usage exit code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from '../services';
import { serveConsoleForTests } from '../testing/console';
import type { TestServer } from '../testing/rest';
import { saveCredential } from './credentials';
import type { Io } from './main';
import { main } from './main';
import { applyCommand, deleteTargets } from './server-commands';

function capture(): Io & { stdout: () => string; stderr: () => string } {
  let o = '';
  let e = '';
  return { out: (s) => void (o += s), err: (s) => void (e += s), stdout: () => o, stderr: () => e };
}

describe('keelson delete', () => {
  let repos: Repos;
  let services: Services;
  let server: TestServer;
  let dir: string;
  let env: Record<string, string>;
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };

  before(async () => {
    repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, { usersFile: undefined, domainAdmins: [] });
    server = await serveConsoleForTests(services);
    dir = mkdtempSync(join(tmpdir(), 'keelson-delete-'));
    env = { KEELSON_CONFIG_DIR: join(dir, 'config') };
    const { token } = await services.tokens.create(sam, { name: 'cli test' });
    saveCredential({ server: server.url, token, expiresAt: null }, env);
  });
  after(async () => {
    await server.close();
    await services.resolution.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const exists = async (kind: string, namespace: string, name: string) => (await repos.policy.getObject({ kind, namespace, name })) !== undefined;

  test('KIND NAMESPACE/NAME deletes the object named, without its text', async () => {
    assert.ok(await exists('claim', 'social', 'prod'));
    const io = capture();
    const code = await applyCommand(['claim', 'social/prod', '--server', server.url, '--format', 'json'], io, 'delete', env);
    assert.equal(code, 0, io.stderr());
    const out = JSON.parse(io.stdout());
    assert.deepEqual(out.changes, [{ kind: 'claim', namespace: 'social', name: 'prod', op: 'delete' }]);
    assert.equal(await exists('claim', 'social', 'prod'), false);
    assert.ok(out.revision.id > 0, 'its revision is printed');
  });

  test('kinds are matched without regard to case; several names and a file go in one generation', async () => {
    const file = join(dir, 'carol.yaml');
    writeFileSync(file, 'kind: claim\nmetadata: {namespace: social, name: carol_dev}\nuser: Carol\nservice: twitter_stats\n');
    const head = await repos.policy.head();
    const io = capture();
    const code = await applyCommand(['Claim', 'social/alice_dev', file, 'CLAIM', 'social/bob_dev', '--server', server.url, '--format', 'json'], io, 'delete', env);
    assert.equal(code, 0, io.stderr());
    assert.equal(JSON.parse(io.stdout()).generation, head + 1, 'one generation');
    for (const name of ['alice_dev', 'bob_dev', 'carol_dev']) assert.equal(await exists('claim', 'social', name), false, name);
  });

  test('an object that does not exist is refused by name, and nothing is deleted', async () => {
    const head = await repos.policy.head();
    const io = capture();
    assert.equal(await applyCommand(['claim', 'social/nobody', '--server', server.url], io, 'delete', env), 1);
    assert.match(io.stderr(), /Cannot delete what does not exist: claim social\/nobody/);
    assert.equal(await repos.policy.head(), head);
  });

  test('usage errors: a kind without NAMESPACE/NAME, a misspelt kind', async () => {
    const io = capture();
    assert.equal(await applyCommand(['claim', 'prod', '--server', server.url], io, 'delete', env), 2);
    assert.match(io.stderr(), /after the kind claim, name the object as NAMESPACE\/NAME \(not "prod"\)/);
    const typo = capture();
    assert.equal(await main(['delete', 'claimz', 'social/prod', '--server', server.url], typo), 2);
    assert.match(typo.stderr(), /unknown kind "claimz"; known kinds: .*claim/);
    // A word that is a file stays a file, even when it is also a kind's name.
    const asFile = join(dir, 'claim');
    writeFileSync(asFile, '');
    assert.deepEqual(deleteTargets([asFile, 'bundle', 'social/web']), { paths: [asFile], ids: [{ kind: 'bundle', namespace: 'social', name: 'web' }] });
  });
});
