import type { Metadata } from 'next';
import { env } from '@/server/env';
import { OIDC_PROVIDER_ID } from '@/server/auth/options';
import { loadLocalUsers } from '@/server/auth/users';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  const e = env();
  const oidc = e.oidc;
  // Only the embedded demo names its users (their passwords are their names).
  const demo = !e.usersFile && e.demoUsers ? loadLocalUsers().map((u) => ({ name: u.name.toLowerCase(), role: u.labels['short-description'] ?? '' })) : [];
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
                <li key={u.name}>
                  <code>{u.name}</code>
                  {u.role && <> — {u.role}</>}
                </li>
              ))}
            </ul>
          </section>
        )}
      </div>
    </main>
  );
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
