/**
 * Accounts and environments on drizzle. Names are unique per tenant and
 * per account (unique indexes): a second add of a name answers undefined.
 * Contract: `estate.types.ts`.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { KeptReads } from './kept-reads';
import type { SharedHeads } from './shared-heads';
import { tenantAccounts, tenantEnvironments } from '../db/schema';
import type { AccountRow, EnvironmentRow, EstateRepository, Marks } from './estate.types';
import type { Same } from './same-type';

// The stored rows are the contract's records.
const rowsMatch: [Same<typeof tenantAccounts.$inferSelect, AccountRow>, Same<typeof tenantEnvironments.$inferSelect, EnvironmentRow>] = [true, true];
void rowsMatch;

export class DrizzleEstateRepository implements EstateRepository {
  /**
   * With `exclusive` (the embedded database: this process is its only
   * writer) a tenant's accounts and an account's environments, as lists and
   * by name, are kept until this repository writes: every service create
   * places the service among them, and fifty creates at once read them
   * fifty times otherwise. On a shared database with `heads`, they are kept
   * while the access version a request reads is unchanged (kept-reads.ts).
   */
  constructor(
    private readonly db: Db,
    private readonly opts: { exclusive?: boolean; heads?: SharedHeads } = {},
  ) {
    this.kept = new KeptReads(!!opts.exclusive, 10_000, opts.heads?.accessVersion, () => opts.heads?.forget());
  }

  private readonly kept: KeptReads;


  async accounts(tenantId: number) {
    return this.kept.read(`accounts:${tenantId}`, () => this.db.select().from(tenantAccounts).where(eq(tenantAccounts.tenantId, tenantId)).orderBy(asc(tenantAccounts.name)));
  }

  async account(tenantId: number, name: string) {
    // Placing a service and admitting a change each look their environment up by name.
    const [a] = await this.kept.read(`account:${tenantId}\n${name}`, () => this.db.select().from(tenantAccounts).where(and(eq(tenantAccounts.tenantId, tenantId), eq(tenantAccounts.name, name))));
    return a;
  }

  async addAccount(input: Omit<AccountRow, 'id' | 'createdAt'>) {
    return this.kept.writing(async () => {
      const [a] = await this.db.insert(tenantAccounts).values(input).onConflictDoNothing().returning();
      return a;
    });
  }

  async updateAccount(id: number, change: { marks?: Marks; labels?: Record<string, string> }) {
    return this.kept.writing(async () => {
      const set = { ...(change.marks ? { marks: change.marks } : {}), ...(change.labels ? { labels: change.labels } : {}) };
      if (Object.keys(set).length === 0) return (await this.db.select().from(tenantAccounts).where(eq(tenantAccounts.id, id)))[0];
      const [a] = await this.db.update(tenantAccounts).set(set).where(eq(tenantAccounts.id, id)).returning();
      return a;
    });
  }

  async removeAccount(id: number) {
    return this.kept.writing(async () => {
      await this.db.transaction(async (tx) => {
        await tx.delete(tenantEnvironments).where(eq(tenantEnvironments.accountId, id));
        await tx.delete(tenantAccounts).where(eq(tenantAccounts.id, id));
      });
    });
  }

  async removeForTenant(tenantId: number) {
    return this.kept.writing(async () => {
      await this.db.transaction(async (tx) => {
        const ids = (await tx.select({ id: tenantAccounts.id }).from(tenantAccounts).where(eq(tenantAccounts.tenantId, tenantId))).map((r) => r.id);
        if (ids.length > 0) await tx.delete(tenantEnvironments).where(inArray(tenantEnvironments.accountId, ids));
        await tx.delete(tenantAccounts).where(eq(tenantAccounts.tenantId, tenantId));
      });
    });
  }

  async environments(accountId: number) {
    return this.kept.read(`environments:${accountId}`, () => this.db.select().from(tenantEnvironments).where(eq(tenantEnvironments.accountId, accountId)).orderBy(asc(tenantEnvironments.name)));
  }

  async environment(accountId: number, name: string) {
    const [e] = await this.kept.read(`environment:${accountId}\n${name}`, () => this.db.select().from(tenantEnvironments).where(and(eq(tenantEnvironments.accountId, accountId), eq(tenantEnvironments.name, name))));
    return e;
  }

  async addEnvironment(input: Omit<EnvironmentRow, 'id' | 'createdAt'>) {
    return this.kept.writing(async () => {
      const [e] = await this.db.insert(tenantEnvironments).values(input).onConflictDoNothing().returning();
      return e;
    });
  }

  async updateEnvironment(id: number, change: { marks?: Marks; labels?: Record<string, string>; meta?: unknown }) {
    return this.kept.writing(async () => {
      const set = {
        ...(change.marks ? { marks: change.marks } : {}),
        ...(change.labels ? { labels: change.labels } : {}),
        ...(change.meta !== undefined ? { meta: change.meta } : {}),
      };
      if (Object.keys(set).length === 0) return (await this.db.select().from(tenantEnvironments).where(eq(tenantEnvironments.id, id)))[0];
      const [e] = await this.db.update(tenantEnvironments).set(set).where(eq(tenantEnvironments.id, id)).returning();
      return e;
    });
  }

  async removeEnvironment(id: number) {
    return this.kept.writing(async () => {
      await this.db.delete(tenantEnvironments).where(eq(tenantEnvironments.id, id));
    });
  }
}
