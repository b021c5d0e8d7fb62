import { describe, expect, it } from 'vitest';
import { type CatalogFilters, EMPTY_FILTERS } from '../../src/renderer/src/lib/catalogQuery';
import { filterSummary } from '../../src/renderer/src/lib/filterSummary';
import { formOfQuery, queryOfForm, watchOf } from '../../src/renderer/src/lib/savedSearch';
import { withoutAccountScope } from '../../src/renderer/src/state/accountScope';
import { initialState } from '../../src/renderer/src/state/store';
import { savedSearchQuerySchema, type SavedSearch } from '../../src/shared/ipc/contract';

const search = (name: string, query: Record<string, unknown>): SavedSearch => ({
  id: `id-${name}`,
  name,
  query: savedSearchQuerySchema.parse(query),
  createdAt: '2026-11-26T08:00:00.000Z',
  updatedAt: '2026-11-26T08:00:00.000Z',
});

describe('saved searches in the renderer', () => {
  it('a filter form saved and opened again is the same form and sort', () => {
    const filters: CatalogFilters = {
      search: 'Karambit',
      priceMin: '12.50',
      priceMax: '250.00',
      rarityColors: ['#eb4b4b'],
      floatMin: '0.01',
      floatMax: '0.07',
      phase: 'Ruby',
      statTrak: 'no',
      souvenir: 'any',
      hasStickers: 'yes',
      stickerName: 'Crown',
      seeds: '1-25, 661, 955',
      seedRanges: [
        [1, 25],
        [661, 661],
        [955, 955],
      ],
      wears: ['FN', 'MW'],
      hasCharm: 'yes',
      charmName: 'Baby',
      charmPatterns: '10-20',
      charmPatternRanges: [[10, 20]],
      stickerCountMin: '3',
      sameStickerMin: '4',
      stickerNames: 'Crown (Foil), Howl',
      excludeWords: 'Souvenir Case',
      discountMin: '12.5',
      floatRankMax: '3',
      listingsMin: '5',
    };
    const sort = { column: 'float', direction: 'desc' } as const;
    const saved = savedSearchQuerySchema.parse(queryOfForm(filters, sort));
    expect(formOfQuery(saved)).toEqual({ filters, sort, notShown: [] });
    expect(formOfQuery(savedSearchQuerySchema.parse(queryOfForm(EMPTY_FILTERS, sort)))).toEqual({
      filters: EMPTY_FILTERS,
      sort,
      notShown: [],
    });
  });

  it('opening a saved query the form cannot hold as it is names what it leaves out, never drops it silently', () => {
    // A float the form would write in exponent notation, which its float field does not take back.
    const { filters, notShown } = formOfQuery(
      search('tiny', { search: 'AWP', floatMax: 0.0000001, seeds: [[661, 661]] }).query,
    );
    expect(filters).toMatchObject({ search: 'AWP', seeds: '661' });
    expect(notShown).toEqual(['float max']);
  });

  it("a watch carries every filter of the search (its maximum price also as the rule's own), and its summary names them", () => {
    const saved = search('Ruby karambits', {
      search: 'Karambit Doppler',
      phase: 'Ruby',
      floatMin: 0.01,
      floatMax: 0.05,
      priceMin: 100,
      priceMax: 250_000,
      stickerNames: ['Crown', 'Howl'],
      seeds: [
        [1, 25],
        [661, 661],
      ],
      hasCharm: true,
      discountMin: 20,
      listingsMin: 5,
      statTrak: false,
      sort: 'discount',
    });
    const { sort: _sort, direction: _direction, ...filters } = saved.query;
    expect(watchOf(saved)).toEqual({ name: 'Ruby karambits', enabled: true, filters, maxPrice: 250_000 });
    expect(filterSummary(saved.query)).toEqual([
      '“Karambit Doppler”',
      'price $1.00–$2,500.00',
      'float 0.01–0.05',
      'Ruby',
      'no StatTrak™',
      'seeds 1-25, 661',
      'with a charm',
      'any of Crown, Howl',
      '≥ 20 % under reference',
      '≥ 5 on sale',
    ]);
  });

  it("another account's page drops the saved searches the page held (the new account's are read again)", () => {
    const state = {
      ...initialState(),
      searches: { list: [search('mine', { search: 'AWP' })], status: 'ready' as const },
    };
    expect(withoutAccountScope(state).searches).toEqual({ list: [], status: 'idle' });
  });
});
