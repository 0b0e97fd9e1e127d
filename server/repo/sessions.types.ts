/**
 * Console sessions: one row per sign-in, named by the id next-auth's JWT
 * carries. A session counts while its row is here and unexpired.
 */
export interface SessionRow {
  id: string;
  /** Actor.id of the account (`local:<name>`, `oidc:<issuer>#<subject>`). */
  userId: string;
  /** A digest of the password hash the sign-in was checked against; null when no password was (single sign-on). */
  credential: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface SessionRepository {
  /** Record a sign-in; sessions already past their expiry at `now` are dropped on the way. */
  add(row: Omit<SessionRow, 'createdAt'>, now: Date): Promise<void>;
  /** A session by id, as every request asks: kept while nothing changes (kept-reads.ts). */
  get(id: string): Promise<SessionRow | undefined>;
  /** End one session; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** End every session of an account; how many there were. */
  removeAllOf(userId: string): Promise<number>;
}
