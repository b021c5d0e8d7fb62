import { vi } from 'vitest';
import { waitFor } from '../waitFor';

/**
 * A fake clock for a whole stage (sandbox, proxy, engine in this process): vitest's fake setTimeout,
 * setInterval and Date, which flow with real time while the stage is set and are fast-forwarded through
 * the long waits (a fault window, a Retry-After, a poll, a rate window), so seconds or minutes of the
 * engine's timers pass in a fraction of that. I/O stays real: each step lets sockets and the store's worker run.
 */

// Captured at import, before a test fakes the clock: the pauses between steps are real.
const realSetTimeout = globalThis.setTimeout;
const realSleep = (ms: number): Promise<void> => new Promise((resolve) => realSetTimeout(resolve, ms));

/** Fakes the timers and Date of everything created from now on; they advance with real time until fast-forwarded. */
export function useFlowingFakeClock(): void {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    shouldAdvanceTime: true,
    advanceTimeDelta: 10,
  });
}

export function useRealClock(): void {
  vi.useRealTimers();
}

/**
 * Moves fake time forward by up to `ms` in 1 s steps, letting real I/O run between steps; stops early once `until`
 * holds. Returns the fake time that passed.
 */
export async function fastForward(ms: number, until?: () => Promise<boolean> | boolean): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    await vi.advanceTimersByTimeAsync(1_000);
    await realSleep(15);
    if (until && (await until())) break;
  }
  return Date.now() - start;
}

/**
 * waitFor's twin on the fake clock: fast-forwards (at most `ms` of fake time) until `check` returns something
 * truthy, and returns that. Real I/O (a download on a busy machine) may need longer than the pauses between steps
 * gave it: then it waits up to `ms` more in real time, the clock flowing with it, and throws naming `what`.
 */
export async function reach<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms: number,
  what: string,
): Promise<T> {
  let value = await check();
  if (!value) await fastForward(ms, async () => Boolean((value = await check())));
  return value || waitFor(check, ms, `${what} (after ${ms} ms of fake time)`);
}

/** Fast-forwards until `promise` settles (at most `ms` of fake time), and returns what it gives. */
export async function settle<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let outcome: { value: T } | { error: unknown } | null = null;
  void promise.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  const settled = await reach(() => outcome, ms, what);
  if ('error' in settled) throw settled.error;
  return settled.value;
}
