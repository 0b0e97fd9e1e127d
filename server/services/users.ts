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
import type { Profile, UserSummary } from './users.types';

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
    const stored = await this.repos.users.getUser(actor.id);
    return {
      id: actor.id,
      name: actor.name,
      provider: actor.provider,
      email: stored?.email ?? null,
      labels: actor.labels,
    };
  }
}
