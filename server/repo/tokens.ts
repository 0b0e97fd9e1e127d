/** API tokens on drizzle. Contract: `tokens.types.ts`. */
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiTokens } from '../db/schema';
import type { TokenRepository, TokenRow } from './tokens.types';
import type { Same } from './same-type';

const rowsMatch: Same<typeof apiTokens.$inferSelect, TokenRow> = true;
void rowsMatch;

export class DrizzleTokenRepository implements TokenRepository {
  /**
   * With `exclusive` (the embedded database: this process is its only
   * writer) tokens read by hash are kept — every API request presents one —
   * and every write of this repository updates or forgets them, so a
   * revocation holds from the next request. On a shared database every
   * request reads: another process may have revoked the token.
   */
  constructor(
    private readonly db: Db,
    private readonly opts: { exclusive?: boolean } = {},
  ) {}

  private readonly byHashKept = new Map<string, TokenRow | undefined>();

  async add(input: Pick<TokenRow, 'userId' | 'userName' | 'name' | 'prefix' | 'hash' | 'expiresAt'>) {
    this.byHashKept.clear();
    const [r] = await this.db.insert(apiTokens).values(input).returning();
    this.byHashKept.clear();
    return r!;
  }

  async byHash(hash: string) {
    if (this.opts.exclusive && this.byHashKept.has(hash)) {
      const kept = this.byHashKept.get(hash);
      return kept && { ...kept };
    }
    const [r] = await this.db.select().from(apiTokens).where(eq(apiTokens.hash, hash));
    if (this.opts.exclusive) {
      // Unknown hashes are not kept: a flood of made-up tokens must not grow memory.
      if (r) {
        if (this.byHashKept.size >= 10_000) this.byHashKept.clear();
        this.byHashKept.set(hash, r);
      }
    }
    return r && { ...r };
  }

  async byId(id: number) {
    const [r] = await this.db.select().from(apiTokens).where(eq(apiTokens.id, id));
    return r;
  }

  async forUser(userId: string) {
    return this.db.select().from(apiTokens).where(eq(apiTokens.userId, userId)).orderBy(desc(apiTokens.id));
  }

  async revoke(id: number, at: Date) {
    this.byHashKept.clear();
    await this.db.update(apiTokens).set({ revokedAt: at }).where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)));
    this.byHashKept.clear();
  }

  async touch(id: number, at: Date) {
    await this.db.update(apiTokens).set({ lastUsedAt: at }).where(eq(apiTokens.id, id));
    for (const r of this.byHashKept.values()) if (r?.id === id) r.lastUsedAt = at;
  }
}
