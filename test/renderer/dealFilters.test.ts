// The deal filters of the catalog form (issue 26): seed and charm-pattern lists pasted as text, wear
// buttons, charms, sticker combos, excluded words, discount and float rank, as the form holds them and as
// the engine query carries them (checked against the IPC contract's own schema, as main validates it).
import { describe, expect, it } from 'vitest';
import {
  activeFilterCount,
  catalogQueryKey,
  DEFAULT_SORT,
  EMPTY_FILTERS,
  filterProblems,
  filtersForSort,
  nextSort,
  toCatalogQuery,
  withFilterEdit,
} from '../../src/renderer/src/lib/catalogQuery';
import { formatDiscount, formatFloatRank } from '../../src/renderer/src/lib/format';
import { catalogQuerySchema } from '../../src/shared/ipc/contract';

const engineQuery = (filters: typeof EMPTY_FILTERS) =>
  catalogQuerySchema.parse({ ...toCatalogQuery(filters, DEFAULT_SORT), offset: 0, limit: 100 });

describe('paint seed list', () => {
  it('parses a pasted list into the ranges the query carries', () => {
    const f = withFilterEdit(EMPTY_FILTERS, { seeds: '661, 670, 955, 1-25' });
    expect(f.seeds).toBe('661, 670, 955, 1-25');
    expect(filterProblems(f).seeds).toBeUndefined();
    expect(engineQuery(f).seeds).toEqual([
      [1, 25],
      [661, 661],
      [670, 670],
      [955, 955],
    ]);
    expect(activeFilterCount(f)).toBe(1);
  });

  it('keeps the last good list while the text does not parse, and says why', () => {
    const good = withFilterEdit(EMPTY_FILTERS, { seeds: '661, 670' });
    const bad = withFilterEdit(good, { seeds: '661, 670, 9x5' });
    // What was typed stays in the field (nothing lost), the query keeps the last list that parsed.
    expect(bad.seeds).toBe('661, 670, 9x5');
    expect(engineQuery(bad).seeds).toEqual([
      [661, 661],
      [670, 670],
    ]);
    expect(catalogQueryKey(bad, DEFAULT_SORT)).toBe(catalogQueryKey(good, DEFAULT_SORT));
    expect(filterProblems(bad).seeds).toMatch(/"9x5" is not a number or a range like 1-25/);
    expect(filterProblems(bad).seeds).toMatch(/661, 670/);

    const pastMax = withFilterEdit(good, { seeds: '1000' });
    expect(filterProblems(pastMax).seeds).toMatch(/past 999/);
    expect(engineQuery(pastMax).seeds).toEqual([
      [661, 661],
      [670, 670],
    ]);

    // Fixed: the new list applies and the error goes.
    const fixed = withFilterEdit(bad, { seeds: '661, 670, 955' });
    expect(filterProblems(fixed).seeds).toBeUndefined();
    expect(engineQuery(fixed).seeds).toEqual([
      [661, 661],
      [670, 670],
      [955, 955],
    ]);
    // Emptied: no seed filter.
    expect(engineQuery(withFilterEdit(fixed, { seeds: '  ' })).seeds).toEqual([]);
  });

  it('names the bad list when none was good yet', () => {
    const bad = withFilterEdit(EMPTY_FILTERS, { seeds: 'blue gems' });
    expect(filterProblems(bad).seeds).toMatch(/"blue" is not a number/);
    expect(filterProblems(bad).seeds).toMatch(/no seed filter/i);
    expect(engineQuery(bad).seeds).toEqual([]);
  });
});

describe('charm filters', () => {
  it('carries has-charm, a charm name and a pattern list up to the charm pattern maximum', () => {
    const f = withFilterEdit(EMPTY_FILTERS, {
      hasCharm: 'yes',
      charmName: ' Lil Squirt ',
      charmPatterns: '100000, 5-9',
    });
    expect(engineQuery(f)).toMatchObject({
      hasCharm: true,
      charmName: 'Lil Squirt',
      charmPatterns: [
        [5, 9],
        [100000, 100000],
      ],
    });
    expect(activeFilterCount(f)).toBe(3);
    expect(engineQuery(withFilterEdit(f, { hasCharm: 'no' })).hasCharm).toBe(false);

    const tooHigh = withFilterEdit(f, { charmPatterns: '100001' });
    expect(filterProblems(tooHigh).charmPatterns).toMatch(/past 100000/);
    expect(engineQuery(tooHigh).charmPatterns).toEqual([
      [5, 9],
      [100000, 100000],
    ]);
  });
});

describe('wear buttons', () => {
  it('sends the pressed wears in band order (one query whatever the pressing order)', () => {
    const a = withFilterEdit(EMPTY_FILTERS, { wears: ['WW', 'FN'] });
    const b = withFilterEdit(EMPTY_FILTERS, { wears: ['FN', 'WW'] });
    expect(engineQuery(a).wears).toEqual(['FN', 'WW']);
    expect(catalogQueryKey(a, DEFAULT_SORT)).toBe(catalogQueryKey(b, DEFAULT_SORT));
    expect(activeFilterCount(a)).toBe(1);
  });
});

describe('sticker filters and excluded words', () => {
  it('turns counts, n× the same, a comma-separated list of names and excluded words into the query', () => {
    const f = withFilterEdit(EMPTY_FILTERS, {
      stickerCountMin: '3',
      sameStickerMin: '4',
      stickerNames: ' Crown (Foil), , iBUYPOWER | Katowice 2014 ,Titan',
      excludeWords: ' Souvenir  StatTrak ',
    });
    expect(engineQuery(f)).toMatchObject({
      stickerCountMin: 3,
      sameStickerMin: 4,
      stickerNames: ['Crown (Foil)', 'iBUYPOWER | Katowice 2014', 'Titan'],
      excludeWords: 'Souvenir StatTrak',
    });
    expect(activeFilterCount(f)).toBe(4);
  });

  it('refuses counts out of range and too many names, leaving them out of the query', () => {
    const f = withFilterEdit(EMPTY_FILTERS, {
      stickerCountMin: '0',
      stickerNames: Array.from({ length: 21 }, (_, i) => `Sticker ${i}`).join(', '),
    });
    expect(filterProblems(f)).toMatchObject({
      stickerCountMin: expect.stringMatching(/1 to 10/),
      stickerNames: expect.stringMatching(/at most 20/i),
    });
    expect(engineQuery(f)).toMatchObject({ stickerCountMin: null, stickerNames: [] });
    expect(filterProblems(withFilterEdit(EMPTY_FILTERS, { stickerCountMin: '2.5' })).stickerCountMin).toBeDefined();
    expect(filterProblems(withFilterEdit(EMPTY_FILTERS, { stickerNames: 'x'.repeat(257) })).stickerNames).toMatch(
      /256/,
    );
  });
});

describe('discount and float rank', () => {
  it('carries "at least N % under reference" and "float rank ≤ k"', () => {
    const f = withFilterEdit(EMPTY_FILTERS, { discountMin: '15', floatRankMax: '3' });
    expect(engineQuery(f)).toMatchObject({ discountMin: 15, floatRankMax: 3 });
    expect(engineQuery(withFilterEdit(f, { discountMin: '12.5 %' })).discountMin).toBe(12.5);
    expect(activeFilterCount(f)).toBe(2);
  });

  it('refuses what the engine would refuse', () => {
    const f = withFilterEdit(EMPTY_FILTERS, { discountMin: '101', floatRankMax: '0' });
    expect(filterProblems(f)).toMatchObject({ discountMin: expect.any(String), floatRankMax: expect.any(String) });
    expect(engineQuery(f)).toMatchObject({ discountMin: null, floatRankMax: null });
    expect(filterProblems(withFilterEdit(EMPTY_FILTERS, { discountMin: 'ten' })).discountMin).toBeDefined();
    expect(filterProblems(withFilterEdit(EMPTY_FILTERS, { floatRankMax: '1.5' })).floatRankMax).toBeDefined();
  });

  it('carries "at least N on sale" as a whole number from 1 to 100000, and refuses anything else', () => {
    const f = withFilterEdit(EMPTY_FILTERS, { listingsMin: ' 5 ' });
    expect(engineQuery(f).listingsMin).toBe(5);
    expect(filterProblems(f).listingsMin).toBeUndefined();
    expect(activeFilterCount(f)).toBe(1);
    expect(engineQuery(withFilterEdit(EMPTY_FILTERS, { listingsMin: '100000' })).listingsMin).toBe(100_000);
    for (const bad of ['0', '2.5', 'five', '-3', '100001']) {
      const form = withFilterEdit(EMPTY_FILTERS, { listingsMin: bad });
      expect(filterProblems(form).listingsMin, bad).toBe('A whole number from 1 to 100000, e.g. 5');
      expect(engineQuery(form).listingsMin, bad).toBeNull();
    }
  });

  it('sorts by discount biggest first, by float rank lowest first', () => {
    expect(nextSort(DEFAULT_SORT, 'discount')).toEqual({ column: 'discount', direction: 'desc' });
    expect(nextSort({ column: 'discount', direction: 'desc' }, 'discount')).toEqual({
      column: 'discount',
      direction: 'asc',
    });
    expect(nextSort(DEFAULT_SORT, 'floatRank')).toEqual({ column: 'floatRank', direction: 'asc' });
  });

  it('starts the discount sort from $1 unless a minimum price is set, and never sets it again on a flip', () => {
    const deals = { column: 'discount', direction: 'desc' } as const;
    expect(filtersForSort(EMPTY_FILTERS, DEFAULT_SORT, deals)).toEqual({ ...EMPTY_FILTERS, priceMin: '1' });
    expect(engineQuery(filtersForSort(EMPTY_FILTERS, DEFAULT_SORT, deals)).priceMin).toBe(100);
    const own = { ...EMPTY_FILTERS, priceMin: '0.10' };
    expect(filtersForSort(own, DEFAULT_SORT, deals)).toBe(own);
    // Cleared while sorted by discount: the flip to ascending keeps it cleared.
    expect(filtersForSort(EMPTY_FILTERS, deals, { column: 'discount', direction: 'asc' })).toBe(EMPTY_FILTERS);
    expect(filtersForSort(EMPTY_FILTERS, DEFAULT_SORT, { column: 'float', direction: 'asc' })).toBe(EMPTY_FILTERS);
  });

  it('an empty form asks for none of them', () => {
    expect(engineQuery(EMPTY_FILTERS)).toMatchObject({
      seeds: [],
      wears: [],
      hasCharm: null,
      charmName: '',
      charmPatterns: [],
      stickerCountMin: null,
      sameStickerMin: null,
      stickerNames: [],
      excludeWords: '',
      discountMin: null,
      floatRankMax: null,
      listingsMin: null,
    });
    expect(activeFilterCount(EMPTY_FILTERS)).toBe(0);
  });
});

describe('market standing display', () => {
  it('writes a discount under the reference as -N % (the minus of every amount) and over it as +N %', () => {
    expect(formatDiscount(23.4)).toBe('-23\u00a0%');
    expect(formatDiscount(-12.6)).toBe('+13\u00a0%');
    expect(formatDiscount(0.2)).toBe('0\u00a0%');
    expect(formatDiscount(-0.4)).toBe('0\u00a0%');
    // Far over the reference (a cent skin carrying a $2,400 sticker): three digits at most.
    expect(formatDiscount(-999.4)).toBe('+999\u00a0%');
    expect(formatDiscount(-8_000_000)).toBe('>\u00a0+999\u00a0%');
  });

  it('writes a float rank as #k of N, or a dash without a float', () => {
    expect(formatFloatRank(2, 418)).toBe('#2 of 418');
    expect(formatFloatRank(1, 1200)).toBe('#1 of 1,200');
    expect(formatFloatRank(null, 12)).toBe('—');
  });
});

describe('a range whose minimum passes its maximum', () => {
  it('is said on the minimum and left out of the query, for price and float alike', () => {
    const f = withFilterEdit(EMPTY_FILTERS, { priceMin: '50', priceMax: '10', floatMin: '0.5', floatMax: '0.2' });
    expect(filterProblems(f)).toEqual({
      priceMin: 'Above the maximum price ($10.00): nothing would match',
      floatMin: 'Above the maximum float (0.2): nothing would match',
    });
    expect(engineQuery(f)).toMatchObject({ priceMin: null, priceMax: 1000, floatMin: null, floatMax: 0.2 });
    // Equal ends are a range of one value.
    const same = withFilterEdit(EMPTY_FILTERS, { priceMin: '10', priceMax: '10.00' });
    expect(filterProblems(same)).toEqual({});
    expect(engineQuery(same)).toMatchObject({ priceMin: 1000, priceMax: 1000 });
  });
});
