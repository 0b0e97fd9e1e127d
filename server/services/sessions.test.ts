/**
 * Console sessions end on the server: a sign-in's JWT names a session, and
 * the session counts only until it is signed out, its user removed or
 * revoked, its password changed, or its sign-in's lifetime is over —
 * whichever copy of the cookie is presented. Driven through next-auth's own
 * callbacks and events as the console configures them (auth/options.ts).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import bcrypt from 'bcryptjs';
import type { NextAuthOptions } from 'next-auth';
import type { JWT } from 'next-auth/jwt';
import { buildAuthOptions, sessionActor, type KeelsonUser } from '../auth/options';
import { DEMO_USERS_FILE, passwordCredential, verifyLocalUser } from '../auth/users';
import { memoryRepos } from '../repo/memory';
import type { Repos } from '../repo/types';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from './index';
import { SessionService } from './sessions';

const HOUR = 3600;

describe('console sessions end on the server', () => {
  let dir: string;
  let repos: Repos;
  let services: Services;
  let auth: NextAuthOptions;
  // The services' configuration: a test points usersFile at a changed copy (the users file after an edit).
  const config: { usersFile: string | undefined; domainAdmins: string[] } = { usersFile: undefined, domainAdmins: ['Sam'] };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keelson-sessions-'));
    config.usersFile = join(dir, 'users.yaml');
    copyFileSync(DEMO_USERS_FILE, config.usersFile);
    repos = memoryRepos();
    await seedDemo(repos);
    services = createServices(repos, config);
    auth = buildAuthOptions({ authSecret: 'sessions-test-secret-0123456789', authUrl: 'http://localhost:3000', sessionSeconds: 8 * HOUR, oidc: undefined }, async () => services);
  });
  after(async () => {
    await services.resolution.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A password sign-in as next-auth runs it: the provider's check, then the jwt callback; the token is the cookie's content. */
  async function signIn(name: string, password = name.toLowerCase()): Promise<JWT> {
    const user = await verifyLocalUser(services.users.localUsers(), name, password);
    assert.ok(user, `${name} signs in`);
    const u: KeelsonUser = { id: `local:${user.name}`, name: user.name, provider: 'local', credential: passwordCredential(user) };
    return (await auth.callbacks!.jwt!({ token: { name: user.name, sub: u.id }, user: u, account: null } as never)) as JWT;
  }

  /** Who a request presenting this cookie acts as: the session callback's answer, read as every route reads it. */
  async function actorOf(token: JWT): Promise<string | null> {
    const session = await auth.callbacks!.session!({ session: { user: { name: token.name }, expires: '' }, token } as never);
    return (await sessionActor(services, session))?.name ?? null;
  }

  const signOut = (token: JWT) => (auth.events!.signOut as (m: { token: JWT }) => Promise<void>)({ token });

  test('signing out ends the session for every copy of its cookie; other sessions of the user go on', async () => {
    const laptop = await signIn('Alice');
    const phone = await signIn('Alice');
    const copied = structuredClone(laptop); // the cookie, copied before sign-out
    assert.equal(await actorOf(laptop), 'Alice');
    assert.equal(await actorOf(copied), 'Alice');
    await signOut(laptop);
    assert.equal(await actorOf(copied), null, 'the old cookie no longer signs anyone in');
    assert.equal(await actorOf(phone), 'Alice', 'signing out on one device leaves the others');
    // Signing out twice (a second tab) is harmless.
    await signOut(laptop);
  });

  test('a cookie from before sessions were kept (no session id) counts for nobody', async () => {
    const token = await signIn('Bob');
    const { sid, ...old } = token;
    assert.ok(sid);
    assert.equal(await actorOf(old as JWT), null);
    assert.equal(await actorOf({ ...token, sid: 'made-up' }), null);
  });

  test('a user who removes themselves is signed out everywhere', async () => {
    const token = await signIn('Carol');
    assert.equal(await actorOf(token), 'Carol');
    await services.users.remove({ id: 'local:Carol', name: 'Carol', labels: {}, provider: 'local' });
    assert.equal(await actorOf(token), null);
  });

  test('a new password in the users file ends the sessions the old one began', async () => {
    const token = await signIn('John');
    assert.equal(await actorOf(token), 'John');
    const edited = join(dir, 'users-new-password.yaml');
    const text = readFileSync(config.usersFile!, 'utf8');
    const john = /- name: John\n(?:\s+.*\n)*?\s+passwordhash: "?([^"\n]+)"?/.exec(text);
    assert.ok(john, 'John has a password hash in the demo users file');
    writeFileSync(edited, text.replace(john[1]!, bcrypt.hashSync('a-new-password', 4)));
    config.usersFile = edited;
    try {
      assert.equal(await actorOf(token), null, 'the old password’s session is over');
      const again = await signIn('John', 'a-new-password');
      assert.equal(await actorOf(again), 'John', 'a sign-in with the new one counts');
    } finally {
      config.usersFile = join(dir, 'users.yaml');
    }
  });

  test('a domain admin ends anyone’s sessions; anyone ends their own; nobody else’s', async () => {
    const frank = await signIn('Frank');
    const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'local' as const };
    const alice = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'local' as const };
    await assert.rejects(services.sessions.revoke(alice, { user: 'frank' }), { code: 'FORBIDDEN' });
    assert.equal(await actorOf(frank), 'Frank', 'a refused revoke changes nothing');
    await assert.rejects(services.sessions.revoke(null, { user: 'frank' }), { code: 'UNAUTHORIZED' });
    await assert.rejects(services.sessions.revoke(sam, { user: 'nobody-at-all' }), { code: 'NOT_FOUND' });
    assert.deepEqual(await services.sessions.revoke(sam, { user: 'frank' }), { user: 'Frank', ended: 1 });
    assert.equal(await actorOf(frank), null);

    const mine = [await signIn('Alice'), await signIn('Alice')];
    assert.equal((await services.sessions.revoke(alice, { user: 'Alice' })).ended >= 2, true);
    for (const t of mine) assert.equal(await actorOf(t), null, 'signed out everywhere');
  });

  test('a sign-in lasts KEELSON_SESSION_HOURS from when it was made, however often its cookie is renewed', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const sessions = new SessionService(repos, services.access, services.users, () => now);
    const id = await sessions.begin({ userId: 'local:Sam', credential: null, seconds: 8 * HOUR });
    now = new Date(now.getTime() + 8 * HOUR * 1000 - 1000);
    assert.equal(await sessions.live(id, 'local:Sam', null), true);
    now = new Date(now.getTime() + 1000);
    assert.equal(await sessions.live(id, 'local:Sam', null), false);
    // A session is its account's: the id alone signs in nobody else.
    const other = await sessions.begin({ userId: 'local:Sam', credential: null, seconds: HOUR });
    assert.equal(await sessions.live(other, 'local:Alice', null), false);
    // Sessions past their end are dropped when the next sign-in is recorded.
    now = new Date(now.getTime() + 2 * HOUR * 1000);
    await sessions.begin({ userId: 'local:Sam', credential: null, seconds: HOUR });
    assert.equal(await repos.sessions.get(id), undefined);
  });
});
