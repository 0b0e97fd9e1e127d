/**
 * The tenant store on drizzle: tenants, members, invitations and the
 * namespaces tenants own. Membership changes that must not race (the last
 * owner) run in transactions that lock the tenant's member rows.
 * Contract: `tenants.types.ts`.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { accessVersion, tenantInvitations, tenantMembers, tenantNamespaces, tenants } from '../db/schema';
import { KeptReads } from './kept-reads';
import type { SharedHeads } from './shared-heads';
import type { InvitationRow, MemberRow, TenantGrant, TenantNamespace, TenantRepository, TenantRole, TenantRow, TenantRules } from './tenants.types';
import type { Same } from './same-type';

// The stored rows are the contract's records.
const rowsMatch: [
  Same<typeof tenants.$inferSelect, TenantRow>,
  Same<typeof tenantMembers.$inferSelect, MemberRow>,
  Same<typeof tenantInvitations.$inferSelect, InvitationRow>,
  Same<typeof tenantNamespaces.$inferSelect, TenantNamespace>,
] = [true, true, true, true];
void rowsMatch;

type Reader = { id: number; name: string; role: string | null; namespaces: string[] } | undefined;

/** A reader's own copy of a kept answer (asked on nearly every request: cheaper than a structured clone). */
const copyReader = (r: Reader): Reader => r && { ...r, namespaces: [...r.namespaces] };

export class DrizzleTenantRepository implements TenantRepository {
  /**
   * With `exclusive` (the embedded database: this process is its only
   * writer) the answers to `forReader`, asked on every tenant-scoped read,
   * are kept until this repository writes. On a shared database with
   * `heads`, answers are kept while the access version a request reads is
   * unchanged (kept-reads.ts); without, every call reads.
   */
  constructor(
    private readonly db: Db,
    private readonly opts: { exclusive?: boolean; heads?: SharedHeads } = {},
  ) {
    this.kept = new KeptReads(!!opts.exclusive, 10_000, opts.heads?.accessVersion);
  }

  private readonly readers = new Map<string, Reader>();

  /** Forget cached readers around a write (before: no read made during it is kept; after: none made before it survives). */
  private async writing<T>(f: () => Promise<T>): Promise<T> {
    this.forget();
    try {
      return await f();
    } finally {
      this.forget();
    }
  }

  private forget() {
    this.kept.clear();
    this.readers.clear();
    this.knownGrants = undefined;
    // A later read of this process's requests checks the version this write moved (another repository may keep what it changed).
    this.opts.heads?.forget();
  }

  /** Grants implied by membership, kept (exclusive mode) until this repository writes: every resolution asks for them. */
  private knownGrants: Promise<Map<string, TenantGrant[]>> | undefined;

  /** A tenant's row, members and namespaces as read (placing a service reads all three); on a shared database also readers and grants. */
  private readonly kept: KeptReads;

  async byName(name: string): Promise<TenantRow | undefined> {
    const [t] = await this.kept.read(`tenant:${name}`, () => this.db.select().from(tenants).where(eq(tenants.name, name)));
    return t;
  }

  async forReader(name: string, user: string): Promise<Reader> {
    const key = `${name}\n${user}`;
    if (!this.opts.exclusive) return this.kept.read(`reader:${key}`, () => this.readForReader(name, user), copyReader);
    if (!this.readers.has(key)) {
      if (this.readers.size >= 10_000) this.readers.clear();
      this.readers.set(key, await this.readForReader(name, user));
    }
    return copyReader(this.readers.get(key));
  }

  private forReaderQuery: ReturnType<DrizzleTenantRepository['forReaderSelect']> | undefined;

  /** Built once (every request asks it): see DrizzlePolicyRepo.prepared. */
  private forReaderSelect() {
    return this.db
      .select({ id: tenants.id, name: tenants.name, role: tenantMembers.role, namespace: tenantNamespaces.namespace })
      .from(tenants)
      .leftJoin(tenantMembers, and(eq(tenantMembers.tenantId, tenants.id), eq(tenantMembers.user, sql.placeholder('user'))))
      .leftJoin(tenantNamespaces, eq(tenantNamespaces.tenantId, tenants.id))
      .where(eq(tenants.name, sql.placeholder('name')))
      .orderBy(asc(tenantNamespaces.namespace))
      .prepare('keelson_tenant_for_reader');
  }

  private async readForReader(name: string, user: string): Promise<Reader> {
    // One row per namespace (one with a null namespace when it has none).
    const rows = await (this.forReaderQuery ??= this.forReaderSelect()).execute({ name, user });
    const first = rows[0];
    if (!first) return undefined;
    return { id: first.id, name: first.name, role: first.role, namespaces: rows.flatMap((r) => (r.namespace === null ? [] : [r.namespace])) };
  }

  async list(): Promise<TenantRow[]> {
    return this.db.select().from(tenants).orderBy(asc(tenants.name));
  }

  async members(tenantId: number): Promise<MemberRow[]> {
    return this.kept.read(`members:${tenantId}`, () => this.db.select().from(tenantMembers).where(eq(tenantMembers.tenantId, tenantId)).orderBy(asc(tenantMembers.user)));
  }

  async membershipsOf(user: string): Promise<(MemberRow & { tenant: string })[]> {
    return this.db
      .select({ tenantId: tenantMembers.tenantId, user: tenantMembers.user, role: tenantMembers.role, addedAt: tenantMembers.addedAt, tenant: tenants.name })
      .from(tenantMembers)
      .innerJoin(tenants, eq(tenants.id, tenantMembers.tenantId))
      .where(eq(tenantMembers.user, user.toLowerCase()));
  }

  async namespaces(tenantId?: number): Promise<TenantNamespace[]> {
    return this.kept.read(`namespaces:${tenantId ?? '*'}`, () =>
      this.db
        .select()
        .from(tenantNamespaces)
        .where(tenantId !== undefined ? eq(tenantNamespaces.tenantId, tenantId) : undefined)
        .orderBy(asc(tenantNamespaces.namespace)),
    );
  }

  async invitations(filter: { tenantId?: number; user?: string; status?: string }): Promise<(InvitationRow & { tenant: string })[]> {
    const conds = [];
    if (filter.tenantId !== undefined) conds.push(eq(tenantInvitations.tenantId, filter.tenantId));
    if (filter.user) conds.push(eq(tenantInvitations.user, filter.user.toLowerCase()));
    if (filter.status) conds.push(eq(tenantInvitations.status, filter.status));
    return this.db
      .select({
        id: tenantInvitations.id,
        tenantId: tenantInvitations.tenantId,
        user: tenantInvitations.user,
        role: tenantInvitations.role,
        invitedBy: tenantInvitations.invitedBy,
        status: tenantInvitations.status,
        createdAt: tenantInvitations.createdAt,
        decidedAt: tenantInvitations.decidedAt,
        tenant: tenants.name,
      })
      .from(tenantInvitations)
      .innerJoin(tenants, eq(tenants.id, tenantInvitations.tenantId))
      .where(conds.length ? and(...conds) : undefined)
      .orderBy(asc(tenantInvitations.id));
  }

  /** Create a tenant with its owner and namespaces; false when the name or a namespace is taken. */
  async create(input: { name: string; owner: string; namespaces: string[] }): Promise<{ ok: true; tenant: TenantRow } | { ok: false; reason: string }> {
    return this.writing(() => this.db.transaction(async (tx) => {
      const [taken] = await tx.select().from(tenants).where(eq(tenants.name, input.name));
      if (taken) return { ok: false, reason: `A tenant named "${input.name}" already exists.` } as const;
      if (input.namespaces.length) {
        const owned = await tx.select().from(tenantNamespaces).where(inArray(tenantNamespaces.namespace, input.namespaces));
        if (owned.length) return { ok: false, reason: `Namespace ${owned.map((o) => o.namespace).join(', ')} already belongs to another tenant.` } as const;
      }
      const [t] = await tx.insert(tenants).values({ name: input.name, createdBy: input.owner }).returning();
      await tx.insert(tenantMembers).values({ tenantId: t!.id, user: input.owner.toLowerCase(), role: 'owner' });
      if (input.namespaces.length) await tx.insert(tenantNamespaces).values(input.namespaces.map((namespace) => ({ namespace, tenantId: t!.id })));
      return { ok: true, tenant: t! } as const;
    }));
  }

  async setRules(tenantId: number, rules: TenantRules): Promise<void> {
    await this.writing(() => this.db.update(tenants).set({ rules }).where(eq(tenants.id, tenantId)));
  }

  async addNamespace(tenantId: number, namespace: string): Promise<boolean> {
    const rows = await this.writing(() => this.db.insert(tenantNamespaces).values({ namespace, tenantId }).onConflictDoNothing().returning());
    return rows.length === 1;
  }

  async invite(input: { tenantId: number; user: string; role: TenantRole; invitedBy: string }): Promise<InvitationRow | undefined> {
    return this.writing(() => this.db.transaction(async (tx) => {
      const user = input.user.toLowerCase();
      const [member] = await tx.select().from(tenantMembers).where(and(eq(tenantMembers.tenantId, input.tenantId), eq(tenantMembers.user, user)));
      const [pending] = await tx
        .select()
        .from(tenantInvitations)
        .where(and(eq(tenantInvitations.tenantId, input.tenantId), eq(tenantInvitations.user, user), eq(tenantInvitations.status, 'pending')));
      if (member || pending) return undefined;
      const [inv] = await tx.insert(tenantInvitations).values({ tenantId: input.tenantId, user, role: input.role, invitedBy: input.invitedBy }).returning();
      return inv;
    }));
  }

  /** Accept or reject a pending invitation (once). */
  async answer(invitationId: number, user: string, accept: boolean): Promise<InvitationRow | undefined> {
    return this.writing(() => this.db.transaction(async (tx) => {
      const [inv] = await tx
        .update(tenantInvitations)
        .set({ status: accept ? 'accepted' : 'rejected', decidedAt: sql`now()` })
        .where(and(eq(tenantInvitations.id, invitationId), eq(tenantInvitations.user, user.toLowerCase()), eq(tenantInvitations.status, 'pending')))
        .returning();
      if (inv && accept) await tx.insert(tenantMembers).values({ tenantId: inv.tenantId, user: inv.user, role: inv.role }).onConflictDoNothing();
      return inv;
    }));
  }

  /**
   * Change a member's role or remove them, refusing to leave the tenant
   * without an owner. The member rows are locked, so two admins demoting
   * the last two owners at once cannot both succeed.
   */
  async changeMember(tenantId: number, user: string, role: TenantRole | null): Promise<'ok' | 'not-member' | 'last-owner'> {
    return this.writing(() => this.db.transaction(async (tx) => {
      // The access version's lock before the member rows': every access write takes it first (its trigger runs before
      // the statement), so locking rows before it could deadlock with one (removing the tenant, say).
      await tx.select({ id: accessVersion.id }).from(accessVersion).where(eq(accessVersion.id, 1)).for('update');
      const rows = await tx.select().from(tenantMembers).where(eq(tenantMembers.tenantId, tenantId)).for('update');
      const target = rows.find((r) => r.user === user.toLowerCase());
      if (!target) return 'not-member';
      const owners = rows.filter((r) => r.role === 'owner');
      if (target.role === 'owner' && role !== 'owner' && owners.length === 1) return 'last-owner';
      if (role) await tx.update(tenantMembers).set({ role }).where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.user, target.user)));
      else await tx.delete(tenantMembers).where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.user, target.user)));
      return 'ok';
    }));
  }

  async remove(tenantId: number): Promise<void> {
    await this.writing(() =>
      this.db.transaction(async (tx) => {
        await tx.delete(tenantInvitations).where(eq(tenantInvitations.tenantId, tenantId));
        await tx.delete(tenantNamespaces).where(eq(tenantNamespaces.tenantId, tenantId));
        await tx.delete(tenantMembers).where(eq(tenantMembers.tenantId, tenantId));
        await tx.delete(tenants).where(eq(tenants.id, tenantId));
      }),
    );
  }

  /** Namespace-admin / service-consumer grants implied by tenant membership, per user (lower-case). */
  async grants(): Promise<Map<string, TenantGrant[]>> {
    // Not copied when kept: the copy below is every caller's own.
    const known = this.opts.exclusive ? (this.knownGrants ??= this.readGrants()) : this.kept.read('grants', () => this.readGrants(), (kept) => kept);
    const grants = await known.catch((e) => {
      if (this.knownGrants === known) this.knownGrants = undefined;
      throw e;
    });
    return new Map([...grants].map(([user, list]) => [user, list.map((g) => ({ ...g, namespaces: [...g.namespaces] }))]));
  }

  private async readGrants(): Promise<Map<string, TenantGrant[]>> {
    const rows = await this.db
      .select({ user: tenantMembers.user, role: tenantMembers.role, tenant: tenants.name, tenantId: tenants.id })
      .from(tenantMembers)
      .innerJoin(tenants, eq(tenants.id, tenantMembers.tenantId));
    // In exclusive mode from what is kept; on a shared database read here, in step with the members just read (a kept
    // list of namespaces carries its own version, which could differ from the version these grants are kept with).
    const nss = this.opts.exclusive ? await this.namespaces() : await this.db.select().from(tenantNamespaces).orderBy(asc(tenantNamespaces.namespace));
    const byTenant = new Map<number, string[]>();
    for (const n of nss) byTenant.set(n.tenantId, [...(byTenant.get(n.tenantId) ?? []), n.namespace]);
    const out = new Map<string, TenantGrant[]>();
    for (const r of rows) {
      const namespaces = byTenant.get(r.tenantId) ?? [];
      if (namespaces.length === 0) continue;
      const list = out.get(r.user) ?? [];
      list.push({ role: r.role === 'plain' ? 'service-consumer' : 'namespace-admin', namespaces, source: `tenant ${r.tenant} (${r.role})` });
      out.set(r.user, list);
    }
    return out;
  }
}
