/**
 * Failed sign-ins are limited per account and per address: past the limit
 * the sign-in route answers 429 with Retry-After until the oldest failure
 * in the window ages out. Kept in the process (a console process sees the
 * sign-ins it serves; behind a load balancer without stickiness each
 * process holds its own count, so the effective limit is multiplied by the
 * number of processes — still bounded).
 *
 * The account is the one the password check would look up
 * (`signInAccount`), whatever spelling or body encoding the name came in.
 */
import { LOCAL_PROVIDER_ID } from './identity';
import { signInAccount } from './users';

export interface RateLimitPolicy {
  windowMs: number;
  perAccount: number;
  perAddress: number;
}

export const DEFAULT_SIGN_IN_LIMITS: RateLimitPolicy = { windowMs: 15 * 60_000, perAccount: 5, perAddress: 30 };

export class SignInLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly policy: RateLimitPolicy = DEFAULT_SIGN_IN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const since = this.now() - this.policy.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** The counts a sign-in as `typed` from `address` falls under: its account's (when it names one) and its address's. */
  private keys(typed: unknown, address: string): [key: string, max: number][] {
    const account = signInAccount(typed);
    const keys: [string, number][] = [[`ip:${address}`, this.policy.perAddress]];
    if (account !== null) keys.push([`a:${account}`, this.policy.perAccount]);
    return keys;
  }

  /** Seconds to wait before trying again, or 0 when a sign-in may be tried now. */
  retryAfter(typed: unknown, address: string): number {
    let wait = 0;
    for (const [key, max] of this.keys(typed, address)) {
      const list = this.recent(key);
      if (list.length >= max) wait = Math.max(wait, list[list.length - max]! + this.policy.windowMs - this.now());
    }
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  fail(typed: unknown, address: string): void {
    const t = this.now();
    for (const [key] of this.keys(typed, address)) this.failures.set(key, [...this.recent(key), t]);
    // Bound the memory an attacker can make us hold: drop the oldest keys.
    if (this.failures.size > 100_000) {
      for (const k of [...this.failures.keys()].slice(0, 10_000)) this.failures.delete(k);
    }
  }

  succeed(typed: unknown): void {
    const account = signInAccount(typed);
    if (account !== null) this.failures.delete(`a:${account}`);
  }
}

const g = globalThis as unknown as { __keelsonSignInLimiter?: SignInLimiter };
/** The process's limiter (shared by the route and next-auth's authorize). */
export function signInLimiter(): SignInLimiter {
  g.__keelsonSignInLimiter ??= new SignInLimiter();
  return g.__keelsonSignInLimiter;
}

/**
 * The user name next-auth hands the credentials provider, read from the body
 * as next-auth reads it (`getBody` in next-auth/next/utils): JSON when the
 * content type mentions application/json, else a form when it mentions
 * application/x-www-form-urlencoded (a repeated field's last value, as
 * `Object.fromEntries` keeps it); nothing otherwise, and then next-auth has
 * no credentials to check either.
 */
export async function signInName(req: Request): Promise<unknown> {
  const type = req.headers.get('content-type') ?? '';
  const text = await req.clone().text();
  if (type.includes('application/json')) {
    try {
      const body = JSON.parse(text) as unknown;
      return body !== null && typeof body === 'object' ? (body as Record<string, unknown>).username : undefined;
    } catch {
      return undefined; // next-auth fails on it too, before any password is checked
    }
  }
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text)).username;
  return undefined;
}

/**
 * A local sign-in (next-auth's `callback/local`, as its route parameters
 * name it, so `/callback/local/x` is one too) past the failure limit of its account or address: 429 with
 * Retry-After before any password is checked. Null for anything else.
 */
export async function refuseOverLimit(
  req: Request,
  route: { action?: string; provider?: string },
  limiter: SignInLimiter = signInLimiter(),
  trustedProxies?: number,
): Promise<Response | null> {
  if (req.method !== 'POST' || route.action !== 'callback' || route.provider !== LOCAL_PROVIDER_ID) return null;
  const wait = limiter.retryAfter(await signInName(req), clientAddress(req.headers, trustedProxies));
  if (wait === 0) return null;
  // next-auth's client reads `url` and its `error` parameter; the form explains it.
  const url = new URL('/signin', req.url);
  url.searchParams.set('error', 'TooManyAttempts');
  return Response.json({ url: url.toString(), message: `Too many failed sign-ins: try again in ${wait} s.` }, { status: 429, headers: { 'Retry-After': String(wait) } });
}

/**
 * The client address a sign-in is counted against. X-Forwarded-For's left
 * entries are whatever the client wrote; each proxy appends the address it
 * received the request from. With `trustedProxies` proxies in front
 * (KEELSON_TRUSTED_PROXIES), the entry the outermost one appended is the
 * client. With none, the last entry (Next.js writes the socket address when
 * the client sent no header) — spoofable by a client that sends its own,
 * which is why a public deployment belongs behind a proxy that sets it.
 */
export function clientAddress(
  headers: { get(name: string): string | null } | Record<string, unknown> | undefined,
  trustedProxies = Number(process.env.KEELSON_TRUSTED_PROXIES ?? 0) || 0,
): string {
  const get = (n: string): string | null => {
    if (!headers) return null;
    if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(name: string): string | null }).get(n);
    const v = (headers as Record<string, unknown>)[n];
    return typeof v === 'string' ? v : Array.isArray(v) ? String(v[0]) : null;
  };
  const hops = (get('x-forwarded-for') ?? '').split(',').map((h) => h.trim()).filter(Boolean);
  if (hops.length > 0) return hops[Math.max(0, hops.length - Math.max(1, trustedProxies))]!;
  return get('x-real-ip')?.trim() || 'local';
}
