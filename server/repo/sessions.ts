/** Console sessions on drizzle. Contract: `sessions.types.ts`. */
import { eq, lt } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sessions } from '../db/schema';
import { KeptReads } from './kept-reads';
import type { SharedHeads } from './shared-heads';
import type { SessionRepository, SessionRow } from './sessions.types';
import type { Same } from './same-type';

const rowsMatch: Same<typeof sessions.$inferSelect, SessionRow> = true;
void rowsMatch;

export class DrizzleSessionRepository implements SessionRepository {
  /**
   * Every request signed in through the console asks for its session. With
   * `exclusive` (the embedded database: this process is its only writer)
   * answers are kept until this repository writes; on a shared database
   * with `heads`, while the access version a request reads is unchanged —
   * ending a session moves it (migration 0019), whichever console ended it.
   * Without either, every request reads.
   */
  constructor(
    private readonly db: Db,
    private readonly opts: { exclusive?: boolean; heads?: SharedHeads } = {},
  ) {
    this.kept = new KeptReads(!!opts.exclusive, 10_000, opts.heads?.accessVersion, () => opts.heads?.forget());
  }

  private readonly kept: KeptReads;


  async add(row: Omit<SessionRow, 'createdAt'>, now: Date): Promise<void> {
    await this.kept.writing(async () => {
      // Rows of sessions that ran out are of no use to anyone: a sign-in clears them, so the table holds live sessions.
      await this.db.delete(sessions).where(lt(sessions.expiresAt, now));
      await this.db.insert(sessions).values(row);
    });
  }

  async get(id: string): Promise<SessionRow | undefined> {
    const [r] = await this.kept.read(`session:${id}`, async () => this.db.select().from(sessions).where(eq(sessions.id, id)), (rows) => rows.map((r) => ({ ...r })));
    return r;
  }

  async remove(id: string): Promise<boolean> {
    return this.kept.writing(async () => (await this.db.delete(sessions).where(eq(sessions.id, id)).returning({ id: sessions.id })).length === 1);
  }

  async removeAllOf(userId: string): Promise<number> {
    return this.kept.writing(async () => (await this.db.delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.id })).length);
  }
}
