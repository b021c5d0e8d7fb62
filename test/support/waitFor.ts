// Captured at import, before a test fakes the clock: a wait polls and times out in real time, whatever fake clock a
// test has installed (a fake clock's waits are fastForward/reach in faults/fakeClock.ts).
const realSetTimeout = globalThis.setTimeout;
const realNow = Date.now;

/**
 * Polls `check` every `everyMs` until it returns something truthy, and returns that; throws after `timeoutMs` of real
 * time, naming `what` (a function: read at the time-out, e.g. the log of what the engine did meanwhile).
 */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 20_000,
  what: string | (() => string) = 'condition',
  everyMs = 20,
): Promise<T> {
  const deadline = realNow() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (realNow() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => realSetTimeout(resolve, everyMs));
  }
}
