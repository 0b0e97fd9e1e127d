/**
 * Verifying an ID token a user hands over to link an OpenID provider
 * profile (Axebow §4.2: "the jwt must be signed by the provider, and must
 * not have expired"). The provider's keys come from its discovery document
 * (`jwks_uri`), fetched once and cached by jose; the token must name the
 * provider as issuer and this platform's client as audience — a token
 * minted for another application is not proof of anything here.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { oidcAccount } from './identity';

export interface VerifiedIdentity {
  /** The identity's Keelson id (`oidc:<issuer>#<sub>`), as OIDC sign-in makes it. */
  subject: string;
  email: string | null;
  displayName: string;
}

export interface IdentityVerifier {
  /** The provider's id in Keelson (`oidc`): Axebow's `<oidp>`. */
  readonly provider: string;
  /** The identity a token proves; throws IdentityRefused with a reason a person can act on. */
  verify(jwt: string): Promise<VerifiedIdentity>;
}

export class IdentityRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityRefused';
  }
}

const FETCH_TIMEOUT_MS = 5000;

export function oidcVerifier(o: { provider: string; issuer: string; clientId: string }, fetchImpl: typeof fetch = fetch): IdentityVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const jwks = () =>
    (keys ??= (async () => {
      const res = await fetchImpl(`${o.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      const uri = ((await res.json()) as { jwks_uri?: unknown }).jwks_uri;
      if (typeof uri !== 'string') throw new Error('discovery names no jwks_uri');
      return createRemoteJWKSet(new URL(uri), { timeoutDuration: FETCH_TIMEOUT_MS });
    })().catch((e: unknown) => {
      keys = undefined; // the next attempt asks again
      throw new IdentityRefused(`The provider's keys could not be fetched (${(e as Error).message}); try again later.`);
    }));
  return {
    provider: o.provider,
    async verify(jwt) {
      if (typeof jwt !== 'string' || jwt.split('.').length !== 3) throw new IdentityRefused('The token is not a JWT (header.payload.signature).');
      const getKey = await jwks();
      try {
        const { payload } = await jwtVerify(jwt, getKey, { issuer: o.issuer, audience: o.clientId });
        if (typeof payload.sub !== 'string' || payload.sub === '') throw new IdentityRefused('The token names no subject (sub).');
        const account = oidcAccount(payload as { sub: string }, o.issuer);
        return { subject: account.id, email: account.email, displayName: account.displayName };
      } catch (e) {
        throw new IdentityRefused(reason(e));
      }
    },
  };
}

function reason(e: unknown): string {
  if (e instanceof IdentityRefused) return e.message;
  if (e instanceof errors.JWTExpired) return 'The token has expired.';
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'aud') return 'The token was issued for another application (audience).';
    if (e.claim === 'iss') return 'The token was issued by another provider (issuer).';
    return `The token's ${e.claim} claim is not acceptable (${e.reason}).`;
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'The token is not signed by the provider (signature).';
  if (e instanceof errors.JWKSNoMatchingKey) return 'The token is signed with a key the provider does not publish.';
  if (e instanceof errors.JOSEError) return `The token cannot be verified (${e.code}).`;
  return `The token cannot be verified (${(e as Error).message}).`;
}
