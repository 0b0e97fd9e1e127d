/**
 * Requests per caller, as a token bucket: `burst` requests at once, refilled
 * at `perSecond`. Past it the API answers 429 with Retry-After. Kept in
 * process memory: it protects this process; several processes each hold
 * their own buckets.
 */
export interface RateLimitOptions {
  perSecond: number;
  burst: number;
  /** Buckets idle this long are forgotten (bounded memory under many callers). */
  idleMs?: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep = 0;

  constructor(
    private readonly opts: RateLimitOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** 0 when the request may go ahead; otherwise the seconds to wait. */
  take(key: string): number {
    const t = this.now();
    this.sweep(t);
    const b = this.buckets.get(key) ?? { tokens: this.opts.burst, at: t };
    b.tokens = Math.min(this.opts.burst, b.tokens + ((t - b.at) / 1000) * this.opts.perSecond);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.opts.perSecond));
  }

  private sweep(t: number) {
    const idle = this.opts.idleMs ?? 10 * 60_000;
    if (t - this.lastSweep < idle) return;
    this.lastSweep = t;
    for (const [k, b] of this.buckets) if (t - b.at > idle) this.buckets.delete(k);
  }
}
