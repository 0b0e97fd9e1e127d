/** Registered resources in one process. */
import type { ResourceRepository, ResourceRow } from './resources.types';

const copy = <T>(x: T): T => structuredClone(x);

export class MemoryResourceRepository implements ResourceRepository {
  private readonly rows: ResourceRow[] = [];
  private nextId = 1;

  async list(tenantId: number, kind?: string) {
    return this.rows
      .filter((r) => r.tenantId === tenantId && (kind === undefined || r.kind === kind))
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name))
      .map(copy);
  }

  async get(tenantId: number, kind: string, name: string) {
    const r = this.rows.find((x) => x.tenantId === tenantId && x.kind === kind && x.name === name);
    return r && copy(r);
  }

  async add(input: Omit<ResourceRow, 'id' | 'createdAt' | 'updatedAt'>) {
    if (this.rows.some((x) => x.tenantId === input.tenantId && x.kind === input.kind && x.name === input.name)) return 'name-taken' as const;
    if (input.claim !== null && this.rows.some((x) => x.claim === input.claim)) return 'claim-taken' as const;
    const now = new Date();
    const row: ResourceRow = { ...copy(input), id: this.nextId++, createdAt: now, updatedAt: now };
    this.rows.push(row);
    return copy(row);
  }

  async update(id: number, change: Pick<ResourceRow, 'spec' | 'sealed' | 'claim'>) {
    const r = this.rows.find((x) => x.id === id);
    if (!r) return undefined;
    if (change.claim !== null && this.rows.some((x) => x.id !== id && x.claim === change.claim)) return 'claim-taken' as const;
    Object.assign(r, copy(change), { updatedAt: new Date() });
    return copy(r);
  }

  async remove(id: number) {
    const at = this.rows.findIndex((x) => x.id === id);
    if (at >= 0) this.rows.splice(at, 1);
  }

  async removeForTenant(tenantId: number) {
    for (let i = this.rows.length - 1; i >= 0; i--) if (this.rows[i]!.tenantId === tenantId) this.rows.splice(i, 1);
  }
}
