/**
 * Users, their registrations and their linked sign-in profiles on
 * PostgreSQL (or PGlite), with the user list kept between writes.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { userProfiles, userRegistrations, users } from '../db/schema';
import { KeptReads } from './kept-reads';
import type { SharedHeads } from './shared-heads';
import type { Registration, UserProfile, UserRecord, UserRepo } from './types';

export class DrizzleUserRepo implements UserRepo {
  /**
   * `exclusive` (this process is the database's only writer): the user list,
   * which every resolution and every admission reads to know the policy's
   * users, is kept until this repository writes a user. On a shared database
   * with `heads`, it is kept while the access version a request reads is
   * unchanged (kept-reads.ts).
   */
  constructor(
    private readonly db: Db,
    private readonly opts: { exclusive?: boolean; heads?: SharedHeads } = {},
  ) {
    this.keptUsers = new KeptReads(!!opts.exclusive, 1, opts.heads?.accessVersion);
  }

  private readonly keptUsers: KeptReads;

  /** Forget the kept list around a write (before: no read made during it is kept; after: none made before it survives). */
  private async writing<T>(f: () => Promise<T>): Promise<T> {
    this.keptUsers.clear();
    try {
      return await f();
    } finally {
      this.keptUsers.clear();
      // A later read of this process's requests checks the version this write moved.
      this.opts.heads?.forget();
    }
  }

  async upsertUser(u: Omit<UserRecord, 'lastSignInAt'>): Promise<void> {
    await this.writing(() =>
      this.db
        .insert(users)
        .values({ id: u.id, name: u.name, email: u.email, provider: u.provider, labels: u.labels })
        .onConflictDoUpdate({
          target: users.id,
          set: { name: u.name, email: u.email, labels: u.labels, lastSignInAt: sql`now()` },
        }),
    );
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const rows = await this.db.select().from(users).where(eq(users.id, id));
    return rows[0];
  }

  async listUsers(): Promise<UserRecord[]> {
    // A promise, not drizzle's query (which runs again each time it is awaited).
    const read = async () => this.db.select().from(users).orderBy(users.name);
    // Each caller's own copy (fresh rows when nothing is kept): every resolution and admission asks.
    return this.keptUsers.read('users', read, (rows) => rows.map((r) => ({ ...r, labels: { ...r.labels } })));
  }

  async register(r: Omit<Registration, 'registeredAt'>): Promise<boolean> {
    return (await this.db.insert(userRegistrations).values(r).onConflictDoNothing().returning()).length === 1;
  }

  async registration(userId: string): Promise<Registration | undefined> {
    const [r] = await this.db.select().from(userRegistrations).where(eq(userRegistrations.userId, userId));
    return r;
  }

  async removeUser(userId: string): Promise<void> {
    await this.writing(() =>
      this.db.transaction(async (tx) => {
        await tx.delete(userRegistrations).where(eq(userRegistrations.userId, userId));
        await tx.delete(userProfiles).where(eq(userProfiles.userId, userId));
        await tx.delete(users).where(eq(users.id, userId));
      }),
    );
  }

  async profiles(userId: string): Promise<UserProfile[]> {
    return this.db.select().from(userProfiles).where(eq(userProfiles.userId, userId)).orderBy(userProfiles.provider);
  }

  async profileBySubject(subject: string): Promise<UserProfile | undefined> {
    const [p] = await this.db.select().from(userProfiles).where(eq(userProfiles.subject, subject));
    return p;
  }

  async addProfile(p: Omit<UserProfile, 'addedAt'>): Promise<boolean> {
    // Both unique keys (user+provider, subject) refuse a second link: nothing is inserted then.
    return (await this.db.insert(userProfiles).values(p).onConflictDoNothing().returning()).length === 1;
  }

  async removeProfile(userId: string, provider: string): Promise<boolean> {
    return (await this.db.delete(userProfiles).where(and(eq(userProfiles.userId, userId), eq(userProfiles.provider, provider))).returning()).length === 1;
  }
}
