import type { RateBucket } from '../../shared/api';
import { RATE_LIMITS, RATE_LIMIT_WINDOW_MS } from '../../shared/api';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the oldest counted request leaves the window. */
  resetMs: number;
}

/**
 * A sliding 60-second window per merchant and bucket: a request is admitted
 * while fewer than `limit` admitted requests lie in the last 60 s of sandbox
 * time. Refused requests are not counted, so a client that waits
 * `Retry-After` seconds always gets through.
 */
export class SlidingWindowRateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly limits: Record<RateBucket, number> = RATE_LIMITS,
  ) {}

  take(merchantId: string, bucket: RateBucket): RateDecision {
    const now = this.now();
    const key = `${bucket}:${merchantId}`;
    const stamps = this.windows.get(key) ?? [];
    const cutoff = now - RATE_LIMIT_WINDOW_MS;
    let expired = 0;
    while (expired < stamps.length && (stamps[expired] as number) <= cutoff) expired++;
    if (expired > 0) stamps.splice(0, expired);
    const limit = this.limits[bucket];
    const allowed = stamps.length < limit;
    if (allowed) stamps.push(now);
    this.windows.set(key, stamps);
    const oldest = stamps[0] ?? now;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - stamps.length),
      resetMs: Math.max(0, oldest + RATE_LIMIT_WINDOW_MS - now),
    };
  }

  reset(): void {
    this.windows.clear();
  }
}
