import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../../src/server/clock';

/** Spins until the wall clock has moved on by `ms` (so a real millisecond boundary is crossed). */
function spin(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: the point is that real time passes inside the callback
  }
}

describe('sandbox test clock', () => {
  it('fires due timers in order on advance, each callback reading exactly its own due time', async () => {
    const clock = new SandboxClock();
    const start = clock.now();
    const seen: { label: string; dueAt: number; readAt: number[] }[] = [];
    const at = (label: string, offsetMs: number) => {
      const dueAt = start + offsetMs;
      clock.schedule(dueAt, label, () => {
        const first = clock.now();
        spin(3);
        seen.push({ label, dueAt, readAt: [first, clock.now()] });
      });
    };
    at('late', 3_600_000);
    at('early', 600_000);
    at('middle', 1_800_000);
    await clock.advance(2 * 3600);
    expect(seen.map((s) => s.label)).toEqual(['early', 'middle', 'late']);
    for (const s of seen) expect(s.readAt).toEqual([s.dueAt, s.dueAt]);
    // After the advance, time flows again from the target.
    expect(clock.now()).toBeGreaterThanOrEqual(start + 2 * 3600 * 1000);
    clock.stop();
  });

  it('pins only the synchronous part: an awaited callback lets time flow for everyone else', async () => {
    const clock = new SandboxClock();
    const dueAt = clock.now() + 60_000;
    let afterAwait = 0;
    clock.schedule(dueAt, 'async', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      afterAwait = clock.now();
    });
    await clock.advance(120);
    expect(afterAwait).toBeGreaterThan(dueAt);
    clock.stop();
  });

  it('refuses a negative or non-finite advance', async () => {
    const clock = new SandboxClock();
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(RangeError);
    clock.stop();
  });
});
