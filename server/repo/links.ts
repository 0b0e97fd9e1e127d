/** Service links on drizzle. Contract: `links.types.ts`. */
import { and, asc, eq, or } from 'drizzle-orm';
import type { Db } from '../db/client';
import { serviceLinks } from '../db/schema';
import type { LinkEnds, LinkRepository, LinkRow } from './links.types';
import type { Same } from './same-type';

const rowsMatch: Same<typeof serviceLinks.$inferSelect, LinkRow> = true;
void rowsMatch;

export class DrizzleLinkRepository implements LinkRepository {
  constructor(private readonly db: Db) {}

  async list(tenantId: number) {
    return this.db.select().from(serviceLinks).where(eq(serviceLinks.tenantId, tenantId)).orderBy(asc(serviceLinks.id));
  }

  async add(input: Omit<LinkRow, 'id' | 'createdAt'>) {
    const [r] = await this.db.insert(serviceLinks).values(input).onConflictDoNothing().returning();
    return r;
  }

  private ends(tenantId: number, e: LinkEnds) {
    return and(
      eq(serviceLinks.tenantId, tenantId),
      eq(serviceLinks.fromService, e.fromService),
      eq(serviceLinks.fromChannel, e.fromChannel),
      eq(serviceLinks.toService, e.toService),
      eq(serviceLinks.toChannel, e.toChannel),
    );
  }

  async remove(tenantId: number, ends: LinkEnds) {
    return (await this.db.delete(serviceLinks).where(this.ends(tenantId, ends)).returning()).length > 0;
  }

  async removeForService(tenantId: number, service: string) {
    const rows = await this.db
      .delete(serviceLinks)
      .where(and(eq(serviceLinks.tenantId, tenantId), or(eq(serviceLinks.fromService, service), eq(serviceLinks.toService, service))))
      .returning();
    return rows.length;
  }

  async removeForChannel(tenantId: number, service: string, channel: string) {
    const rows = await this.db
      .delete(serviceLinks)
      .where(
        and(
          eq(serviceLinks.tenantId, tenantId),
          or(and(eq(serviceLinks.fromService, service), eq(serviceLinks.fromChannel, channel)), and(eq(serviceLinks.toService, service), eq(serviceLinks.toChannel, channel))),
        ),
      )
      .returning();
    return rows.length;
  }
}
