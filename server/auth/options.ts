/**
 * next-auth 4 configuration: JWT sessions, local users (Aptomi users file)
 * and, when configured, one OpenID Connect provider.
 *
 * The token carries only identity (id, name, provider) and the id of its
 * session (services/sessions.ts). Labels are looked up on each request (see
 * `actorFromSession`), so an edited users file or a new OIDC sign-in takes
 * effect without signing out; so is the session, so signing out (or a
 * revoke, or a new password) ends it on the server, not just in the browser.
 */
import type { NextAuthOptions, User } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import type { PolicyUser } from '../engine/model/users';
import type { Env } from '../env';
import { LOCAL_PROVIDER_ID, OIDC_PROVIDER_ID, oidcAccount } from './identity';
import { clientAddress, signInLimiter } from './rate-limit';
import { passwordCredential, verifyLocalUser } from './users';

export { LOCAL_PROVIDER_ID, OIDC_PROVIDER_ID };

type OidcProfile = Record<string, unknown> & { sub: string; name?: string; email?: string; email_verified?: boolean; preferred_username?: string };

export interface KeelsonUser extends User {
  provider: 'local' | 'oidc';
  /** Shown in the console; `name` is the account's policy name. */
  displayName?: string;
  labels?: Record<string, string>;
  /** What a password sign-in proved (`passwordCredential`), for the session it begins; never in the token. */
  credential?: string | null;
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

// A CommonJS module with a default export: Next.js's bundler hands over the function, Node's own loader (test console processes) the module.
const CredentialsProvider = (Credentials as unknown as { default?: typeof Credentials }).default ?? Credentials;

/**
 * What signing in needs of the services (services/users.ts,
 * services/sessions.ts). Declared here, not imported: services use auth, so
 * auth knows them only by this; the console's runtime hands them over
 * (server/console-auth.ts).
 */
export interface SignInServices {
  users: {
    localUsers(): PolicyUser[];
    recordSignIn(u: { id: string; name: string; email: string | null; provider: string; labels: Record<string, string> }): Promise<unknown>;
    recorded(id: string): Promise<{ name: string; labels: Record<string, string> } | undefined>;
    linkedUser(subject: string): Promise<string | undefined>;
  };
  sessions: {
    begin(input: { userId: string; credential: string | null; seconds: number }): Promise<string>;
    live(id: unknown, userId: string, credential: string | null): Promise<boolean>;
    end(id: unknown): Promise<void>;
  };
}

/** next-auth's options over any services (the console's: server/console-auth.ts; a test console process serves next-auth's routes with them too). */
export function buildAuthOptions(e: Pick<Env, 'authSecret' | 'authUrl' | 'sessionSeconds' | 'oidc'>, services: () => Promise<SignInServices>): NextAuthOptions {
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
        const svc = await services();
        const user = await verifyLocalUser(svc.users.localUsers(), name, password);
        if (!user) {
          signInLimiter().fail(name, clientAddress(req?.headers as Record<string, unknown> | undefined));
          return null;
        }
        signInLimiter().succeed(name);
        const u: KeelsonUser = { id: `local:${user.name}`, name: user.name, provider: 'local', credential: passwordCredential(user) };
        await svc.users.recordSignIn({ id: u.id, name: user.name, email: null, provider: 'local', labels: user.labels });
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
  return {
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
          const svc = await services();
          // An identity linked to a user (a profile) signs in as that user: it keeps no account of its own.
          if (await svc.users.linkedUser(u.id)) return true;
          await svc.users.recordSignIn({
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
          const svc = await services();
          if (u.provider === 'oidc') {
            const linked = await svc.users.linkedUser(u.id);
            // Only local users link profiles (an OIDC user's own identity is their profile).
            if (linked?.startsWith('local:')) {
              const name = linked.slice('local:'.length);
              Object.assign(token, { sub: linked, name, provider: 'local', displayName: name });
            }
          }
          // The session this sign-in begins; only a password sign-in proves a password (a linked identity signs in as a local user without one).
          token.sid = await svc.sessions.begin({ userId: token.sub!, credential: u.provider === 'local' ? (u.credential ?? null) : null, seconds: e.sessionSeconds });
        }
        return token;
      },
      async session({ session, token }) {
        session.user = { name: token.name ?? null, email: token.email ?? null, image: null };
        (session as { keelson?: unknown }).keelson = { id: token.sub, provider: token.provider, displayName: token.displayName, sid: token.sid };
        return session;
      },
    },
    events: {
      // Signing out ends the session on the server: a copy of the cookie kept elsewhere stops counting too.
      async signOut({ token }) {
        await (await services()).sessions.end((token as { sid?: unknown } | null)?.sid);
      },
    },
  };
}

interface SessionLike {
  user?: { name?: string | null } | null;
  keelson?: { id?: string; provider?: string; displayName?: string; sid?: string };
}

/** The acting user (an Actor, services/actor.ts) of a session, with current labels, over any services; null when anonymous or when the session has ended. */
export async function sessionActor(services: SignInServices, session: unknown) {
  const s = session as SessionLike | null;
  const id = s?.keelson?.id;
  const name = s?.user?.name;
  if (!s || !id || !name) return null;
  const provider: 'local' | 'oidc' = s.keelson?.provider === 'oidc' ? 'oidc' : 'local';
  let labels: Record<string, string> = {};
  let credential: string | null = null;
  if (provider === 'local') {
    const u = services.users.localUsers().find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!u) return null; // removed from the users file: the session no longer counts
    labels = u.labels;
    credential = passwordCredential(u);
  } else {
    // The account as recorded at sign-in, by its stable id: its policy name and labels.
    const u = await services.users.recorded(id);
    if (!u || u.name !== name) return null;
    labels = u.labels;
  }
  // Signed out, revoked, expired, or begun with a password that has changed since: no longer anyone.
  if (!(await services.sessions.live(s.keelson?.sid, id, credential))) return null;
  return { id, name, labels, provider, displayName: s.keelson?.displayName ?? name };
}
