import type { Metadata } from 'next';
import { env } from '@/server/env';
import { OIDC_PROVIDER_ID } from '@/server/auth/options';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  const oidc = env().oidc;
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
