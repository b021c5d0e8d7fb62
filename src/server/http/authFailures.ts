import { RATE_LIMIT_WINDOW_MS } from '../../shared/api';
import { ApiError } from '../domain/apiError';

export const AUTH_FAILURES_MESSAGE = 'Rate limit exceeded: too many failed authentications from this address';

/** Addresses remembered at most; the oldest entry goes first, so memory stays bounded under spoofed floods. */
const MAX_TRACKED_ADDRESSES = 10_000;

/**
 * Failed authentications per source address in a sliding 60-second window of sandbox time.
 * Once an address has `limit` failures in the window, every request from it is refused
 * before its credentials are looked at, so a right guess looks like a wrong one until the
 * oldest failure leaves the window. REST and the WebSocket upgrade share one limiter.
 */
export class AuthFailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly limit: number,
  ) {}

  /** A 429 `rate_limited` with Retry-After while `address` is over the limit, else null. */
  refusal(address: string): ApiError | null {
    const stamps = this.current(address);
    if (stamps.length < this.limit) return null;
    const oldest = stamps[0] ?? this.now();
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + RATE_LIMIT_WINDOW_MS - this.now()) / 1000));
    return new ApiError(429, 'rate_limited', AUTH_FAILURES_MESSAGE, { 'Retry-After': String(retryAfterSeconds) });
  }

  recordFailure(address: string): void {
    const stamps = this.current(address);
    stamps.push(this.now());
    // Re-inserted so the map's order is least recently failed first.
    this.failures.delete(address);
    this.failures.set(address, stamps);
    if (this.failures.size > MAX_TRACKED_ADDRESSES) {
      const stalest = this.failures.keys().next().value;
      if (stalest !== undefined) this.failures.delete(stalest);
    }
  }

  reset(): void {
    this.failures.clear();
  }

  /** The address's failures still in the window (expired ones dropped). */
  private current(address: string): number[] {
    const stamps = this.failures.get(address);
    if (!stamps) return [];
    const cutoff = this.now() - RATE_LIMIT_WINDOW_MS;
    let expired = 0;
    while (expired < stamps.length && (stamps[expired] as number) <= cutoff) expired++;
    if (expired > 0) stamps.splice(0, expired);
    if (stamps.length === 0) this.failures.delete(address);
    return stamps;
  }
}
