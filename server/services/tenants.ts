/**
 * Tenants (Axebow): a user creates a tenant and becomes its owner; members
 * are owner, admin or plain; invitations wait until the invitee confirms or
 * rejects them. Rules from Axebow's API document:
 * - inviting needs admin, inviting an owner needs owner;
 * - nobody raises anyone above their own role (nor changes someone above it);
 * - the last owner can neither leave nor be demoted;
 * - only the sole owner removes a tenant, and not while it runs services.
 * A tenant owns namespaces: its owners and admins are namespace admins
 * there, plain members service consumers (see AccessService).
 */
import { isDomainAdmin, roleIn } from '../engine/acl';
import { checkRules } from '../engine/axebow/stage';
import { IDENTIFIER_RE } from '../engine/model/kinds';
import type { PolicyUser } from '../engine/model/users';
import { instanceKey } from '../engine/state/key';
import { ROLE_RANK, type Repos, type TenantRole } from '../repo/types';
import type { TenantRules } from '../repo/tenants.types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from '../errors';
import type {
  AddNamespaceInput,
  AnswerInput,
  ChangeRoleInput,
  CreateTenantInput,
  Invitation,
  InviteInput,
  MyRoles,
  RemoveMemberInput,
  RemoveTenantInput,
  RoleMap,
  TenantList,
  TenantView,
} from './tenants.types';

export class TenantService {
  constructor(
    private readonly repos: Pick<Repos, 'tenants' | 'revisions' | 'estate' | 'resources' | 'links'>,
    private readonly access: AccessService,
    private readonly knownUsers: () => Promise<PolicyUser[]> = async () => [],
    /** Namespace patterns (`*` wildcards) anyone may give to their tenant while nobody uses them (KEELSON_FREE_NAMESPACES). */
    private readonly freeNamespaces: readonly string[] = [],
  ) {}

  private get tenants() {
    return this.repos.tenants;
  }

  private signedIn(actor: MaybeActor, what: string): Actor {
    if (!actor) throw unauthorized(what);
    return actor;
  }

  private async tenantOrThrow(name: string) {
    const t = await this.tenants.byName(name);
    if (!t) throw notFound(`Tenant ${name}`);
    return t;
  }

  /** The actor's role in a tenant, or null. */
  private async roleIn(tenantId: number, actor: Actor): Promise<TenantRole | null> {
    const m = (await this.tenants.members(tenantId)).find((x) => x.user === actor.name.toLowerCase());
    return (m?.role as TenantRole | undefined) ?? null;
  }

  /**
   * The actor's effective role for `what`: their membership, or owner for a
   * domain admin (Axebow's operators are not subject to tenants' rules).
   */
  private async requireRole(tenant: { id: number; name: string }, actor: Actor, min: TenantRole, what: string): Promise<TenantRole> {
    const role = (await this.roleIn(tenant.id, actor)) ?? (isDomainAdmin(await this.access.roles(actor)) ? 'owner' : null);
    if (!role || ROLE_RANK[role] < ROLE_RANK[min]) {
      throw new AppError('FORBIDDEN', `You may not ${what} in tenant ${tenant.name}: that needs the ${min} role${min === 'owner' ? '' : ' or above'} (you are ${role ?? 'not a member'}).`);
    }
    return role;
  }

  async list(actor: MaybeActor): Promise<TenantList> {
    const who = this.signedIn(actor, 'see tenants');
    const mine = await this.tenants.membershipsOf(who.name);
    const all = isDomainAdmin(await this.access.roles(who)) ? await this.tenants.list() : [];
    const invitations = await this.tenants.invitations({ user: who.name, status: 'pending' });
    const names = new Set([...mine.map((m) => m.tenant), ...all.map((t) => t.name)]);
    return {
      tenants: [...names].sort().map((name) => ({ name, role: (mine.find((m) => m.tenant === name)?.role as TenantRole | undefined) ?? null })),
      invitations: invitations.map((i) => ({ id: i.id, tenant: i.tenant, role: i.role as TenantRole, invitedBy: i.invitedBy, createdAt: i.createdAt })),
    };
  }

  async get(actor: MaybeActor, name: string): Promise<TenantView> {
    const who = this.signedIn(actor, 'see tenants');
    const t = await this.tenantOrThrow(name);
    const role = await this.roleIn(t.id, who);
    if (!role && !isDomainAdmin(await this.access.roles(who))) throw new AppError('FORBIDDEN', `Only members of tenant ${name} (and domain admins) may see it.`);
    return {
      name: t.name,
      createdBy: t.createdBy,
      createdAt: t.createdAt,
      myRole: role,
      members: (await this.tenants.members(t.id)).map((m) => ({ user: m.user, role: m.role as TenantRole, addedAt: m.addedAt })),
      invitations: (await this.tenants.invitations({ tenantId: t.id, status: 'pending' })).map((i) => ({ id: i.id, user: i.user, role: i.role as TenantRole, invitedBy: i.invitedBy })),
      namespaces: (await this.tenants.namespaces(t.id)).map((n) => n.namespace),
      rules: t.rules,
      links: (await this.repos.links.list(t.id)).map((l) => ({ client: l.fromService, clientChannel: l.fromChannel, server: l.toService, serverChannel: l.toChannel })),
    };
  }

  /**
   * A namespace may join a tenant when no other tenant owns it and the actor
   * administers it (namespace admin there, or domain admin). Without that
   * right, only a namespace nobody uses — no policy objects, named by no ACL
   * rule — that matches a configured free pattern; any other is for a
   * domain admin to hand out (they add it to the tenant). Tenant owners and
   * admins become namespace admins of their namespaces, so taking one is
   * taking its rights.
   */
  private async assertMayClaim(who: Actor, namespaces: string[]) {
    for (const ns of namespaces) {
      if (!IDENTIFIER_RE.test(ns)) throw new AppError('INVALID_INPUT', `"${ns}" is not a valid namespace name.`);
      if (ns === 'system') throw new AppError('FORBIDDEN', 'The system namespace cannot belong to a tenant.');
    }
    const roles = await this.access.roles(who);
    const owned = new Map((await this.tenants.namespaces()).map((n) => [n.namespace, n.tenantId]));
    for (const ns of namespaces) {
      if (owned.has(ns)) throw new AppError('CONFLICT', `Namespace ${ns} already belongs to a tenant.`);
      const role = roleIn(roles, ns);
      if (role === 'domain-admin' || role === 'namespace-admin') continue;
      if (await this.access.namespaceInUse(ns)) {
        throw new AppError('FORBIDDEN', `Namespace ${ns} already holds policy: only its namespace admins or a domain admin may give it to a tenant.`);
      }
      const rule = await this.access.aclRuleNaming(ns);
      if (rule) {
        throw new AppError('FORBIDDEN', `Namespace ${ns} is named by ACL rule ${rule}: only its namespace admins or a domain admin may give it to a tenant.`);
      }
      if (!this.freeNamespaces.some((p) => globMatch(p, ns))) {
        throw new AppError(
          'FORBIDDEN',
          `Namespace ${ns} is not free to take: ask a domain admin to add it to your tenant${this.freeNamespaces.length ? `, or pick a name matching ${this.freeNamespaces.join(', ')}` : ''}.`,
        );
      }
    }
  }

  async create(actor: MaybeActor, input: CreateTenantInput): Promise<{ name: string }> {
    const who = this.signedIn(actor, 'create tenants');
    if (!IDENTIFIER_RE.test(input.name)) throw new AppError('INVALID_INPUT', `"${input.name}" is not a valid tenant name (letters, digits, "_" and "-", starting with a letter).`);
    await this.assertMayClaim(who, input.namespaces);
    if (input.rules) assertRules(input.rules);
    const r = await this.tenants.create({ name: input.name, owner: who.name, namespaces: input.namespaces });
    if (!r.ok) throw new AppError('CONFLICT', r.reason);
    if (input.rules) await this.tenants.setRules(r.tenant.id, input.rules);
    return { name: r.tenant.name };
  }

  /**
   * Replace the tenant's selector rules. They govern where its services may
   * go and who may deploy there, so only its owners and admins set them
   * (Axebow: "policies that can only be established by admins of the
   * tenant"), and a program that can never run is refused here.
   */
  async setRules(actor: MaybeActor, input: { tenant: string; rules: TenantRules }): Promise<TenantView> {
    const who = this.signedIn(actor, 'change tenants');
    const t = await this.tenantOrThrow(input.tenant);
    await this.requireRole(t, who, 'admin', 'set its rules');
    assertRules(input.rules);
    await this.tenants.setRules(t.id, input.rules);
    return this.get(actor, input.tenant);
  }

  async addNamespace(actor: MaybeActor, input: AddNamespaceInput): Promise<{ ok: true }> {
    const who = this.signedIn(actor, 'change tenants');
    const t = await this.tenantOrThrow(input.tenant);
    await this.requireRole(t, who, 'admin', 'add namespaces');
    await this.assertMayClaim(who, [input.namespace]);
    if (!(await this.tenants.addNamespace(t.id, input.namespace))) throw new AppError('CONFLICT', `Namespace ${input.namespace} already belongs to a tenant.`);
    return { ok: true } as const;
  }

  async invite(actor: MaybeActor, input: InviteInput): Promise<{ id: number; status: string }> {
    const who = this.signedIn(actor, 'invite users');
    const t = await this.tenantOrThrow(input.tenant);
    const mine = await this.requireRole(t, who, 'admin', 'invite users');
    if (input.role === 'owner' && mine !== 'owner') throw new AppError('FORBIDDEN', `Only owners of tenant ${t.name} may invite owners.`);
    const known = (await this.knownUsers()).some((u) => u.name.toLowerCase() === input.user.toLowerCase());
    if (!known) throw new AppError('NOT_FOUND', `There is no user "${input.user}".`);
    const inv = await this.tenants.invite({ tenantId: t.id, user: input.user, role: input.role, invitedBy: who.name });
    if (!inv) throw new AppError('CONFLICT', `${input.user} already belongs to tenant ${t.name} or has a pending invitation.`);
    return { id: inv.id, status: inv.status };
  }

  async myInvitations(actor: MaybeActor): Promise<Invitation[]> {
    const who = this.signedIn(actor, 'see invitations');
    return (await this.tenants.invitations({ user: who.name, status: 'pending' })).map((i) => ({ id: i.id, tenant: i.tenant, role: i.role as TenantRole, invitedBy: i.invitedBy }));
  }

  /** Confirm (naming the role offered, as Axebow requires) or reject an invitation. */
  async answer(actor: MaybeActor, input: AnswerInput): Promise<{ tenant: string; status: string }> {
    const who = this.signedIn(actor, 'answer invitations');
    const pending = (await this.tenants.invitations({ user: who.name, status: 'pending' })).find((i) => i.id === input.invitationId);
    if (!pending) throw new AppError('NOT_FOUND', 'You have no such pending invitation.');
    if (input.accept && input.role !== pending.role) {
      throw new AppError('CONFLICT', `The invitation is for the ${pending.role} role, not ${input.role ?? 'none'}; confirm with the role you were offered.`);
    }
    const done = await this.tenants.answer(input.invitationId, who.name, input.accept);
    if (!done) throw new AppError('CONFLICT', 'The invitation was already answered.');
    return { tenant: pending.tenant, status: done.status };
  }

  /** Update a tenant: grant it more policy namespaces (each as addNamespace decides) and/or replace its rules, then show it. */
  async update(actor: MaybeActor, input: { tenant: string; namespaces?: readonly string[]; rules?: TenantRules }): Promise<TenantView> {
    if (input.rules) await this.setRules(actor, { tenant: input.tenant, rules: input.rules });
    for (const namespace of input.namespaces ?? []) await this.addNamespace(actor, { tenant: input.tenant, namespace });
    return this.get(actor, input.tenant);
  }

  /** Answer the caller's pending invitation to a tenant by the tenant's name (the REST API's addressing). */
  async answerForTenant(actor: MaybeActor, input: { tenant: string; accept: boolean; role?: TenantRole }): Promise<{ tenant: string; status: string }> {
    const who = this.signedIn(actor, 'answer invitations');
    const pending = (await this.tenants.invitations({ user: who.name, status: 'pending' })).find((i) => i.tenant === input.tenant.toLowerCase() || i.tenant === input.tenant);
    if (!pending) throw new AppError('NOT_FOUND', `You have no pending invitation to tenant ${input.tenant}.`);
    return this.answer(actor, { invitationId: pending.id, accept: input.accept, role: input.role });
  }

  async changeRole(actor: MaybeActor, input: ChangeRoleInput): Promise<{ user: string; role: TenantRole }> {
    const who = this.signedIn(actor, 'change roles');
    const t = await this.tenantOrThrow(input.tenant);
    const mine = await this.requireRole(t, who, 'admin', 'change roles');
    const target = (await this.tenants.members(t.id)).find((m) => m.user === input.user.toLowerCase());
    if (!target) throw new AppError('NOT_FOUND', `${input.user} is not a member of tenant ${t.name}.`);
    if (ROLE_RANK[input.role] > ROLE_RANK[mine]) throw new AppError('FORBIDDEN', `You may not raise anyone above your own role (${mine}).`);
    if (ROLE_RANK[target.role as TenantRole] > ROLE_RANK[mine]) throw new AppError('FORBIDDEN', `You may not change the role of ${input.user}, who is ${target.role} (you are ${mine}).`);
    const r = await this.tenants.changeMember(t.id, input.user, input.role);
    if (r === 'last-owner') throw new AppError('CONFLICT', `${input.user} is the last owner of tenant ${t.name}; make someone else owner first.`);
    if (r === 'not-member') throw new AppError('NOT_FOUND', `${input.user} is not a member of tenant ${t.name}.`);
    return { user: input.user.toLowerCase(), role: input.role };
  }

  /** Remove a member, or leave (a member removing themselves). */
  async removeMember(actor: MaybeActor, input: RemoveMemberInput): Promise<{ ok: true }> {
    const who = this.signedIn(actor, 'change members');
    const t = await this.tenantOrThrow(input.tenant);
    const self = input.user.toLowerCase() === who.name.toLowerCase();
    const mine = self ? await this.roleIn(t.id, who) : await this.requireRole(t, who, 'admin', 'remove members');
    if (!mine) throw new AppError('NOT_FOUND', `You are not a member of tenant ${t.name}.`);
    const target = (await this.tenants.members(t.id)).find((m) => m.user === input.user.toLowerCase());
    if (!target) throw new AppError('NOT_FOUND', `${input.user} is not a member of tenant ${t.name}.`);
    if (!self && ROLE_RANK[target.role as TenantRole] > ROLE_RANK[mine]) {
      throw new AppError('FORBIDDEN', `You may not remove ${input.user}, who is ${target.role} (you are ${mine}).`);
    }
    const r = await this.tenants.changeMember(t.id, input.user, null);
    if (r === 'last-owner') throw new AppError('CONFLICT', `${input.user} is the last owner of tenant ${t.name} and cannot ${self ? 'leave' : 'be removed'}; make someone else owner first.`);
    return { ok: true } as const;
  }

  async remove(actor: MaybeActor, input: RemoveTenantInput): Promise<{ ok: true }> {
    const who = this.signedIn(actor, 'remove tenants');
    const t = await this.tenantOrThrow(input.tenant);
    await this.requireRole(t, who, 'owner', 'remove the tenant');
    const owners = (await this.tenants.members(t.id)).filter((m) => m.role === 'owner');
    if (owners.length > 1) throw new AppError('CONFLICT', `Tenant ${t.name} has ${owners.length} owners; only a sole owner may remove it.`);
    const namespaces = new Set((await this.tenants.namespaces(t.id)).map((n) => n.namespace));
    const running = (await this.repos.revisions.instanceStates()).filter((s) => s.status === 'applied' && namespaces.has(instanceKey.namespaceOf(s.key)));
    if (running.length > 0) throw new AppError('CONFLICT', `Tenant ${t.name} still runs ${running.length} instances in ${[...namespaces].join(', ')}; remove its claims first.`);
    await this.repos.estate.removeForTenant(t.id);
    await this.repos.resources.removeForTenant(t.id);
    await this.tenants.remove(t.id);
    return { ok: true } as const;
  }

  /** Domain admins: every user's roles and where each came from. */
  async roleMap(actor: MaybeActor): Promise<RoleMap> {
    const who = this.signedIn(actor, 'see roles');
    if (!isDomainAdmin(await this.access.roles(who))) throw new AppError('FORBIDDEN', 'Only domain admins may see everyone’s roles.');
    const users = await this.knownUsers();
    const out = [];
    for (const u of users) {
      const r = await this.access.roles({ id: `local:${u.name}`, name: u.name, labels: u.labels, provider: 'local' });
      out.push({ user: u.name, grants: r.grants, errors: r.errors });
    }
    return out.sort((a, b) => a.user.localeCompare(b.user));
  }

  /** My roles (for the profile page). */
  async myRoles(actor: MaybeActor): Promise<MyRoles> {
    const who = this.signedIn(actor, 'see roles');
    const roles = await this.access.roles(who);
    return { user: who.name, grants: roles.grants, tenants: (await this.tenants.membershipsOf(who.name)).map((m) => ({ tenant: m.tenant, role: m.role as TenantRole })) };
  }
}

/** `*` matches any run of characters; everything else literally. */
function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(name);
}

/** Refuse rules whose programs cannot run, naming each one (`rules.<set>[i].sel`). */
function assertRules(rules: TenantRules): void {
  const problems = checkRules(rules);
  if (problems.length === 0) return;
  throw new AppError('INVALID_INPUT', `The tenant's rules have errors: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, {
    details: { issues: problems.map((p) => ({ where: 'body', path: p.path, message: p.message })) },
  });
}
