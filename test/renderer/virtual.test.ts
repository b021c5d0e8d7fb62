import { describe, expect, it } from 'vitest';
import { computeWindow, MAX_SCROLL_PX, rowsPerPage, scrollTopToReveal } from '../../src/renderer/src/lib/virtual';
import { chartGeometry, nearestIndex } from '../../src/renderer/src/lib/chart';
import { fuzzyScore, rankByQuery } from '../../src/renderer/src/lib/fuzzy';

const base = { viewportHeight: 720, rowHeight: 36, overscan: 5 };

describe('computeWindow', () => {
  it('is empty for no rows', () => {
    const w = computeWindow({ ...base, scrollTop: 0, total: 0 });
    expect(w.last).toBeLessThan(w.first);
    expect(w.contentHeight).toBe(0);
  });

  it('renders only visible rows plus overscan', () => {
    const w = computeWindow({ ...base, scrollTop: 3600, total: 10_000 });
    expect(w.first).toBe(100);
    expect(w.last).toBe(119);
    expect(w.renderFirst).toBe(95);
    expect(w.renderLast).toBe(124);
    expect(w.offset).toBe(0);
    expect(w.contentHeight).toBe(360_000);
  });

  it('clamps at both ends', () => {
    const top = computeWindow({ ...base, scrollTop: 0, total: 10 });
    expect([top.renderFirst, top.renderLast]).toEqual([0, 9]);
    const past = computeWindow({ ...base, scrollTop: 99_999_999, total: 1000 });
    expect(past.last).toBe(999);
    expect(past.renderLast).toBe(999);
  });

  it('compresses 500,000 rows into a scrollable height and still reaches the last row', () => {
    const total = 500_000;
    const w0 = computeWindow({ ...base, scrollTop: 0, total });
    expect(w0.contentHeight).toBe(MAX_SCROLL_PX);
    const maxScroll = MAX_SCROLL_PX - base.viewportHeight;
    const end = computeWindow({ ...base, scrollTop: maxScroll, total });
    expect(end.last).toBe(total - 1);
    // The last row sits at the bottom of the viewport.
    const lastTop = end.last * base.rowHeight + end.offset;
    expect(lastTop - maxScroll).toBe(base.viewportHeight - base.rowHeight);
    const mid = computeWindow({ ...base, scrollTop: maxScroll / 2, total });
    expect(Math.abs(mid.first - (total - 20) / 2)).toBeLessThan(2);
    expect(mid.renderLast - mid.renderFirst).toBeLessThan(40);
  });

  it('reveals a row with the least scrolling, compressed or not', () => {
    const input = { scrollTop: 3600, viewportHeight: 720, total: 10_000, rowHeight: 36 };
    expect(scrollTopToReveal(105, input)).toBeNull();
    expect(scrollTopToReveal(99, input)).toBe(3564);
    expect(scrollTopToReveal(120, input)).toBe(121 * 36 - 720);
    expect(scrollTopToReveal(120, input, 'start')).toBe(120 * 36);
    expect(scrollTopToReveal(-1, input)).toBeNull();

    const big = { scrollTop: 0, viewportHeight: 720, total: 500_000, rowHeight: 36 };
    const t = scrollTopToReveal(250_000, big) as number;
    const w = computeWindow({ ...big, scrollTop: t, overscan: 0 });
    expect(w.first).toBeLessThanOrEqual(250_000);
    expect(w.last).toBeGreaterThanOrEqual(250_000);
  });

  it('counts rows per page', () => {
    expect(rowsPerPage(720, 36)).toBe(19);
    expect(rowsPerPage(10, 36)).toBe(1);
  });
});

describe('chartGeometry', () => {
  const box = { width: 100, height: 50, pad: 0 };
  it('returns null without points and a flat line for one', () => {
    expect(chartGeometry([], box)).toBeNull();
    const one = chartGeometry([{ t: 1, v: 5 }], box);
    expect(one?.line).toBe('0,25 100,25');
  });
  it('sorts by time, spans the box, and steps when asked', () => {
    const geo = chartGeometry(
      [
        { t: 20, v: 10 },
        { t: 0, v: 0 },
      ],
      box,
    );
    expect(geo?.minT).toBe(0);
    expect(geo?.maxV).toBe(10);
    expect(geo?.coords[0]?.x).toBe(0);
    expect(geo?.coords[1]?.x).toBe(100);
    // Higher values are drawn higher (smaller y).
    expect(geo?.coords[1]?.y).toBeLessThan(geo?.coords[0]?.y as number);
    const stepped = chartGeometry(
      [
        { t: 0, v: 0 },
        { t: 10, v: 10 },
      ],
      box,
      true,
    );
    expect(stepped?.line.split(' ')).toHaveLength(3);
    expect(stepped?.area.startsWith('M0,50')).toBe(true);
  });
  it('finds the nearest point to the cursor', () => {
    const coords = [{ x: 0 }, { x: 50 }, { x: 100 }];
    expect(nearestIndex(coords, 0.1, box)).toBe(0);
    expect(nearestIndex(coords, 0.45, box)).toBe(1);
    expect(nearestIndex(coords, 1, box)).toBe(2);
  });
});

describe('palette matching', () => {
  it('prefers substrings and word starts', () => {
    expect(fuzzyScore('Go to Trades', '')).toBe(0);
    expect(fuzzyScore('Go to Trades', 'xyz')).toBeNull();
    expect(fuzzyScore('Go to Trades', 'trades')).toBeGreaterThan(
      fuzzyScore('Export trades as CSV', 'trades') as number,
    );
    expect(fuzzyScore('Buy by name', 'bbn')).not.toBeNull();
  });
  it('ranks and keeps order for ties', () => {
    const items = ['Go to Catalog', 'Go to Trades', 'Export trades as CSV', 'Buy by name'];
    expect(rankByQuery(items, 'trad', (s) => s)).toEqual(['Go to Trades', 'Export trades as CSV']);
    expect(rankByQuery(items, '', (s) => s)).toEqual(items);
  });
});
