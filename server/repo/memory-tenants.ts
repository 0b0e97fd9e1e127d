/**
 * The tenant store in memory: the contract of `tenants.types.ts` in one
 * process. Each operation runs to completion without yielding, so two
 * changes that would race in a database (demoting the last two owners at
 * once) are serialised, and exactly one is refused.
 */
import type { InvitationRow, MemberRow, TenantGrant, TenantNamespace, TenantRepository, TenantRole, TenantRow, TenantRules } from './tenants.types';

const copy = <T>(v: T): T => structuredClone(v);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class MemoryTenantRepository implements TenantRepository {
  private readonly tenants: TenantRow[] = [];
  private readonly memberRows: MemberRow[] = [];
  private readonly invitationRows: InvitationRow[] = [];
  private readonly owned = new Map<string, number>();
  private ids = { tenant: 0, invitation: 0 };

  private nameOf(tenantId: number): string {
    return this.tenants.find((t) => t.id === tenantId)?.name ?? '';
  }

  async byName(name: string): Promise<TenantRow | undefined> {
    return copy(this.tenants.find((t) => t.name === name));
  }

  async forReader(name: string, user: string): Promise<{ id: number; name: string; role: string | null; namespaces: string[] } | undefined> {
    const t = this.tenants.find((x) => x.name === name);
    if (!t) return undefined;
    const role = this.memberRows.find((m) => m.tenantId === t.id && m.user === user)?.role ?? null;
    return { id: t.id, name: t.name, role, namespaces: (await this.namespaces(t.id)).map((n) => n.namespace) };
  }

  async list(): Promise<TenantRow[]> {
    return copy([...this.tenants].sort((a, b) => cmp(a.name, b.name)));
  }

  async members(tenantId: number): Promise<MemberRow[]> {
    return copy(this.memberRows.filter((m) => m.tenantId === tenantId).sort((a, b) => cmp(a.user, b.user)));
  }

  async membershipsOf(user: string): Promise<(MemberRow & { tenant: string })[]> {
    const u = user.toLowerCase();
    return copy(this.memberRows.filter((m) => m.user === u).map((m) => ({ ...m, tenant: this.nameOf(m.tenantId) })));
  }

  async namespaces(tenantId?: number): Promise<TenantNamespace[]> {
    return [...this.owned]
      .filter(([, t]) => tenantId === undefined || t === tenantId)
      .map(([namespace, t]) => ({ namespace, tenantId: t }))
      .sort((a, b) => cmp(a.namespace, b.namespace));
  }

  async invitations(filter: { tenantId?: number; user?: string; status?: string }): Promise<(InvitationRow & { tenant: string })[]> {
    return copy(
      this.invitationRows
        .filter(
          (i) =>
            (filter.tenantId === undefined || i.tenantId === filter.tenantId) &&
            (!filter.user || i.user === filter.user.toLowerCase()) &&
            (!filter.status || i.status === filter.status),
        )
        .sort((a, b) => a.id - b.id)
        .map((i) => ({ ...i, tenant: this.nameOf(i.tenantId) })),
    );
  }

  async create(input: { name: string; owner: string; namespaces: string[] }): Promise<{ ok: true; tenant: TenantRow } | { ok: false; reason: string }> {
    if (this.tenants.some((t) => t.name === input.name)) return { ok: false, reason: `A tenant named "${input.name}" already exists.` };
    const taken = input.namespaces.filter((n) => this.owned.has(n));
    if (taken.length) return { ok: false, reason: `Namespace ${taken.join(', ')} already belongs to another tenant.` };
    const tenant: TenantRow = { id: ++this.ids.tenant, name: input.name, rules: {}, createdBy: input.owner, createdAt: new Date() };
    this.tenants.push(tenant);
    this.memberRows.push({ tenantId: tenant.id, user: input.owner.toLowerCase(), role: 'owner', addedAt: new Date() });
    for (const n of input.namespaces) this.owned.set(n, tenant.id);
    return { ok: true, tenant: copy(tenant) };
  }

  async setRules(tenantId: number, rules: TenantRules): Promise<void> {
    const t = this.tenants.find((x) => x.id === tenantId);
    if (t) t.rules = copy(rules);
  }

  async addNamespace(tenantId: number, namespace: string): Promise<boolean> {
    if (this.owned.has(namespace)) return false;
    this.owned.set(namespace, tenantId);
    return true;
  }

  async invite(input: { tenantId: number; user: string; role: TenantRole; invitedBy: string }): Promise<InvitationRow | undefined> {
    const user = input.user.toLowerCase();
    const member = this.memberRows.some((m) => m.tenantId === input.tenantId && m.user === user);
    const pending = this.invitationRows.some((i) => i.tenantId === input.tenantId && i.user === user && i.status === 'pending');
    if (member || pending) return undefined;
    const inv: InvitationRow = { id: ++this.ids.invitation, tenantId: input.tenantId, user, role: input.role, invitedBy: input.invitedBy, status: 'pending', createdAt: new Date(), decidedAt: null };
    this.invitationRows.push(inv);
    return copy(inv);
  }

  async answer(invitationId: number, user: string, accept: boolean): Promise<InvitationRow | undefined> {
    const inv = this.invitationRows.find((i) => i.id === invitationId && i.user === user.toLowerCase() && i.status === 'pending');
    if (!inv) return undefined;
    Object.assign(inv, { status: accept ? 'accepted' : 'rejected', decidedAt: new Date() });
    if (accept && !this.memberRows.some((m) => m.tenantId === inv.tenantId && m.user === inv.user)) {
      this.memberRows.push({ tenantId: inv.tenantId, user: inv.user, role: inv.role, addedAt: new Date() });
    }
    return copy(inv);
  }

  async changeMember(tenantId: number, user: string, role: TenantRole | null): Promise<'ok' | 'not-member' | 'last-owner'> {
    const rows = this.memberRows.filter((m) => m.tenantId === tenantId);
    const target = rows.find((r) => r.user === user.toLowerCase());
    if (!target) return 'not-member';
    const owners = rows.filter((r) => r.role === 'owner');
    if (target.role === 'owner' && role !== 'owner' && owners.length === 1) return 'last-owner';
    if (role) target.role = role;
    else this.memberRows.splice(this.memberRows.indexOf(target), 1);
    return 'ok';
  }

  async remove(tenantId: number): Promise<void> {
    const drop = <T extends { tenantId: number }>(rows: T[]) => {
      for (let i = rows.length - 1; i >= 0; i--) if (rows[i]!.tenantId === tenantId) rows.splice(i, 1);
    };
    drop(this.invitationRows);
    drop(this.memberRows);
    for (const [n, t] of this.owned) if (t === tenantId) this.owned.delete(n);
    const at = this.tenants.findIndex((t) => t.id === tenantId);
    if (at >= 0) this.tenants.splice(at, 1);
  }

  async grants(): Promise<Map<string, TenantGrant[]>> {
    const byTenant = new Map<number, string[]>();
    for (const [n, t] of [...this.owned].sort(([a], [b]) => cmp(a, b))) byTenant.set(t, [...(byTenant.get(t) ?? []), n]);
    const out = new Map<string, TenantGrant[]>();
    for (const m of this.memberRows) {
      const namespaces = byTenant.get(m.tenantId) ?? [];
      if (namespaces.length === 0) continue;
      const list = out.get(m.user) ?? [];
      list.push({ role: m.role === 'plain' ? 'service-consumer' : 'namespace-admin', namespaces, source: `tenant ${this.nameOf(m.tenantId)} (${m.role})` });
      out.set(m.user, list);
    }
    return out;
  }
}
