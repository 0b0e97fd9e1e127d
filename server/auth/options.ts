/**
 * next-auth 4 configuration: JWT sessions, local users (Aptomi users file)
 * and, when configured, one OpenID Connect provider.
 *
 * The token carries only identity (id, name, provider). Labels are looked up
 * on each request (see `actorFromSession`), so an edited users file or a new
 * OIDC sign-in takes effect without signing out.
 */
import type { NextAuthOptions, User } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import { env } from '../env';
import { getRuntime } from '../runtime';
import type { Actor } from '../services/actor';
import { LOCAL_PROVIDER_ID, OIDC_PROVIDER_ID, oidcAccount } from './identity';
import { clientAddress, signInLimiter } from './rate-limit';
import { verifyLocalUser } from './users';

export { LOCAL_PROVIDER_ID, OIDC_PROVIDER_ID };

type OidcProfile = Record<string, unknown> & { sub: string; name?: string; email?: string; email_verified?: boolean; preferred_username?: string };

export interface KeelsonUser extends User {
  provider: 'local' | 'oidc';
  /** Shown in the console; `name` is the account's policy name. */
  displayName?: string;
  labels?: Record<string, string>;
}

function labelsFromClaims(profile: OidcProfile, claims: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const c of claims) {
    const v = profile[c];
    if (v === undefined || v === null) continue;
    labels[c.replace(/[^a-zA-Z0-9_-]/g, '_')] = Array.isArray(v) ? v.map(String).join(',') : String(v);
  }
  // Policy may match on e-mail: only an address the provider vouches for becomes a label.
  const email = oidcAccount(profile, 'http://issuer.invalid').email;
  if (email) labels.email = email;
  else delete labels.email;
  return labels;
}

let cached: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  const e = env();
  const providers: NextAuthOptions['providers'] = [
    CredentialsProvider({
      id: LOCAL_PROVIDER_ID,
      name: 'Keelson account',
      credentials: { username: { label: 'User name', type: 'text' }, password: { label: 'Password', type: 'password' } },
      async authorize(credentials, req) {
        // A JSON body may carry anything where a form carries strings.
        const name: unknown = credentials?.username;
        const password: unknown = credentials?.password;
        if (typeof name !== 'string' || typeof password !== 'string' || !name || !password || name.length > 200 || password.length > 200) return null;
        const rt = await getRuntime();
        const user = await verifyLocalUser(rt.services.users.localUsers(), name, password);
        if (!user) {
          signInLimiter().fail(name, clientAddress(req?.headers as Record<string, unknown> | undefined));
          return null;
        }
        signInLimiter().succeed(name);
        const u: KeelsonUser = { id: `local:${user.name}`, name: user.name, provider: 'local' };
        await rt.services.users.recordSignIn({ id: u.id, name: user.name, email: null, provider: 'local', labels: user.labels });
        return u;
      },
    }),
  ];
  if (e.oidc) {
    const o = e.oidc;
    const oidc: OAuthConfig<OidcProfile> = {
      id: OIDC_PROVIDER_ID,
      name: o.name,
      type: 'oauth',
      wellKnown: `${o.issuer}/.well-known/openid-configuration`,
      clientId: o.clientId,
      clientSecret: o.clientSecret,
      authorization: { params: { scope: 'openid email profile' } },
      idToken: true,
      checks: ['pkce', 'state'],
      profile(p) {
        const account = oidcAccount(p, o.issuer);
        return {
          id: account.id,
          name: account.name,
          displayName: account.displayName,
          email: account.email,
          provider: 'oidc',
          labels: labelsFromClaims(p, o.labelClaims),
        } as KeelsonUser;
      },
    };
    providers.push(oidc);
  }
  cached = {
    secret: e.authSecret,
    session: { strategy: 'jwt', maxAge: e.sessionSeconds },
    jwt: { maxAge: e.sessionSeconds },
    // Behind https the session cookie is Secure (and __Secure-/__Host- prefixed).
    useSecureCookies: e.authUrl.startsWith('https://'),
    pages: { signIn: '/signin', error: '/signin' },
    providers,
    callbacks: {
      async signIn({ user, account }) {
        if (account?.provider === OIDC_PROVIDER_ID) {
          const u = user as KeelsonUser;
          const rt = await getRuntime();
          // An identity linked to a user (a profile) signs in as that user: it keeps no account of its own.
          if (await rt.services.users.linkedUser(u.id)) return true;
          await rt.services.users.recordSignIn({
            id: u.id,
            name: u.name ?? u.id,
            email: u.email ?? null,
            provider: 'oidc',
            labels: u.labels ?? {},
          });
        }
        return true;
      },
      async jwt({ token, user }) {
        if (user) {
          const u = user as KeelsonUser;
          token.sub = u.id;
          token.name = u.name;
          token.provider = u.provider;
          token.displayName = u.displayName ?? u.name;
          if (u.provider === 'oidc') {
            const linked = await (await getRuntime()).services.users.linkedUser(u.id);
            // Only local users link profiles (an OIDC user's own identity is their profile).
            if (linked?.startsWith('local:')) {
              const name = linked.slice('local:'.length);
              Object.assign(token, { sub: linked, name, provider: 'local', displayName: name });
            }
          }
        }
        return token;
      },
      async session({ session, token }) {
        session.user = { name: token.name ?? null, email: token.email ?? null, image: null };
        (session as { keelson?: unknown }).keelson = { id: token.sub, provider: token.provider, displayName: token.displayName };
        return session;
      },
    },
  };
  return cached;
}

interface SessionLike {
  user?: { name?: string | null } | null;
  keelson?: { id?: string; provider?: string; displayName?: string };
}

/** The acting user of a session, with current labels; null when anonymous. */
export async function actorFromSession(session: unknown): Promise<Actor | null> {
  const s = session as SessionLike | null;
  const id = s?.keelson?.id;
  const name = s?.user?.name;
  if (!s || !id || !name) return null;
  const provider = s.keelson?.provider === 'oidc' ? 'oidc' : 'local';
  const rt = await getRuntime();
  let labels: Record<string, string> = {};
  if (provider === 'local') {
    const u = rt.services.users.localUsers().find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!u) return null; // removed from the users file: the session no longer counts
    labels = u.labels;
  } else {
    // The account as recorded at sign-in, by its stable id: its policy name and labels.
    const u = await rt.repos.users.getUser(id);
    if (!u || u.name !== name) return null;
    labels = u.labels;
  }
  return { id, name, labels, provider, displayName: s.keelson?.displayName ?? name };
}
