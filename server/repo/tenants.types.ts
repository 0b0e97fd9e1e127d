/**
 * The tenant store's contract: tenants, members, invitations and the
 * namespaces tenants own. `tenants.ts` keeps it on drizzle (membership
 * changes that must not race lock the tenant's member rows),
 * `memory-tenants.ts` in one process; both run the same contract tests
 * (`tenants.test.ts`).
 */
import type { TenantRules } from '../db/columns';

export type { SelectorRule, TenantRules } from '../db/columns';

export type TenantRole = 'owner' | 'admin' | 'plain';
export const TENANT_ROLES: readonly TenantRole[] = ['owner', 'admin', 'plain'];
export const ROLE_RANK: Record<TenantRole, number> = { owner: 3, admin: 2, plain: 1 };

export interface TenantRow {
  id: number;
  name: string;
  rules: TenantRules;
  createdBy: string;
  createdAt: Date;
}

export interface MemberRow {
  tenantId: number;
  /** Lower-case user name (policy names match without regard to case). */
  user: string;
  role: string;
  addedAt: Date;
}

export interface InvitationRow {
  id: number;
  tenantId: number;
  /** Lower-case user name. */
  user: string;
  role: string;
  invitedBy: string;
  status: string;
  createdAt: Date;
  decidedAt: Date | null;
}

export interface TenantNamespace {
  namespace: string;
  tenantId: number;
}

/** A role implied by tenant membership: owners and admins administer the tenant's namespaces, plain members consume there. */
export interface TenantGrant {
  role: 'namespace-admin' | 'service-consumer';
  namespaces: string[];
  source: string;
}

export interface TenantRepository {
  byName(name: string): Promise<TenantRow | undefined>;
  /**
   * A tenant as a request needs it to authorise a reader, in one read: its
   * id and name, `user`'s role there (null: not a member) and its
   * namespaces, by namespace. `name` and `user` are lower-case.
   */
  forReader(name: string, user: string): Promise<{ id: number; name: string; role: string | null; namespaces: string[] } | undefined>;
  /** Every tenant, by name. */
  list(): Promise<TenantRow[]>;
  /** A tenant's members, by user. */
  members(tenantId: number): Promise<MemberRow[]>;
  membershipsOf(user: string): Promise<(MemberRow & { tenant: string })[]>;
  /** Namespaces of one tenant (of all without `tenantId`), by namespace. */
  namespaces(tenantId?: number): Promise<TenantNamespace[]>;
  /** Invitations matching every given filter, oldest first. */
  invitations(filter: { tenantId?: number; user?: string; status?: string }): Promise<(InvitationRow & { tenant: string })[]>;
  /** Create a tenant with its owner and namespaces; refused when the name or a namespace is taken. */
  create(input: { name: string; owner: string; namespaces: string[] }): Promise<{ ok: true; tenant: TenantRow } | { ok: false; reason: string }>;
  /** Replace the tenant's selector rules. */
  setRules(tenantId: number, rules: TenantRules): Promise<void>;
  /** False when the namespace already belongs to a tenant. */
  addNamespace(tenantId: number, namespace: string): Promise<boolean>;
  /** Undefined when the user is a member already or has a pending invitation. */
  invite(input: { tenantId: number; user: string; role: TenantRole; invitedBy: string }): Promise<InvitationRow | undefined>;
  /** Accept or reject a pending invitation (once); accepting makes the user a member. Undefined when there is no such pending invitation. */
  answer(invitationId: number, user: string, accept: boolean): Promise<InvitationRow | undefined>;
  /**
   * Change a member's role, or remove them (`role: null`), refusing to leave
   * the tenant without an owner — also when two such changes race.
   */
  changeMember(tenantId: number, user: string, role: TenantRole | null): Promise<'ok' | 'not-member' | 'last-owner'>;
  /** Remove a tenant with its members, invitations and namespaces. */
  remove(tenantId: number): Promise<void>;
  /** Grants implied by tenant membership, per user (lower-case). */
  grants(): Promise<Map<string, TenantGrant[]>>;
}
