import { describe, expect, it } from 'vitest';
import { openFill, oldestReached, parseFill } from '../../src/main/core/engine/session/historyFill';
import type { Trade } from '../../src/shared/api';

const NOW = Date.parse('2026-11-29T08:00:00.000Z');
const trade = (createdAt: string): Trade => ({ createdAt }) as Trade;

describe('a back-fill position', () => {
  it('opens from the mark less 10 minutes, or on the whole history without one', () => {
    expect(openFill('2026-11-28T00:00:00.000Z', NOW)).toEqual({
      from: '2026-11-27T23:50:00.000Z',
      to: '2026-11-29T08:00:00.000Z',
      top: '2026-11-29T08:00:00.000Z',
      done: 0,
      left: null,
    });
    expect(openFill(null, NOW)).toMatchObject({ from: null, to: '2026-11-29T08:00:00.000Z' });
    // A mark ahead of our clock (another machine's) is read as now.
    expect(openFill('2027-01-01T00:00:00.000Z', NOW).from).toBe('2026-11-29T07:50:00.000Z');
  });

  const kept = { from: null, to: '2026-11-28T10:00:00.000Z', top: '2026-11-29T08:00:00.000Z', done: 2, left: 4 };
  it.each([
    ['a position as written', kept, kept],
    ['none', null, null],
    ['a string', 'page 3', null],
    ['no top', { ...kept, top: undefined }, null],
    ['a date that is none', { ...kept, to: '2026-13-45T99:00:00.000Z' }, null],
    ['pages not counted', { ...kept, done: '2' }, null],
    ['a from of another type', { ...kept, from: 12 }, null],
  ])('reads back %s (anything else is none: a new run from the mark, nothing lost)', (_what, stored, expected) => {
    expect(parseFill(stored)).toEqual(expected);
  });

  it.each([
    ['newest first: its last', ['2026-11-28T10:00:00.000Z', '2026-11-28T09:00:00.000Z'], '2026-11-28T09:00:00.000Z'],
    ['ties with the position', ['2026-11-28T12:00:00.000Z', '2026-11-28T12:00:00.000Z'], '2026-11-28T12:00:00.000Z'],
    ['an empty page: where it was', [], '2026-11-28T12:00:00.000Z'],
    ['oldest first: none', ['2026-11-28T09:00:00.000Z', '2026-11-28T10:00:00.000Z'], null],
    ['newer than the position: none', ['2026-11-28T13:00:00.000Z'], null],
  ])('moves to the oldest trade of a page: %s', (_what, createdAt, expected) => {
    expect(oldestReached('2026-11-28T12:00:00.000Z', createdAt.map(trade))).toBe(expected);
  });
});
