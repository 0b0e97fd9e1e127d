/**
 * Console sessions in storage, on PGlite and on the PostgreSQL server: a
 * request's session check asks the database nothing while nothing changed,
 * and an ended session stops counting on every console sharing the
 * database, on its next request — two sets of repositories in one process,
 * and two console processes with real next-auth sign-in and sign-out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { API_PREFIX } from '../rest/dispatch';
import { seedDemo } from '../seed/demo';
import { createServices } from '../services';
import { backends } from '../testing/backends';
import { Cluster } from '../testing/cluster';
import { drizzleRepos } from './drizzle';
import { withinRequest } from './fresh-reads';

/** Statements sent through the database client while `work` runs (both client kinds expose `unsafe` or `query`). */
async function counted<T>(db: Db, work: () => Promise<T>): Promise<{ value: T; statements: number }> {
  const client = (db as unknown as { $client: Record<string, unknown> }).$client;
  const names = ['query', 'unsafe', 'prepare'].filter((n) => typeof client[n] === 'function');
  const originals = names.map((n) => client[n] as (...a: unknown[]) => unknown);
  let statements = 0;
  names.forEach((n, i) => (client[n] = (...a: unknown[]) => (statements++, originals[i]!.apply(client, a))));
  try {
    return { value: await work(), statements };
  } finally {
    names.forEach((n, i) => (client[n] = originals[i]));
  }
}

/** A request begun now (after everything before it finished), as a route runs one. */
async function request<T>(work: () => Promise<T>): Promise<T> {
  await new Promise((r) => setTimeout(r, 2));
  return withinRequest(work);
}

const services = (repos: ReturnType<typeof drizzleRepos>) => createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'] });

for (const backend of backends()) {
  describe(`console sessions in storage (${backend.name})`, () => {
    test('a console asks nothing while its sessions are unchanged, and hears at once of one it ended', async () => {
      const h = await backend.open();
      // As the server runs: the embedded database is this process's alone; a PostgreSQL server is shared.
      const repos = drizzleRepos(h.db, { exclusive: backend.name === 'pglite' });
      const s = services(repos);
      try {
        const id = await s.sessions.begin({ userId: 'local:Alice', credential: null, seconds: 3600 });
        assert.equal(await request(() => s.sessions.live(id, 'local:Alice', null)), true);
        const again = await counted(h.db, () => request(() => s.sessions.live(id, 'local:Alice', null)));
        assert.equal(again.value, true);
        // PGlite: nothing at all; PostgreSQL: the heads every request reads anyway.
        assert.ok(again.statements <= (backend.name === 'pglite' ? 0 : 1), `${again.statements} statements`);
        await s.sessions.end(id);
        assert.equal(await request(() => s.sessions.live(id, 'local:Alice', null)), false);
        const row = (await h.db.execute(sql.raw(`select count(*)::int as n from sessions`))) as unknown;
        const n = (Array.isArray(row) ? row : (row as { rows: { n: number }[] }).rows)[0] as { n: number };
        assert.equal(n.n, 0, 'the ended session is gone from the table');
      } finally {
        await s.resolution.close();
        await h.close();
      }
    });

    if (backend.name === 'postgres') {
      test('two consoles: a session one ends (sign-out, revoke, by hand) stops counting on the other at its next request', async () => {
        const h = await backend.open();
        const one = services(drizzleRepos(h.db));
        const two = services(drizzleRepos(h.db));
        try {
          const a = await one.sessions.begin({ userId: 'local:Alice', credential: null, seconds: 3600 });
          const b = await one.sessions.begin({ userId: 'local:Alice', credential: null, seconds: 3600 });
          const c = await two.sessions.begin({ userId: 'local:Bob', credential: null, seconds: 3600 });
          // The other console keeps what it read…
          assert.equal(await request(() => two.sessions.live(a, 'local:Alice', null)), true);
          assert.equal(await request(() => two.sessions.live(c, 'local:Bob', null)), true);
          await one.sessions.end(a);
          // …and reads again once the version moved.
          assert.equal(await request(() => two.sessions.live(a, 'local:Alice', null)), false, 'signed out on the other console');
          assert.equal(await request(() => two.sessions.live(b, 'local:Alice', null)), true);
          await one.sessions.revoke({ id: 'local:Sam', name: 'Sam', labels: {}, provider: 'local' }, { user: 'alice' });
          assert.equal(await request(() => two.sessions.live(b, 'local:Alice', null)), false, 'revoked on the other console');
          await h.db.execute(sql.raw(`delete from sessions where user_id = 'local:Bob'`));
          assert.equal(await request(() => two.sessions.live(c, 'local:Bob', null)), false, 'deleted by hand');
        } finally {
          await one.resolution.close();
          await two.resolution.close();
          await h.close();
        }
      });

      describe('two console processes, real sign-in and sign-out', () => {
        const cluster = new Cluster();
        const consoles: string[] = [];
        let h: Awaited<ReturnType<typeof backend.open>>;

        before(async () => {
          h = await backend.open();
          await seedDemo(drizzleRepos(h.db));
          const env = { DATABASE_URL: h.url!, NEXTAUTH_SECRET: 'shared-by-both-consoles-0123456789' };
          for (let i = 0; i < 2; i++) consoles.push((await cluster.start('server/testing/console-process.ts', env, `console ${i + 1}`)).url);
        });
        after(async () => {
          cluster.killAll();
          await h?.close();
        });

        /** Cookies as a browser keeps them for one console's origin. */
        class Jar {
          readonly cookies = new Map<string, string>();
          take(res: Response) {
            for (const c of res.headers.getSetCookie()) {
              const [pair] = c.split(';');
              const i = pair!.indexOf('=');
              const value = pair!.slice(i + 1);
              if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.cookies.delete(pair!.slice(0, i));
              else this.cookies.set(pair!.slice(0, i), value);
            }
          }
          get header() {
            return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
          }
        }

        async function signIn(base: string, user: string): Promise<Jar> {
          const jar = new Jar();
          const csrf = await fetch(`${base}/api/auth/csrf`);
          jar.take(csrf);
          const { csrfToken } = (await csrf.json()) as { csrfToken: string };
          const res = await fetch(`${base}/api/auth/callback/local`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header },
            body: new URLSearchParams({ csrfToken, username: user, password: user.toLowerCase(), json: 'true' }),
          });
          jar.take(res);
          assert.ok([...jar.cookies.keys()].some((k) => k.endsWith('session-token')), `signed in as ${user}: ${res.status}`);
          return jar;
        }

        async function signOut(base: string, jar: Jar): Promise<void> {
          const csrf = await fetch(`${base}/api/auth/csrf`, { headers: { cookie: jar.header } });
          jar.take(csrf);
          const { csrfToken } = (await csrf.json()) as { csrfToken: string };
          const res = await fetch(`${base}/api/auth/signout`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header },
            body: new URLSearchParams({ csrfToken, json: 'true' }),
          });
          jar.take(res);
        }

        const whoAmI = async (base: string, cookie: string) => {
          const res = await fetch(`${base}${API_PREFIX}/user/info`, { headers: { cookie } });
          return res.status === 200 ? ((await res.json()) as { data: { name: string } }).data.name : res.status;
        };

        test('signing out through one console ends the session on both; an old copy of the cookie answers 401', async () => {
          const [a, b] = consoles as [string, string];
          const jar = await signIn(a, 'alice');
          const copied = jar.header; // the cookie as someone copied it before sign-out
          assert.equal(await whoAmI(a, copied), 'Alice');
          assert.equal(await whoAmI(b, copied), 'Alice', 'the other console reads the same session');
          const other = await signIn(b, 'alice'); // Alice on another device
          await signOut(a, jar);
          assert.ok(![...jar.cookies.keys()].some((k) => k.endsWith('session-token')), 'the browser forgot the cookie');
          assert.equal(await whoAmI(b, copied), 401, 'the other console refuses the old cookie');
          assert.equal(await whoAmI(a, copied), 401, 'so does the one signed out on');
          assert.equal(await whoAmI(a, other.header), 'Alice', 'her other session goes on');
        });

        test('a domain admin’s revoke through one console signs the user out of the other', async () => {
          const [a, b] = consoles as [string, string];
          const bob = await signIn(b, 'bob');
          assert.equal(await whoAmI(b, bob.header), 'Bob');
          const res = await fetch(`${a}/api/trpc/users.endSessions`, {
            method: 'POST',
            headers: { authorization: 'Bearer test:Sam', 'content-type': 'application/json' },
            body: JSON.stringify({ json: { user: 'bob' } }), // superjson, as the console's client sends it
          });
          assert.equal(res.status, 200, await res.clone().text());
          assert.equal(await whoAmI(b, bob.header), 401);
        });
      });
    }
  });
}
