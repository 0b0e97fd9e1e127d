/**
 * API tokens: bearer credentials for the REST API and the CLI, acting for
 * the user who made them. A token is `kst_` + 32 random bytes; only its
 * SHA-256 hash is stored, so a database read does not yield usable tokens.
 * A token acts with its user's current labels (rebuilt on every use), and
 * stops working when it is revoked, expires, or its user is gone.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { verifyLocalUser } from '../auth/users';
import type { SignInLimiter } from '../auth/rate-limit';
import type { Repos } from '../repo/types';
import type { TokenRow } from '../repo/tokens.types';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { AppError, notFound, unauthorized } from '../errors';
import type { CreateTokenInput, NewToken, TokenView } from './tokens.types';
import type { UserService } from './users';

const PREFIX = 'kst_';
const TOKEN_RE = /^kst_[A-Za-z0-9_-]{43}$/;
/** Tokens got with a password last this long. */
const PASSWORD_GRANT_DAYS = 30;
/** `lastUsedAt` is written at most this often per token (a busy client would otherwise write on every call). */
const TOUCH_MS = 60_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export class TokenService {
  constructor(
    private readonly repos: Repos,
    private readonly access: AccessService,
    private readonly users: UserService,
    private readonly limiter: SignInLimiter,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private view(r: TokenRow): TokenView {
    return { id: r.id, name: r.name, prefix: r.prefix, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, expiresAt: r.expiresAt, revokedAt: r.revokedAt };
  }

  private async issue(owner: { id: string; name: string }, name: string, days: number | undefined): Promise<NewToken> {
    const token = PREFIX + randomBytes(32).toString('base64url');
    const expiresAt = days ? new Date(this.now().getTime() + days * 86_400_000) : null;
    const r = await this.repos.tokens.add({ userId: owner.id, userName: owner.name, name, prefix: token.slice(PREFIX.length, PREFIX.length + 8), hash: sha256(token), expiresAt });
    return { id: r.id, name: r.name, prefix: r.prefix, createdAt: r.createdAt, expiresAt: r.expiresAt, token };
  }

  async create(actor: MaybeActor, input: CreateTokenInput): Promise<NewToken> {
    if (!actor) throw unauthorized('create API tokens');
    return this.issue(actor, input.name, input.expiresInDays);
  }

  async list(actor: MaybeActor): Promise<TokenView[]> {
    if (!actor) throw unauthorized('see your API tokens');
    return (await this.repos.tokens.forUser(actor.id)).map((r) => this.view(r));
  }

  /** Revoke one of your tokens (a domain admin may revoke anyone's). */
  async revoke(actor: MaybeActor, id: number): Promise<TokenView> {
    if (!actor) throw unauthorized('revoke API tokens');
    const r = await this.repos.tokens.byId(id);
    // Someone else's token is "not found" to a non-admin: ids do not tell whose tokens exist.
    if (!r || (r.userId !== actor.id && !(await this.access.isDomainAdmin(actor)))) throw notFound(`Token ${id}`);
    await this.repos.tokens.revoke(id, this.now());
    return this.view((await this.repos.tokens.byId(id))!);
  }

  /** The user a bearer token acts for; null for anything but a live token of an existing user. */
  async authenticate(raw: string): Promise<Actor | null> {
    if (!TOKEN_RE.test(raw)) return null;
    const hash = sha256(raw);
    const r = await this.repos.tokens.byHash(hash);
    // The lookup is by hash; comparing again in constant time keeps a timing side channel off the stored value.
    if (!r || !timingSafeEqual(Buffer.from(r.hash), Buffer.from(hash))) return null;
    const now = this.now();
    if (r.revokedAt || (r.expiresAt && r.expiresAt <= now)) return null;
    const actor = await this.actorFor(r);
    if (!actor) return null;
    if (!r.lastUsedAt || now.getTime() - r.lastUsedAt.getTime() > TOUCH_MS) await this.repos.tokens.touch(r.id, now);
    return actor;
  }

  /** The token's user as they are now: labels from the users file (local) or as recorded at their last sign-in (OIDC). */
  private async actorFor(r: TokenRow): Promise<Actor | null> {
    if (r.userId.startsWith('local:')) {
      const u = this.users.localUsers().find((x) => x.name.toLowerCase() === r.userName.toLowerCase());
      return u ? { id: r.userId, name: u.name, labels: u.labels, provider: 'local' } : null;
    }
    const u = await this.repos.users.getUser(r.userId);
    return u && u.name === r.userName ? { id: r.userId, name: u.name, labels: u.labels, provider: 'oidc' } : null;
  }

  /**
   * A token for a local user's name and password (the CLI's `keelson
   * login`). Counted by the same limiter as console sign-ins, so it is no
   * way around it.
   */
  async issueForPassword(input: { username: string; password: string; address: string }): Promise<{ token: string; expiresAt: Date | null }> {
    const wait = this.limiter.retryAfter(input.username, input.address);
    if (wait > 0) {
      throw new AppError('LIMIT_EXCEEDED', `Too many failed sign-ins; try again in ${wait} s.`, { details: { restStatus: 429, restCode: 'TooManyRequests', retryAfterSeconds: wait } });
    }
    const user = await verifyLocalUser(this.users.localUsers(), input.username, input.password);
    if (!user) {
      this.limiter.fail(input.username, input.address);
      throw new AppError('UNAUTHORIZED', 'The user name or password is wrong.');
    }
    this.limiter.succeed(input.username);
    const t = await this.issue({ id: `local:${user.name}`, name: user.name }, `password grant ${this.now().toISOString()}`, PASSWORD_GRANT_DAYS);
    return { token: t.token, expiresAt: t.expiresAt };
  }
}
