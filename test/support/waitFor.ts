// Captured at import, before a test fakes the clock: a wait polls and times out in real time, whatever fake clock a
// test has installed (a fake clock's waits are fastForward/reach in faults/fakeClock.ts).
const realSetTimeout = globalThis.setTimeout;
const realNow = Date.now;

/**
 * Polls `check` every `everyMs` until it returns something truthy, and returns that; throws after `timeoutMs` of real
 * time, naming `what`.
 */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 20_000,
  what = 'condition',
  everyMs = 20,
): Promise<T> {
  const deadline = realNow() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (realNow() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => realSetTimeout(resolve, everyMs));
  }
}
