/** API tokens in one process. */
import type { TokenRepository, TokenRow } from './tokens.types';

const copy = <T>(x: T): T => structuredClone(x);

export class MemoryTokenRepository implements TokenRepository {
  private readonly rows: TokenRow[] = [];
  private nextId = 1;

  async add(input: Pick<TokenRow, 'userId' | 'userName' | 'name' | 'prefix' | 'hash' | 'expiresAt'>) {
    if (this.rows.some((r) => r.hash === input.hash)) throw new Error('duplicate token hash');
    const row: TokenRow = { ...copy(input), id: this.nextId++, createdAt: new Date(), lastUsedAt: null, revokedAt: null };
    this.rows.push(row);
    return copy(row);
  }

  async byHash(hash: string) {
    const r = this.rows.find((x) => x.hash === hash);
    return r && copy(r);
  }

  async byId(id: number) {
    const r = this.rows.find((x) => x.id === id);
    return r && copy(r);
  }

  async forUser(userId: string) {
    return this.rows.filter((r) => r.userId === userId).sort((a, b) => b.id - a.id).map(copy);
  }

  async revoke(id: number, at: Date) {
    const r = this.rows.find((x) => x.id === id);
    if (r && !r.revokedAt) r.revokedAt = at;
  }

  async touch(id: number, at: Date) {
    const r = this.rows.find((x) => x.id === id);
    if (r) r.lastUsedAt = at;
  }
}
