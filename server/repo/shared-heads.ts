/**
 * The two heads a console on a shared database checks, read together in one
 * statement that requests share (fresh-reads.ts): the policy's generation,
 * and the version of who may do what (`access_version`, moved by trigger on
 * every write to tenants, members, namespaces, invitations, accounts,
 * environments and users).
 *
 * With the access version beside the head a request already reads, the
 * access tables' answers are kept while it stays the same (kept-reads.ts).
 * Under load on two cores, the reader's tenant and the other access reads
 * were over a third of all statements, each asked again on every request.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { accessVersion, policyHead } from '../db/schema';
import { FreshReads } from './fresh-reads';

export interface Heads {
  /** The policy head generation. */
  policy: number;
  /** The access version; undefined on a database without it (nothing is kept then). */
  access: number | undefined;
}

export class SharedHeads {
  private readonly fresh = new FreshReads<Heads>(1);

  constructor(private readonly db: Db) {}

  /** Built once, on first use: every request asks it (see DrizzlePolicyRepo.prepared). */
  private statement: ReturnType<SharedHeads['prepare']> | undefined;

  private prepare() {
    return this.db
      .select({ policy: policyHead.generation, access: accessVersion.version })
      .from(policyHead)
      .leftJoin(accessVersion, eq(accessVersion.id, sql`1`))
      .where(eq(policyHead.id, 1))
      .prepare('keelson_heads');
  }

  /** Both heads, as read after the current request began (outside a request: read now). */
  read(): Promise<Heads> {
    return this.fresh.read('heads', async () => {
      const [row] = await (this.statement ??= this.prepare()).execute();
      return { policy: row?.policy ?? 0, access: row?.access ?? undefined };
    });
  }

  /** The access version alone, as kept reads compare it (kept-reads.ts). */
  readonly accessVersion = async (): Promise<number | undefined> => (await this.read()).access;

  /** This process wrote: a later read in any request is sent after the write. */
  forget(): void {
    this.fresh.forget();
  }
}
