import { describe, expect, it } from 'vitest';
import { secondsLeft, timeLeftText } from './timeLeft';

const T0 = Date.parse('2026-11-29T08:00:00.000Z');
/** Pages finished every `gapMs`, `count` of them, the first `gapMs` after T0. */
const every = (gapMs: number, count: number, from = T0): number[] =>
  Array.from({ length: count }, (_, i) => from + (i + 1) * gapMs);

describe('secondsLeft: the pace of the last minute of pages', () => {
  it.each([
    // what, pages finished (ms), pages left, started, now, seconds left
    ['nothing left', every(400, 5), 0, T0, T0 + 2_000, 0],
    ['no page yet: unknown', [], 100, T0, T0 + 5_000, null],
    ['just started, nothing measured', [], 100, T0, T0, null],
    ['2 pages a second for 10 s: 100 pages in 50 s', every(500, 20), 100, T0, T0 + 10_000, 50],
    // The bulk share's burst (150 pages in the first 30 s), then a wait for the window: the pace of the last minute.
    ['after a burst of 150 in 30 s, at 60 s: 150 a minute', every(200, 150), 150, T0, T0 + 60_000, 60],
    [
      'the burst is out of the window at 95 s: 25 pages in the last minute',
      every(200, 150).concat(every(1_000, 25, T0 + 70_000)),
      100,
      T0,
      T0 + 95_000,
      240,
    ],
    ['a stall of over a minute: unknown', every(200, 150), 150, T0, T0 + 100_000, null],
    ['rounds up: 2 pages at 3 in 4 s', every(1_000, 3), 2, T0, T0 + 4_000, 3],
  ])('%s', (_what, doneAt, left, startedAt, now, expected) => {
    expect(secondsLeft(doneAt, left, startedAt, now)).toBe(expected);
  });
});

describe('timeLeftText', () => {
  it.each([
    [null, null, null],
    [0, 'less than a minute left', 'less than a minute left'],
    [59, 'less than a minute left', 'less than a minute left'],
    [60, 'about 1 min left', 'about 1 minute left'],
    [170, 'about 3 min left', 'about 3 minutes left'],
    [3_540, 'about 59 min left', 'about 59 minutes left'],
    [3_600, 'about 1 h left', 'about 1 hour left'],
    [2 * 3_600 + 5 * 60, 'about 2 h 5 min left', 'about 2 hours 5 minutes left'],
  ])('%s s: "%s"', (seconds, shown, spoken) => {
    expect(timeLeftText(seconds)).toBe(shown);
    expect(timeLeftText(seconds, true)).toBe(spoken);
  });
});
