/**
 * Registered resources on drizzle. Uniqueness (a name per tenant and kind,
 * a port or domain across all tenants) is the database's: an insert that
 * hits either unique index inserts nothing, and we say which one.
 * Contract: `resources.types.ts`.
 */
import { and, asc, eq, ne } from 'drizzle-orm';
import type { Db } from '../db/client';
import { tenantResources } from '../db/schema';
import type { ResourceRepository, ResourceRow } from './resources.types';
import type { Same } from './same-type';

const rowsMatch: Same<typeof tenantResources.$inferSelect, ResourceRow> = true;
void rowsMatch;

function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: string; cause?: { code?: string } })?.code ?? (e as { cause?: { code?: string } })?.cause?.code;
  return code === '23505';
}

export class DrizzleResourceRepository implements ResourceRepository {
  constructor(private readonly db: Db) {}

  async list(tenantId: number, kind?: string) {
    return this.db
      .select()
      .from(tenantResources)
      .where(and(eq(tenantResources.tenantId, tenantId), kind !== undefined ? eq(tenantResources.kind, kind) : undefined))
      .orderBy(asc(tenantResources.kind), asc(tenantResources.name));
  }

  async get(tenantId: number, kind: string, name: string) {
    const [r] = await this.db.select().from(tenantResources).where(and(eq(tenantResources.tenantId, tenantId), eq(tenantResources.kind, kind), eq(tenantResources.name, name)));
    return r;
  }

  async add(input: Omit<ResourceRow, 'id' | 'createdAt' | 'updatedAt'>) {
    const [r] = await this.db.insert(tenantResources).values(input).onConflictDoNothing().returning();
    if (r) return r;
    return (await this.get(input.tenantId, input.kind, input.name)) ? ('name-taken' as const) : ('claim-taken' as const);
  }

  async update(id: number, change: Pick<ResourceRow, 'spec' | 'sealed' | 'claim'>) {
    if (change.claim !== null) {
      const [other] = await this.db.select({ id: tenantResources.id }).from(tenantResources).where(and(eq(tenantResources.claim, change.claim), ne(tenantResources.id, id)));
      if (other) return 'claim-taken' as const;
    }
    try {
      const [r] = await this.db.update(tenantResources).set({ ...change, updatedAt: new Date() }).where(eq(tenantResources.id, id)).returning();
      return r;
    } catch (e) {
      // Another update took the key between our check and our write.
      if (isUniqueViolation(e)) return 'claim-taken' as const;
      throw e;
    }
  }

  async remove(id: number) {
    await this.db.delete(tenantResources).where(eq(tenantResources.id, id));
  }

  async removeForTenant(tenantId: number) {
    await this.db.delete(tenantResources).where(eq(tenantResources.tenantId, tenantId));
  }
}
