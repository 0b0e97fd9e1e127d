/**
 * Users and profiles: who exists (users file + people who signed in through
 * OIDC), their labels, and sign-in bookkeeping.
 */
import { loadLocalUsers } from '../auth/users';
import type { PolicyUser } from '../engine/model/users';
import type { Env } from '../env';
import type { Repos } from '../repo/types';
import type { Actor, MaybeActor } from './actor';
import { IdentityRefused, type IdentityVerifier, type VerifiedIdentity } from '../auth/oidc-verify';
import { AppError, notFound, unauthorized } from '../errors';
import type { Profile, RegisterInput, UserSummary } from './users.types';

export type { Profile } from './users.types';

export class UserService {
  constructor(
    private readonly repos: Repos,
    /** `demoUsers: false` with no users file: no local users at all (production without a users file). */
    private readonly env: Pick<Env, 'usersFile'> & Partial<Pick<Env, 'demoUsers'>>,
    /** The OpenID providers this platform trusts for profiles (the configured OIDC sign-in, if any). */
    private readonly verifiers: readonly IdentityVerifier[] = [],
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
      profiles: await this.profilesOf(actor),
    };
  }

  /** The user's profiles: the one they signed up with (`native`), and the provider identities linked since. */
  private async profilesOf(actor: Actor): Promise<Profile['profiles']> {
    const out: Profile['profiles'] = { [actor.provider]: { subject: actor.id, email: null, native: true, addedAt: null } };
    for (const p of await this.repos.users.profiles(actor.id)) out[p.provider] = { subject: p.subject, email: p.email, native: false, addedAt: p.addedAt };
    return out;
  }

  /**
   * Link an OpenID provider identity to the calling user (Axebow §4.2): the
   * token must be the provider's, for this platform, unexpired. Afterwards,
   * signing in with that identity acts as this user. Refused when the user
   * has a profile for the provider, when the identity is linked to someone
   * else, or when it has signed in on its own (its own account would be
   * orphaned) — and then nothing changes.
   */
  async addProfile(actor: MaybeActor, input: { jwt: string }, via: 'token' | 'session' = 'session'): Promise<{ ok: true; provider: string }> {
    if (!actor) throw unauthorized('add a profile');
    // A link is a lasting way in: an API token (which may leak, and expires) must not be able to mint one.
    if (via === 'token') throw new AppError('FORBIDDEN', 'Link a profile from a signed-in console session, not with an API token.');
    const verifier = this.verifiers[0];
    if (!verifier) throw new AppError('INVALID_INPUT', 'This platform trusts no OpenID provider (KEELSON_OIDC_ISSUER is not set): there is nothing to link.');
    if (actor.provider === verifier.provider) {
      throw new AppError('CONFLICT', `${actor.name} signs in with ${verifier.provider} already: that is their ${verifier.provider} profile.`, { details: { restCode: 'ProfileExists' } });
    }
    let identity: VerifiedIdentity;
    try {
      identity = await verifier.verify(input.jwt);
    } catch (e) {
      if (e instanceof IdentityRefused) throw new AppError('INVALID_INPUT', `The ${verifier.provider} token was refused: ${e.message}`);
      throw e;
    }
    const own = await this.repos.users.getUser(identity.subject);
    if (own) throw new AppError('CONFLICT', `That ${verifier.provider} identity has its own Keelson account (${own.name}); it cannot be linked to another.`, { details: { restCode: 'IdentityInUse' } });
    const linked = await this.repos.users.profileBySubject(identity.subject);
    if (linked && linked.userId !== actor.id) throw new AppError('CONFLICT', `That ${verifier.provider} identity is linked to another user.`, { details: { restCode: 'IdentityInUse' } });
    if (!(await this.repos.users.addProfile({ userId: actor.id, provider: verifier.provider, subject: identity.subject, email: identity.email }))) {
      throw new AppError('CONFLICT', `${actor.name} has a ${verifier.provider} profile already: remove it first.`, { details: { restCode: 'ProfileExists' } });
    }
    return { ok: true, provider: verifier.provider };
  }

  /** Unlink a provider profile; never the one the user signs up with (it is how they are known). */
  async removeProfile(actor: MaybeActor, provider: string): Promise<{ ok: true }> {
    if (!actor) throw unauthorized('remove a profile');
    if (provider === actor.provider) throw new AppError('CONFLICT', `${provider} is ${actor.name}'s only way in: it cannot be removed.`, { details: { restCode: 'OnlyProfile' } });
    if (!(await this.repos.users.removeProfile(actor.id, provider))) throw notFound(`A ${provider} profile of ${actor.name}`);
    return { ok: true };
  }

  /** A single sign-on account as recorded at its last sign-in (its policy name and labels); undefined when there is none. */
  async recorded(id: string) {
    return this.repos.users.getUser(id);
  }

  /** Whom a provider identity acts as when it signs in: the user it is linked to, if any. */
  async linkedUser(subject: string): Promise<string | undefined> {
    return (await this.repos.users.profileBySubject(subject))?.userId;
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
   * console sessions, registration and sign-in record. Refused while they are the last owner
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
    // Signed in elsewhere too: those sessions end with the user, not when their cookies run out.
    await this.repos.sessions.removeAllOf(actor.id);
    await this.repos.users.removeUser(actor.id);
    return { ok: true };
  }
}
