/** Console sessions in one process. */
import type { SessionRepository, SessionRow } from './sessions.types';

export class MemorySessionRepository implements SessionRepository {
  private readonly rows = new Map<string, SessionRow>();

  async add(row: Omit<SessionRow, 'createdAt'>, now: Date): Promise<void> {
    for (const [id, r] of this.rows) if (r.expiresAt < now) this.rows.delete(id);
    if (this.rows.has(row.id)) throw new Error('duplicate session id');
    this.rows.set(row.id, { ...row, createdAt: new Date() });
  }

  async get(id: string): Promise<SessionRow | undefined> {
    const r = this.rows.get(id);
    return r && { ...r };
  }

  async remove(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async removeAllOf(userId: string): Promise<number> {
    let n = 0;
    for (const [id, r] of this.rows) if (r.userId === userId && this.rows.delete(id)) n++;
    return n;
  }
}
