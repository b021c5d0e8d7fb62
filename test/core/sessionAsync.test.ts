import { describe, expect, it } from 'vitest';
import { type Clock, Debouncer, Pacer, Throttler, Timers } from '../../src/main/core/async';

/** A clock whose time moves only when told: timers fire in order of their due time. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  let nextId = 0;
  const due = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout: (callback, ms) => {
      due.set(++nextId, { at: now + ms, callback });
      return nextId;
    },
    clearTimeout: (handle) => void due.delete(handle as number),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const next = [...due.entries()]
          .filter(([, t]) => t.at <= end)
          .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (!next) break;
        due.delete(next[0]);
        now = next[1].at;
        next[1].callback();
      }
      now = end;
    },
  };
}

/** A task whose end the test decides. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('Throttler', () => {
  it('runs one task at a time; calls queued meanwhile collapse into one follow-up that runs the latest task', async () => {
    const throttler = new Throttler();
    const ran: string[] = [];
    const first = gate();
    const a = throttler.queue(async () => {
      ran.push('a');
      await first.opened;
    });
    const b = throttler.queue(async () => void ran.push('b'));
    const c = throttler.queue(async () => void ran.push('c'));
    expect(b).toBe(c);
    expect(throttler.busy).toBe(true);
    first.open();
    await Promise.all([a, b, c]);
    expect(ran).toEqual(['a', 'c']);
    expect(throttler.busy).toBe(false);
  });

  it('join waits for the run under way (or the one queued) without asking for another', async () => {
    const throttler = new Throttler();
    const ran: string[] = [];
    const first = gate();
    const a = throttler.queue(async () => {
      ran.push('a');
      await first.opened;
    });
    const joined = throttler.join(async () => void ran.push('never'));
    expect(joined).toBe(a);
    const queued = throttler.queue(async () => void ran.push('b'));
    expect(throttler.join(async () => void ran.push('never'))).toBe(queued);
    first.open();
    await queued;
    expect(ran).toEqual(['a', 'b']);
    await throttler.join(async () => void ran.push('idle'));
    expect(ran).toEqual(['a', 'b', 'idle']);
  });

  it('a failed task rejects its callers, and the follow-up still runs', async () => {
    const throttler = new Throttler();
    const first = gate();
    const failing = throttler.queue(async () => {
      await first.opened;
      throw new Error('boom');
    });
    const next = throttler.queue(async () => {});
    first.open();
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBeUndefined();
    expect(throttler.busy).toBe(false);
  });

  it('never runs two tasks at once when calls arrive as a run settles', async () => {
    const throttler = new Throttler();
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await Promise.resolve();
      running--;
    };
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      calls.push(throttler.queue(task));
      if (i % 3 === 0) await Promise.resolve();
    }
    await Promise.all(calls);
    expect(most).toBe(1);
  });
});

describe('Timers on an injected clock', () => {
  it('later and every fire on the clock, and none fires after dispose', () => {
    const clock = manualClock();
    const timers = new Timers(clock);
    const fired: string[] = [];
    timers.later(100, () => fired.push(`once@${clock.now()}`));
    timers.every(40, () => fired.push(`tick@${clock.now()}`));
    clock.advance(130);
    expect(fired).toEqual(['tick@40', 'tick@80', 'once@100', 'tick@120']);
    timers.dispose();
    clock.advance(1_000);
    expect(fired).toHaveLength(4);
  });

  it('a cancelled timer does not fire; a stopped `every` stops', () => {
    const clock = manualClock();
    const timers = new Timers(clock);
    let count = 0;
    const cancel = timers.later(10, () => count++);
    const stop = timers.every(10, () => count++);
    cancel();
    clock.advance(25);
    stop();
    clock.advance(100);
    expect(count).toBe(2);
  });

  it('sleep resolves when its time comes, or at once when the timers are disposed', async () => {
    const clock = manualClock();
    const timers = new Timers(clock);
    const slept: string[] = [];
    const short = timers.sleep(50).then(() => slept.push('short'));
    const long = timers.sleep(10_000).then(() => slept.push('long'));
    clock.advance(50);
    await short;
    expect(slept).toEqual(['short']);
    timers.dispose();
    await long;
    expect(slept).toEqual(['short', 'long']);
    await timers.sleep(1_000); // disposed: no wait at all
  });

  it('Debouncer runs once, the delay after the last schedule; flush drops a pending run', () => {
    const clock = manualClock();
    const timers = new Timers(clock);
    let runs = 0;
    const debouncer = new Debouncer(timers, 100, () => runs++);
    debouncer.schedule();
    clock.advance(60);
    debouncer.schedule();
    clock.advance(60);
    expect(runs).toBe(0);
    clock.advance(40);
    expect(runs).toBe(1);
    debouncer.schedule();
    expect(debouncer.flush()).toBe(true);
    clock.advance(500);
    expect(runs).toBe(1);
    expect(debouncer.flush()).toBe(false);
  });

  it('Pacer runs at once when idle, then at most once a gap however often it is asked; calls meanwhile share a run', () => {
    const clock = manualClock();
    const timers = new Timers(clock);
    const runs: number[] = [];
    const pacer = new Pacer(timers, 500, () => runs.push(clock.now()));
    pacer.schedule();
    clock.advance(0);
    expect(runs).toEqual([0]);
    for (let at = 100; at <= 1_200; at += 100) {
      clock.advance(100);
      pacer.schedule();
    }
    clock.advance(1_000);
    expect(runs).toEqual([0, 500, 1_000, 1_500]);
    clock.advance(2_000);
    pacer.schedule();
    clock.advance(0);
    expect(runs.at(-1)).toBe(4_200); // idle again: at once
  });
});
