/**
 * Users and profiles: who exists (users file + people who signed in through
 * OIDC), their labels, and sign-in bookkeeping.
 */
import { loadLocalUsers } from '../auth/users';
import type { PolicyUser } from '../engine/model/users';
import type { Env } from '../env';
import type { Repos } from '../repo/types';
import type { MaybeActor } from './actor';
import { AppError, unauthorized } from './errors';
import type { Profile, RegisterInput, UserSummary } from './users.types';

export type { Profile } from './users.types';

export class UserService {
  constructor(
    private readonly repos: Repos,
    /** `demoUsers: false` with no users file: no local users at all (production without a users file). */
    private readonly env: Pick<Env, 'usersFile'> & Partial<Pick<Env, 'demoUsers'>>,
  ) {}

  /** Users as policy sees them: the users file plus OIDC users who signed in. */
  async policyUsers(): Promise<PolicyUser[]> {
    const local = this.localUsers();
    const known = new Set(local.map((u) => u.name.toLowerCase()));
    const remote = (await this.repos.users.listUsers())
      .filter((u) => u.provider !== 'local' && !known.has(u.name.toLowerCase()))
      .map((u) => ({ name: u.name, labels: u.labels, secrets: {} }));
    return [...local, ...remote];
  }

  localUsers(): PolicyUser[] {
    if (!this.env.usersFile && this.env.demoUsers === false) return [];
    return loadLocalUsers(this.env.usersFile);
  }

  async recordSignIn(u: { id: string; name: string; email: string | null; provider: string; labels: Record<string, string> }) {
    await this.repos.users.upsertUser(u);
  }

  /**
   * Every user the platform knows (local users file and OIDC users who
   * signed in): names, providers and labels, never secrets. Operators only
   * (domain admins): it lists people.
   */
  async list(actor: MaybeActor, access: { isDomainAdmin(a: MaybeActor): Promise<boolean> }): Promise<UserSummary[]> {
    if (!actor) throw unauthorized('list users');
    if (!(await access.isDomainAdmin(actor))) throw new AppError('FORBIDDEN', 'Only domain admins (operators) may list users.');
    const local = this.localUsers().map((u) => ({ name: u.name, provider: 'local', labels: u.labels }));
    const known = new Set(local.map((u) => u.name.toLowerCase()));
    const remote = (await this.repos.users.listUsers())
      .filter((u) => !known.has(u.name.toLowerCase()))
      .map((u) => ({ name: u.name, provider: u.provider, labels: u.labels }));
    return [...local, ...remote].sort((a, b) => a.name.localeCompare(b.name));
  }

  async profile(actor: MaybeActor): Promise<Profile> {
    if (!actor) throw unauthorized('see your profile');
    const [stored, registration, memberships] = await Promise.all([
      this.repos.users.getUser(actor.id),
      this.repos.users.registration(actor.id),
      this.repos.tenants.membershipsOf(actor.name),
    ]);
    return {
      id: actor.id,
      name: actor.name,
      provider: actor.provider,
      email: stored?.email ?? null,
      labels: actor.labels,
      tenants: Object.fromEntries(memberships.map((m) => [m.tenant, m.role])),
      registration: registration ? { name: registration.name, surname: registration.surname, ...registration.details, registeredAt: registration.registeredAt } : null,
    };
  }

  /** Axebow registration: the signed-in user records who they are; once (409 after). */
  async register(actor: MaybeActor, input: RegisterInput): Promise<{ userid: string }> {
    if (!actor) throw unauthorized('register');
    const { name, surname, ...rest } = input;
    const details = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Record<string, string>;
    if (!(await this.repos.users.register({ userId: actor.id, name, surname, details }))) {
      throw new AppError('CONFLICT', `User ${actor.name} is registered already.`, { details: { restCode: 'AlreadyRegistered' } });
    }
    return { userid: actor.id };
  }

  /**
   * Remove the calling user: their tenant memberships, API tokens,
   * registration and sign-in record. Refused while they are the last owner
   * of a tenant (it would be left without one), and then nothing changes.
   * A local user stays in the users file (an operator edits it); they lose
   * everything Keelson keeps for them.
   */
  async remove(actor: MaybeActor): Promise<{ ok: true }> {
    if (!actor) throw unauthorized('remove your user');
    const memberships = await this.repos.tenants.membershipsOf(actor.name);
    const lastOwnerOf: string[] = [];
    for (const m of memberships) {
      if (m.role !== 'owner') continue;
      const owners = (await this.repos.tenants.members(m.tenantId)).filter((x) => x.role === 'owner');
      if (owners.length === 1) lastOwnerOf.push(m.tenant);
    }
    if (lastOwnerOf.length > 0) {
      throw new AppError('CONFLICT', `${actor.name} is the last owner of tenant ${lastOwnerOf.join(', ')}: hand it to another owner, or remove it, first.`, { details: { restCode: 'LastOwner', tenants: lastOwnerOf } });
    }
    for (const m of memberships) await this.repos.tenants.changeMember(m.tenantId, m.user, null);
    const now = new Date();
    for (const t of await this.repos.tokens.forUser(actor.id)) if (!t.revokedAt) await this.repos.tokens.revoke(t.id, now);
    await this.repos.users.removeUser(actor.id);
    return { ok: true };
  }
}
