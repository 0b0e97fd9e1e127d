/**
 * Accounts and environments on drizzle. Names are unique per tenant and
 * per account (unique indexes): a second add of a name answers undefined.
 * Contract: `estate.types.ts`.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { tenantAccounts, tenantEnvironments } from '../db/schema';
import type { AccountRow, EnvironmentRow, EstateRepository, Marks } from './estate.types';

// The stored rows are the contract's records.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const rowsMatch: [Same<typeof tenantAccounts.$inferSelect, AccountRow>, Same<typeof tenantEnvironments.$inferSelect, EnvironmentRow>] = [true, true];
void rowsMatch;

export class DrizzleEstateRepository implements EstateRepository {
  constructor(private readonly db: Db) {}

  async accounts(tenantId: number) {
    return this.db.select().from(tenantAccounts).where(eq(tenantAccounts.tenantId, tenantId)).orderBy(asc(tenantAccounts.name));
  }

  async account(tenantId: number, name: string) {
    const [a] = await this.db.select().from(tenantAccounts).where(and(eq(tenantAccounts.tenantId, tenantId), eq(tenantAccounts.name, name)));
    return a;
  }

  async addAccount(input: Omit<AccountRow, 'id' | 'createdAt'>) {
    const [a] = await this.db.insert(tenantAccounts).values(input).onConflictDoNothing().returning();
    return a;
  }

  async updateAccount(id: number, change: { marks?: Marks; labels?: Record<string, string> }) {
    const set = { ...(change.marks ? { marks: change.marks } : {}), ...(change.labels ? { labels: change.labels } : {}) };
    if (Object.keys(set).length === 0) return (await this.db.select().from(tenantAccounts).where(eq(tenantAccounts.id, id)))[0];
    const [a] = await this.db.update(tenantAccounts).set(set).where(eq(tenantAccounts.id, id)).returning();
    return a;
  }

  async removeAccount(id: number) {
    await this.db.transaction(async (tx) => {
      await tx.delete(tenantEnvironments).where(eq(tenantEnvironments.accountId, id));
      await tx.delete(tenantAccounts).where(eq(tenantAccounts.id, id));
    });
  }

  async removeForTenant(tenantId: number) {
    await this.db.transaction(async (tx) => {
      const ids = (await tx.select({ id: tenantAccounts.id }).from(tenantAccounts).where(eq(tenantAccounts.tenantId, tenantId))).map((r) => r.id);
      if (ids.length > 0) await tx.delete(tenantEnvironments).where(inArray(tenantEnvironments.accountId, ids));
      await tx.delete(tenantAccounts).where(eq(tenantAccounts.tenantId, tenantId));
    });
  }

  async environments(accountId: number) {
    return this.db.select().from(tenantEnvironments).where(eq(tenantEnvironments.accountId, accountId)).orderBy(asc(tenantEnvironments.name));
  }

  async environment(accountId: number, name: string) {
    const [e] = await this.db.select().from(tenantEnvironments).where(and(eq(tenantEnvironments.accountId, accountId), eq(tenantEnvironments.name, name)));
    return e;
  }

  async addEnvironment(input: Omit<EnvironmentRow, 'id' | 'createdAt'>) {
    const [e] = await this.db.insert(tenantEnvironments).values(input).onConflictDoNothing().returning();
    return e;
  }

  async updateEnvironment(id: number, change: { marks?: Marks; labels?: Record<string, string>; meta?: unknown }) {
    const set = {
      ...(change.marks ? { marks: change.marks } : {}),
      ...(change.labels ? { labels: change.labels } : {}),
      ...(change.meta !== undefined ? { meta: change.meta } : {}),
    };
    if (Object.keys(set).length === 0) return (await this.db.select().from(tenantEnvironments).where(eq(tenantEnvironments.id, id)))[0];
    const [e] = await this.db.update(tenantEnvironments).set(set).where(eq(tenantEnvironments.id, id)).returning();
    return e;
  }

  async removeEnvironment(id: number) {
    await this.db.delete(tenantEnvironments).where(eq(tenantEnvironments.id, id));
  }
}
