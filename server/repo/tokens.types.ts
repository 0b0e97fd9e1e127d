/**
 * API tokens: a user's bearer credentials for the REST API and the CLI.
 * Only a SHA-256 hash of a token is stored, with a short prefix to tell
 * tokens apart in lists; the token itself is shown once, at creation.
 */
export interface TokenRow {
  id: number;
  /** Actor.id of the owner (`local:<name>`, `oidc:<issuer>#<subject>`). */
  userId: string;
  userName: string;
  name: string;
  prefix: string;
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface TokenRepository {
  add(input: Pick<TokenRow, 'userId' | 'userName' | 'name' | 'prefix' | 'hash' | 'expiresAt'>): Promise<TokenRow>;
  byHash(hash: string): Promise<TokenRow | undefined>;
  byId(id: number): Promise<TokenRow | undefined>;
  /** A user's tokens, newest first. */
  forUser(userId: string): Promise<TokenRow[]>;
  /** Idempotent: a revoked token keeps its first revocation time. */
  revoke(id: number, at: Date): Promise<void>;
  touch(id: number, at: Date): Promise<void>;
}
