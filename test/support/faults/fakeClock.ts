import { expect, vi } from 'vitest';

/**
 * A fake clock for a whole stage (sandbox, proxy, engine in this process): vitest's fake setTimeout,
 * setInterval and Date, which flow with real time while the stage is set and are fast-forwarded through
 * the long waits (a fault window, a Retry-After), so seconds or minutes of the engine's timers pass in
 * a fraction of that. I/O stays real: each step lets sockets and the store's worker run.
 */

// Captured at import, before a test fakes the clock: the pauses between steps are real.
const realSetTimeout = globalThis.setTimeout;
/** A pause in real time, whatever the clock (for pumps and waits between fake steps). */
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

/** Fast-forwards until `check` holds (at most `ms` of fake time), then asserts that it does. */
export async function reach(ms: number, check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  await fastForward(ms, check);
  expect(await check(), what).toBe(true);
}
