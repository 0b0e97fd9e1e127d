/** Accounts and environments in one process (tests, and services without a database). */
import type { AccountRow, EnvironmentRow, EstateRepository, Marks } from './estate.types';

const copy = <T>(x: T): T => structuredClone(x);

export class MemoryEstateRepository implements EstateRepository {
  private readonly accountRows: AccountRow[] = [];
  private readonly envRows: EnvironmentRow[] = [];
  private nextId = 1;

  async accounts(tenantId: number) {
    return this.accountRows.filter((a) => a.tenantId === tenantId).sort((a, b) => a.name.localeCompare(b.name)).map(copy);
  }

  async account(tenantId: number, name: string) {
    const a = this.accountRows.find((x) => x.tenantId === tenantId && x.name === name);
    return a && copy(a);
  }

  async addAccount(input: Omit<AccountRow, 'id' | 'createdAt'>) {
    if (this.accountRows.some((x) => x.tenantId === input.tenantId && x.name === input.name)) return undefined;
    const row: AccountRow = { ...copy(input), id: this.nextId++, createdAt: new Date() };
    this.accountRows.push(row);
    return copy(row);
  }

  async updateAccount(id: number, change: { marks?: Marks; labels?: Record<string, string> }) {
    const a = this.accountRows.find((x) => x.id === id);
    if (!a) return undefined;
    if (change.marks) a.marks = copy(change.marks);
    if (change.labels) a.labels = copy(change.labels);
    return copy(a);
  }

  async removeAccount(id: number) {
    for (let i = this.envRows.length - 1; i >= 0; i--) if (this.envRows[i]!.accountId === id) this.envRows.splice(i, 1);
    const at = this.accountRows.findIndex((x) => x.id === id);
    if (at >= 0) this.accountRows.splice(at, 1);
  }

  async removeForTenant(tenantId: number) {
    for (const a of this.accountRows.filter((x) => x.tenantId === tenantId)) await this.removeAccount(a.id);
  }

  async environments(accountId: number) {
    return this.envRows.filter((e) => e.accountId === accountId).sort((a, b) => a.name.localeCompare(b.name)).map(copy);
  }

  async environment(accountId: number, name: string) {
    const e = this.envRows.find((x) => x.accountId === accountId && x.name === name);
    return e && copy(e);
  }

  async addEnvironment(input: Omit<EnvironmentRow, 'id' | 'createdAt'>) {
    if (this.envRows.some((x) => x.accountId === input.accountId && x.name === input.name)) return undefined;
    const row: EnvironmentRow = { ...copy(input), id: this.nextId++, createdAt: new Date() };
    this.envRows.push(row);
    return copy(row);
  }

  async updateEnvironment(id: number, change: { marks?: Marks; labels?: Record<string, string>; meta?: unknown }) {
    const e = this.envRows.find((x) => x.id === id);
    if (!e) return undefined;
    if (change.marks) e.marks = copy(change.marks);
    if (change.labels) e.labels = copy(change.labels);
    if (change.meta !== undefined) e.meta = copy(change.meta);
    return copy(e);
  }

  async removeEnvironment(id: number) {
    const at = this.envRows.findIndex((x) => x.id === id);
    if (at >= 0) this.envRows.splice(at, 1);
  }
}
