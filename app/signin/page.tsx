import type { Metadata } from 'next';
import { env } from '@/server/env';
import { OIDC_PROVIDER_ID } from '@/server/auth/options';
import { loadLocalUsers } from '@/server/auth/users';
import { loggable } from '@/server/db/log-safe';
import { describeRoles } from '@/server/engine/acl-words';
import { getRuntime } from '@/server/runtime';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  const e = env();
  const oidc = e.oidc;
  // Only the embedded demo names its users (their passwords are their names).
  const demo = !e.usersFile && e.demoUsers ? await demoUsers() : [];
  return (
    <main className="signin">
      <div className="panel signin-card">
        <div className="brand">
          <span className="brand-mark" aria-hidden /> Keelson
        </div>
        <SignInForm
          callbackUrl={safeCallback(sp.callbackUrl)}
          error={sp.error}
          oidc={oidc ? { id: OIDC_PROVIDER_ID, name: oidc.name } : undefined}
        />
        {demo.length > 0 && (
          <section className="hint" aria-label="Demo users" data-testid="demo-users" style={{ marginTop: 14 }}>
            <p style={{ margin: '0 0 4px' }}>This is the demo: sign in as one of its users, with the name as password.</p>
            <ul style={{ margin: 0, paddingLeft: 18 }}>
              {demo.map((u) => (
                <li key={u.name} data-testid={`demo-user-${u.name}`}>
                  <code>{u.name}</code>
                  {u.words && (
                    <>
                      {' '}
                      — {u.words.roles.join('; ')}. <span className="muted">{u.words.tryFirst}</span>
                    </>
                  )}
                </li>
              ))}
            </ul>
          </section>
        )}
      </div>
    </main>
  );
}

/**
 * The demo users with their roles in words, computed as the server computes
 * every request's rights (the policy's ACL rules on the user's labels, tenant
 * membership, KEELSON_DOMAIN_ADMINS), so the list cannot drift from them.
 * Without a database the names are still listed.
 */
async function demoUsers(): Promise<{ name: string; words?: ReturnType<typeof describeRoles> }[]> {
  const users = loadLocalUsers();
  try {
    const { services } = await getRuntime();
    return await Promise.all(
      users.map(async (u) => ({
        name: u.name.toLowerCase(),
        words: describeRoles(await services.access.roles({ id: `local:${u.name}`, name: u.name, labels: u.labels, provider: 'local' })),
      })),
    );
  } catch (e) {
    // Signing in must not depend on the database; the console's pages will say what failed.
    console.error(`sign-in page: demo users' roles: ${loggable(e)}`);
    return users.map((u) => ({ name: u.name.toLowerCase() }));
  }
}

/** Only same-site paths: an open redirect would let a link send people elsewhere after sign-in. */
function safeCallback(url: string | undefined): string {
  if (!url) return '/objects';
  try {
    const base = new URL(env().authUrl);
    const u = new URL(url, base);
    if (u.origin !== base.origin) return '/objects';
    return u.pathname.startsWith('/signin') ? '/objects' : u.pathname + u.search;
  } catch {
    return '/objects';
  }
}
