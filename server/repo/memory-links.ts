/** Service links in one process. Contract: `links.types.ts`. */
import type { LinkEnds, LinkRepository, LinkRow } from './links.types';

const copy = <T>(x: T): T => structuredClone(x);
const same = (a: LinkEnds, b: LinkEnds) => a.fromService === b.fromService && a.fromChannel === b.fromChannel && a.toService === b.toService && a.toChannel === b.toChannel;

export class MemoryLinkRepository implements LinkRepository {
  private rows: LinkRow[] = [];
  private nextId = 1;

  async list(tenantId: number) {
    return this.rows.filter((r) => r.tenantId === tenantId).map(copy);
  }

  async add(input: Omit<LinkRow, 'id' | 'createdAt'>) {
    if (this.rows.some((r) => r.tenantId === input.tenantId && same(r, input))) return undefined;
    const row: LinkRow = { ...copy(input), id: this.nextId++, createdAt: new Date() };
    this.rows.push(row);
    return copy(row);
  }

  private drop(keep: (r: LinkRow) => boolean): number {
    const before = this.rows.length;
    this.rows = this.rows.filter(keep);
    return before - this.rows.length;
  }

  async remove(tenantId: number, ends: LinkEnds) {
    return this.drop((r) => !(r.tenantId === tenantId && same(r, ends))) > 0;
  }

  async removeForService(tenantId: number, service: string) {
    return this.drop((r) => !(r.tenantId === tenantId && (r.fromService === service || r.toService === service)));
  }

  async removeForChannel(tenantId: number, service: string, channel: string) {
    return this.drop((r) => !(r.tenantId === tenantId && ((r.fromService === service && r.fromChannel === channel) || (r.toService === service && r.toChannel === channel))));
  }
}
