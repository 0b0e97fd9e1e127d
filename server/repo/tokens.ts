/** API tokens on drizzle. Contract: `tokens.types.ts`. */
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiTokens } from '../db/schema';
import type { TokenRepository, TokenRow } from './tokens.types';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const rowsMatch: Same<typeof apiTokens.$inferSelect, TokenRow> = true;
void rowsMatch;

export class DrizzleTokenRepository implements TokenRepository {
  constructor(private readonly db: Db) {}

  async add(input: Pick<TokenRow, 'userId' | 'userName' | 'name' | 'prefix' | 'hash' | 'expiresAt'>) {
    const [r] = await this.db.insert(apiTokens).values(input).returning();
    return r!;
  }

  async byHash(hash: string) {
    const [r] = await this.db.select().from(apiTokens).where(eq(apiTokens.hash, hash));
    return r;
  }

  async byId(id: number) {
    const [r] = await this.db.select().from(apiTokens).where(eq(apiTokens.id, id));
    return r;
  }

  async forUser(userId: string) {
    return this.db.select().from(apiTokens).where(eq(apiTokens.userId, userId)).orderBy(desc(apiTokens.id));
  }

  async revoke(id: number, at: Date) {
    await this.db.update(apiTokens).set({ revokedAt: at }).where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)));
  }

  async touch(id: number, at: Date) {
    await this.db.update(apiTokens).set({ lastUsedAt: at }).where(eq(apiTokens.id, id));
  }
}
