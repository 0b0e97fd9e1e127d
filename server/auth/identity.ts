/**
 * Who an account is, for policy. An account is its provider's stable key
 * (a local user's name; an OIDC issuer + subject), never a display name:
 * anyone can call themselves "Sam" at an identity provider.
 *
 * Policy refers to users by name (claims' `user`, KEELSON_DOMAIN_ADMINS,
 * tenant membership, invitations). Local users keep their users-file names,
 * which may not contain "@". An OIDC account's policy name is its verified
 * e-mail address, or `<subject>@<issuer host>` when the provider does not
 * vouch for an address — so the two kinds of names can never meet, and an
 * unverified e-mail claim is never used to pick a name.
 */
export interface OidcClaims {
  sub: string;
  name?: unknown;
  preferred_username?: unknown;
  email?: unknown;
  email_verified?: unknown;
}

export interface OidcAccount {
  /** Stable id: `oidc:<issuer>#<subject>`. */
  id: string;
  /** The name policy uses for this account. */
  name: string;
  /** What the console shows; never used to decide anything. */
  displayName: string;
  /** Only a verified address. */
  email: string | null;
}

/** next-auth's id of the users-file sign-in (its route is /api/auth/callback/local). */
export const LOCAL_PROVIDER_ID = 'local';
/** The OpenID provider's id in Keelson: next-auth's provider id, and Axebow's `<oidp>`. */
export const OIDC_PROVIDER_ID = 'oidc';

export function oidcAccount(claims: OidcClaims, issuer: string): OidcAccount {
  const sub = String(claims.sub);
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  const email = verified && typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.trim().toLowerCase() : null;
  const host = new URL(issuer).host;
  const name = email ?? `${sub}@${host}`;
  const display = [claims.name, claims.preferred_username].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return { id: `oidc:${issuer}#${sub}`, name, displayName: display ?? name, email };
}

export { LOCAL_NAME_RE } from '../engine/model/users';
