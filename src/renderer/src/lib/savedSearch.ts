import type { AlertRuleInput, SavedSearch, SavedSearchInput, SavedSearchQuery } from '../../../shared/ipc/contract';
import { formatNumberList } from '../../../shared/filters';
import { type CatalogFilters, type CatalogSort, toCatalogQuery, type TriState } from './catalogQuery';
import { centsToInput } from './format';

/** How each filter of a saved query is named to the user (what a watch cannot carry, what this screen cannot show). */
export const QUERY_FILTER_LABELS: Record<Exclude<keyof SavedSearchQuery, 'sort' | 'direction'>, string> = {
  search: 'search text',
  priceMin: 'minimum price',
  priceMax: 'maximum price',
  rarityColors: 'rarity',
  floatMin: 'float min',
  floatMax: 'float max',
  phase: 'phase',
  statTrak: 'StatTrak',
  souvenir: 'souvenir',
  hasStickers: 'has stickers',
  stickerName: 'sticker name',
  seeds: 'paint seeds',
  wears: 'wear',
  hasCharm: 'has a charm',
  charmName: 'charm name',
  charmPatterns: 'charm patterns',
  stickerCountMin: 'sticker count',
  sameStickerMin: 'n × the same sticker',
  stickerNames: 'any of sticker names',
  excludeWords: 'excluded words',
  discountMin: 'under reference by',
  floatRankMax: 'float rank',
  listingsMin: 'listings on sale',
};

type FilterKey = keyof typeof QUERY_FILTER_LABELS;
const FILTER_KEYS = Object.keys(QUERY_FILTER_LABELS) as FilterKey[];

/** The query the catalog's filter form and sort describe, as a saved search keeps it. */
export function queryOfForm(filters: CatalogFilters, sort: CatalogSort): SavedSearchInput['query'] {
  return toCatalogQuery(filters, sort);
}

const triOf = (value: boolean | null): TriState => (value === null ? 'any' : value ? 'yes' : 'no');
const numberText = (value: number | null): string => (value === null ? '' : String(value));

/**
 * The filter form and sort for a saved query, and the filters of it the form cannot hold (named for the user):
 * whatever does not come back unchanged through the form is reported, never dropped silently.
 */
export function formOfQuery(query: SavedSearchQuery): {
  filters: CatalogFilters;
  sort: CatalogSort;
  notShown: string[];
} {
  const filters: CatalogFilters = {
    search: query.search,
    priceMin: centsToInput(query.priceMin),
    priceMax: centsToInput(query.priceMax),
    rarityColors: [...query.rarityColors],
    floatMin: numberText(query.floatMin),
    floatMax: numberText(query.floatMax),
    phase: query.phase ?? '',
    statTrak: triOf(query.statTrak),
    souvenir: triOf(query.souvenir),
    hasStickers: triOf(query.hasStickers),
    stickerName: query.stickerName,
    seeds: formatNumberList(query.seeds),
    seedRanges: query.seeds,
    wears: [...query.wears],
    hasCharm: triOf(query.hasCharm),
    charmName: query.charmName,
    charmPatterns: formatNumberList(query.charmPatterns),
    charmPatternRanges: query.charmPatterns,
    stickerCountMin: numberText(query.stickerCountMin),
    sameStickerMin: numberText(query.sameStickerMin),
    stickerNames: query.stickerNames.join(', '),
    excludeWords: query.excludeWords,
    discountMin: numberText(query.discountMin),
    floatRankMax: numberText(query.floatRankMax),
    listingsMin: numberText(query.listingsMin),
  };
  const sort: CatalogSort = { column: query.sort, direction: query.direction };
  const back: Partial<Record<FilterKey, unknown>> = queryOfForm(filters, sort);
  // A filter the form's query leaves out is at its default there: lost only if the saved one sets it.
  const lost = (key: FilterKey) =>
    key in back ? JSON.stringify(back[key]) !== JSON.stringify(query[key]) : isSet(query, key);
  const notShown = FILTER_KEYS.filter(lost).map((key) => QUERY_FILTER_LABELS[key]);
  return { filters, sort, notShown };
}

/** A filter left at its default narrows nothing. */
function isSet(query: SavedSearchQuery, key: FilterKey): boolean {
  const value = query[key];
  if (value === null || value === '') return false;
  return !(Array.isArray(value) && value.length === 0);
}

/** An alert rule watching a saved search: every filter of it, its maximum price as the rule's own (auto-buy's cap). */
export function watchOf(search: SavedSearch): AlertRuleInput {
  const { sort: _sort, direction: _direction, ...filters } = search.query;
  return { name: search.name, enabled: true, filters, maxPrice: search.query.priceMax };
}
