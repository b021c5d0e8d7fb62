import type { CATALOG_SORT_COLUMNS, CatalogQuery } from '../../../shared/ipc/contract';
import {
  CHARM_PATTERN_MAX,
  formatNumberList,
  LISTINGS_MIN_MAX,
  type NumberRange,
  parseNumberList,
  SEED_MAX,
  WEARS,
  type Wear,
} from '../../../shared/filters';
import { formatCents, parseDollarsToCents } from '../../../shared/money';
import { parseUnitFloat } from './format';

/** What the engine can sort by: the contract's list (a column the store learns to sort by needs no change here). */
export type CatalogSortColumn = (typeof CATALOG_SORT_COLUMNS)[number];
export type SortDirection = 'asc' | 'desc';
export type TriState = 'any' | 'yes' | 'no';

/** The filter form as typed (strings), so half-typed values survive re-renders. */
export interface CatalogFilters {
  search: string;
  priceMin: string;
  priceMax: string;
  rarityColors: string[];
  floatMin: string;
  floatMax: string;
  phase: string;
  statTrak: TriState;
  souvenir: TriState;
  hasStickers: TriState;
  stickerName: string;
  /** Paint seeds as typed or pasted ("661, 670, 955, 1-25"). */
  seeds: string;
  /** The last seed list that parsed: what the query asks while the text does not parse. */
  seedRanges: readonly NumberRange[];
  wears: Wear[];
  hasCharm: TriState;
  charmName: string;
  charmPatterns: string;
  charmPatternRanges: readonly NumberRange[];
  /** At least this many stickers. */
  stickerCountMin: string;
  /** '' or 2–5: at least that many of one sticker. */
  sameStickerMin: string;
  /** Any of these sticker names, comma-separated. */
  stickerNames: string;
  excludeWords: string;
  /** At least this many percent under the name's reference price. */
  discountMin: string;
  floatRankMax: string;
  /** At least this many of the name on sale. */
  listingsMin: string;
}

export interface CatalogSort {
  column: CatalogSortColumn;
  direction: SortDirection;
}

export const EMPTY_FILTERS: CatalogFilters = {
  search: '',
  priceMin: '',
  priceMax: '',
  rarityColors: [],
  floatMin: '',
  floatMax: '',
  phase: '',
  statTrak: 'any',
  souvenir: 'any',
  hasStickers: 'any',
  stickerName: '',
  seeds: '',
  seedRanges: [],
  wears: [],
  hasCharm: 'any',
  charmName: '',
  charmPatterns: '',
  charmPatternRanges: [],
  stickerCountMin: '',
  sameStickerMin: '',
  stickerNames: '',
  excludeWords: '',
  discountMin: '',
  floatRankMax: '',
  listingsMin: '',
};

export const DEFAULT_SORT: CatalogSort = { column: 'price', direction: 'asc' };

/** Which filter fields hold text that does not parse (shown red, left out of the query). */
export interface FilterProblems {
  priceMin?: string;
  priceMax?: string;
  floatMin?: string;
  floatMax?: string;
  seeds?: string;
  charmPatterns?: string;
  stickerCountMin?: string;
  sameStickerMin?: string;
  stickerNames?: string;
  discountMin?: string;
  floatRankMax?: string;
  listingsMin?: string;
}

/** The most sticker names one query takes, and the longest name (the IPC contract's bounds). */
const MAX_STICKER_NAMES = 20;
const MAX_NAME_LENGTH = 256;

/**
 * Apply an edit to the form. A pasted list that parses becomes the list the query asks; one that does not
 * stays in its field (shown with its error) while the query keeps the last list that parsed.
 */
export function withFilterEdit(f: CatalogFilters, patch: Partial<CatalogFilters>): CatalogFilters {
  const next = { ...f, ...patch };
  if (patch.seeds !== undefined) {
    const parsed = parseNumberList(patch.seeds, SEED_MAX);
    if (parsed.ok) next.seedRanges = parsed.ranges;
  }
  if (patch.charmPatterns !== undefined) {
    const parsed = parseNumberList(patch.charmPatterns, CHARM_PATTERN_MAX);
    if (parsed.ok) next.charmPatternRanges = parsed.ranges;
  }
  return next;
}

function listProblem(text: string, max: number, applied: readonly NumberRange[], what: string): string | undefined {
  const parsed = parseNumberList(text, max);
  if (parsed.ok) return undefined;
  const keeps = applied.length > 0 ? `still showing ${formatNumberList(applied)}` : `no ${what} filter applied`;
  return `${parsed.error} (${keeps}).`;
}

/** A whole number in min..max; null when blank; undefined when it does not parse. */
function wholeNumber(text: string, min: number, max: number): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^\d{1,7}$/u.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return n >= min && n <= max ? n : undefined;
}

/** A percentage ("15", "12.5 %") in -1000..100; null when blank; undefined when it does not parse. */
function percent(text: string): number | null | undefined {
  const trimmed = text.trim().replace(/\s*%$/u, '');
  if (trimmed === '') return null;
  if (!/^-?\d{1,4}(?:\.\d{1,2})?$/u.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return n >= -1000 && n <= 100 ? n : undefined;
}

/** The comma-separated sticker names, trimmed, blanks dropped. */
function splitNames(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function stickerNamesProblem(text: string): string | undefined {
  const names = splitNames(text);
  if (names.length > MAX_STICKER_NAMES) return `At most ${MAX_STICKER_NAMES} names (got ${names.length})`;
  if (names.some((name) => name.length > MAX_NAME_LENGTH)) return `A name of at most ${MAX_NAME_LENGTH} characters`;
  return undefined;
}

function tri(value: TriState): boolean | null {
  return value === 'any' ? null : value === 'yes';
}

/** The largest price filter the engine takes ($10,000,000,000 in cents: the IPC contract's bound). */
const MAX_FILTER_CENTS = 1e12;

function money(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const cents = parseDollarsToCents(text);
  return cents === null || cents < 0 || cents > MAX_FILTER_CENTS ? undefined : cents;
}

function moneyProblem(text: string, example: string): string {
  const cents = parseDollarsToCents(text);
  return cents !== null && cents > MAX_FILTER_CENTS ? 'At most $10,000,000,000' : `Enter a dollar amount, ${example}`;
}

/** A range whose minimum passes its maximum matches nothing: the minimum is the field said wrong (and left out). */
function minAboveMax(min: number | null | undefined, max: number | null | undefined): max is number {
  return typeof min === 'number' && typeof max === 'number' && min > max;
}

export function filterProblems(f: CatalogFilters): FilterProblems {
  const problems: FilterProblems = {};
  const [priceMin, priceMax] = [money(f.priceMin), money(f.priceMax)];
  if (priceMin === undefined) problems.priceMin = moneyProblem(f.priceMin, 'e.g. 12.50');
  else if (minAboveMax(priceMin, priceMax))
    problems.priceMin = `Above the maximum price (${formatCents(priceMax)}): nothing would match`;
  if (priceMax === undefined) problems.priceMax = moneyProblem(f.priceMax, 'e.g. 250');
  const [floatMin, floatMax] = [parseUnitFloat(f.floatMin), parseUnitFloat(f.floatMax)];
  if (floatMin === undefined) problems.floatMin = 'A float between 0 and 1';
  else if (minAboveMax(floatMin, floatMax))
    problems.floatMin = `Above the maximum float (${f.floatMax.trim()}): nothing would match`;
  if (floatMax === undefined) problems.floatMax = 'A float between 0 and 1';
  const seeds = listProblem(f.seeds, SEED_MAX, f.seedRanges, 'seed');
  if (seeds) problems.seeds = seeds;
  const patterns = listProblem(f.charmPatterns, CHARM_PATTERN_MAX, f.charmPatternRanges, 'charm pattern');
  if (patterns) problems.charmPatterns = patterns;
  if (wholeNumber(f.stickerCountMin, 1, 10) === undefined)
    problems.stickerCountMin = 'A whole number of stickers, 1 to 10';
  if (wholeNumber(f.sameStickerMin, 2, 10) === undefined) problems.sameStickerMin = 'A whole number, 2 to 10';
  const names = stickerNamesProblem(f.stickerNames);
  if (names) problems.stickerNames = names;
  if (percent(f.discountMin) === undefined) problems.discountMin = 'A percentage up to 100, e.g. 15';
  if (wholeNumber(f.floatRankMax, 1, 1_000_000) === undefined) problems.floatRankMax = 'A whole number from 1, e.g. 3';
  if (wholeNumber(f.listingsMin, 1, LISTINGS_MIN_MAX) === undefined)
    problems.listingsMin = `A whole number from 1 to ${LISTINGS_MIN_MAX}, e.g. 5`;
  return problems;
}

/** The engine query for a filter form and sort (paging added per page). Invalid fields are left out. */
export function toCatalogQuery(f: CatalogFilters, sort: CatalogSort): Omit<CatalogQuery, 'offset' | 'limit'> {
  return {
    search: f.search.trim(),
    priceMin: minAboveMax(money(f.priceMin), money(f.priceMax)) ? null : (money(f.priceMin) ?? null),
    priceMax: money(f.priceMax) ?? null,
    rarityColors: [...f.rarityColors].sort(),
    floatMin: minAboveMax(parseUnitFloat(f.floatMin), parseUnitFloat(f.floatMax))
      ? null
      : (parseUnitFloat(f.floatMin) ?? null),
    floatMax: parseUnitFloat(f.floatMax) ?? null,
    phase: f.phase.trim() === '' ? null : f.phase.trim(),
    statTrak: tri(f.statTrak),
    souvenir: tri(f.souvenir),
    hasStickers: tri(f.hasStickers),
    stickerName: f.stickerName.trim(),
    seeds: f.seedRanges.map(([low, high]) => [low, high]),
    wears: WEARS.filter((wear) => f.wears.includes(wear)),
    hasCharm: tri(f.hasCharm),
    charmName: f.charmName.trim(),
    charmPatterns: f.charmPatternRanges.map(([low, high]) => [low, high]),
    stickerCountMin: wholeNumber(f.stickerCountMin, 1, 10) ?? null,
    sameStickerMin: wholeNumber(f.sameStickerMin, 2, 10) ?? null,
    stickerNames: stickerNamesProblem(f.stickerNames) ? [] : splitNames(f.stickerNames),
    excludeWords: f.excludeWords.trim().split(/\s+/u).filter(Boolean).join(' '),
    discountMin: percent(f.discountMin) ?? null,
    floatRankMax: wholeNumber(f.floatRankMax, 1, 1_000_000) ?? null,
    listingsMin: wholeNumber(f.listingsMin, 1, LISTINGS_MIN_MAX) ?? null,
    sort: sort.column,
    direction: sort.direction,
  };
}

/** A stable key of what a query asks (paging excluded): the page cache is keyed by it. */
export function catalogQueryKey(f: CatalogFilters, sort: CatalogSort): string {
  return JSON.stringify(toCatalogQuery(f, sort));
}

/** How many filters (beyond search) are narrowing the list, for the "Filters (3)" badge. */
export function activeFilterCount(f: CatalogFilters): number {
  let n = 0;
  if (f.priceMin.trim() || f.priceMax.trim()) n++;
  if (f.floatMin.trim() || f.floatMax.trim()) n++;
  if (f.phase.trim()) n++;
  if (f.statTrak !== 'any') n++;
  if (f.souvenir !== 'any') n++;
  if (f.stickerName.trim()) n++;
  if (f.wears.length > 0) n++;
  for (const count of Object.values(dealFilterCounts(f))) n += count;
  return n;
}

export type DealFilterGroup = 'rarity' | 'pattern' | 'charms' | 'stickers' | 'market';

/** How many of each group of deal filters are set (a collapsed group still says it narrows the list). */
export function dealFilterCounts(f: CatalogFilters): Record<DealFilterGroup, number> {
  const set = (text: string) => (text.trim() === '' ? 0 : 1);
  return {
    rarity: f.rarityColors.length > 0 ? 1 : 0,
    pattern: set(f.seeds),
    charms: (f.hasCharm !== 'any' ? 1 : 0) + set(f.charmName) + set(f.charmPatterns),
    stickers:
      (f.hasStickers !== 'any' ? 1 : 0) +
      set(f.stickerCountMin) +
      set(f.sameStickerMin) +
      set(f.stickerNames) +
      set(f.excludeWords),
    market: set(f.discountMin) + set(f.listingsMin) + set(f.floatRankMax),
  };
}

/** Where the discount sort starts, in dollars: a listing a few cents under a few cents is no deal worth a look. */
export const DEALS_MIN_PRICE = '1';

/** The filters a sort starts with: from another column to the discount, a minimum price when none is set. */
export function filtersForSort(f: CatalogFilters, from: CatalogSort, to: CatalogSort): CatalogFilters {
  return to.column === 'discount' && from.column !== 'discount' && f.priceMin.trim() === ''
    ? { ...f, priceMin: DEALS_MIN_PRICE }
    : f;
}

/** Clicking a header: a new column starts in its natural direction; the same column flips. */
export function nextSort(current: CatalogSort, column: CatalogSortColumn): CatalogSort {
  if (current.column === column) return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  const descFirst: CatalogSortColumn[] = ['listedAt', 'stickers', 'keychains', 'rarity', 'discount'];
  return { column, direction: descFirst.includes(column) ? 'desc' : 'asc' };
}
