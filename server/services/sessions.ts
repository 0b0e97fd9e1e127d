/**
 * Console sessions. next-auth's cookie is a signed JWT that lasts hours;
 * on its own, signing out only forgets it in that browser, and a copy kept
 * elsewhere went on working. Each sign-in is therefore a row (its id
 * travels in the JWT), and a session counts only while its row is there:
 * signing out, the user's removal and a revoke (by a domain admin, or the
 * user: "sign out everywhere") delete rows, and a changed password ends the
 * sessions its old one began. Checked on every request through kept reads
 * (repo/sessions.ts): no query while nothing changed.
 */
import { randomBytes } from 'node:crypto';
import { findUser } from '../engine/model/users';
import type { Repos } from '../repo/types';
import type { AccessService } from './access';
import type { MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from '../errors';
import type { UserService } from './users';

export class SessionService {
  constructor(
    private readonly repos: Repos,
    private readonly access: AccessService,
    private readonly users: UserService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * A sign-in of `userId`: a new session, lasting `seconds` from now however
   * often its cookie is renewed. Its id goes into the session's JWT.
   * `credential`: what a password sign-in proved (`passwordCredential`).
   */
  async begin(input: { userId: string; credential: string | null; seconds: number }): Promise<string> {
    const id = randomBytes(24).toString('base64url');
    const now = this.now();
    await this.repos.sessions.add({ id, userId: input.userId, credential: input.credential, expiresAt: new Date(now.getTime() + input.seconds * 1000) }, now);
    return id;
  }

  /**
   * Whether session `id` still counts for `userId`: begun here, not ended,
   * not expired, and — begun with a password — that password still the
   * user's (`credential`: what the users file proves now). A JWT from
   * before sessions were kept names none, and counts for nobody.
   */
  async live(id: unknown, userId: string, credential: string | null): Promise<boolean> {
    if (typeof id !== 'string' || id === '') return false;
    const r = await this.repos.sessions.get(id);
    if (!r || r.userId !== userId || r.expiresAt <= this.now()) return false;
    return r.credential === null || r.credential === credential;
  }

  /** Sign-out: the session ends on the server, for every copy of its cookie. */
  async end(id: unknown): Promise<void> {
    if (typeof id === 'string' && id !== '') await this.repos.sessions.remove(id);
  }

  /** Every session of an account ends (the user removed themselves, say). */
  async endAllOf(userId: string): Promise<number> {
    return this.repos.sessions.removeAllOf(userId);
  }

  /**
   * End every console session of a user, named as policy names them: a
   * domain admin may for anyone, a user for themselves (signing out
   * everywhere). API tokens are separate credentials (tokens.revoke).
   */
  async revoke(actor: MaybeActor, input: { user: string }): Promise<{ user: string; ended: number }> {
    if (!actor) throw unauthorized('end sessions');
    const self = input.user.toLowerCase() === actor.name.toLowerCase();
    if (!self && !(await this.access.isDomainAdmin(actor))) throw new AppError('FORBIDDEN', `Only domain admins may end another user's sessions; you may end your own (${actor.name}).`);
    const ids = new Set<string>(self ? [actor.id] : []);
    const local = findUser(this.users.localUsers(), input.user);
    if (local) ids.add(`local:${local.name}`);
    for (const u of await this.repos.users.listUsers()) if (u.name.toLowerCase() === input.user.toLowerCase()) ids.add(u.id);
    if (ids.size === 0) throw notFound(`User ${input.user}`);
    let ended = 0;
    for (const id of ids) ended += await this.repos.sessions.removeAllOf(id);
    return { user: local?.name ?? input.user, ended };
  }
}
