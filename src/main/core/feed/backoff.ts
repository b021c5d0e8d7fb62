/**
 * Reconnect delays: exponential backoff with jitter.
 *
 * The base delay of attempt n (1-based) is `initialMs · 2^(n−1)`, capped at `maxMs`.
 * Jitter takes a random share of it off: the delay is uniform in
 * `[base · (1 − jitter), base]`. `jitter = 0.5` is "equal jitter", `jitter = 1` is
 * "full jitter"; either way the delay never exceeds the cap, so clients that lost
 * the server together spread out instead of returning in one wave.
 */

export interface BackoffOptions {
  /** Base delay of the first attempt. */
  initialMs: number;
  /** Cap of the base delay (and so of every delay). */
  maxMs: number;
  /** Share of the base delay that is randomized, 0..1. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1000, maxMs: 60_000, jitter: 0.5 };

/** Base delay of attempt `attempt` (1-based) before jitter. */
export function backoffBase(attempt: number, options: Pick<BackoffOptions, 'initialMs' | 'maxMs'>): number {
  const n = Math.max(1, Math.floor(attempt));
  // 2^(n−1) overflows to Infinity for huge n, and min() then gives the cap: no special case needed.
  return Math.min(options.maxMs, options.initialMs * 2 ** (n - 1));
}

/**
 * Delay before attempt `attempt` (1-based), in whole milliseconds.
 * `random` returns a number in [0, 1), like Math.random.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const base = backoffBase(attempt, options);
  const jitter = clamp(options.jitter, 0, 1);
  const r = clamp(random(), 0, 1);
  return Math.round(base * (1 - jitter * r));
}

/** Checks and fills backoff options; throws on nonsense so a typo cannot become a reconnect storm. */
export function resolveBackoff(options: Partial<BackoffOptions> = {}): BackoffOptions {
  const resolved: BackoffOptions = {
    initialMs: options.initialMs ?? DEFAULT_BACKOFF.initialMs,
    maxMs: options.maxMs ?? DEFAULT_BACKOFF.maxMs,
    jitter: options.jitter ?? DEFAULT_BACKOFF.jitter,
  };
  if (!(resolved.initialMs > 0) || !Number.isFinite(resolved.initialMs))
    throw new RangeError('backoff.initialMs must be > 0');
  if (!(resolved.maxMs >= resolved.initialMs) || !Number.isFinite(resolved.maxMs)) {
    throw new RangeError('backoff.maxMs must be finite and >= backoff.initialMs');
  }
  if (!(resolved.jitter >= 0 && resolved.jitter <= 1)) throw new RangeError('backoff.jitter must be within 0..1');
  return resolved;
}

function clamp(value: number, min: number, max: number): number {
  if (Number.isNaN(value)) return min;
  return Math.min(max, Math.max(min, value));
}
