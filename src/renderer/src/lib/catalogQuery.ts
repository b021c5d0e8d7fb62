import type { CATALOG_SORT_COLUMNS, CatalogQuery } from '../../../shared/ipc/contract';
import { parseDollarsToCents } from '../../../shared/money';
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
};

export const DEFAULT_SORT: CatalogSort = { column: 'price', direction: 'asc' };

/** Which filter fields hold text that does not parse (shown red, left out of the query). */
export interface FilterProblems {
  priceMin?: string;
  priceMax?: string;
  floatMin?: string;
  floatMax?: string;
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

export function filterProblems(f: CatalogFilters): FilterProblems {
  const problems: FilterProblems = {};
  if (money(f.priceMin) === undefined) problems.priceMin = moneyProblem(f.priceMin, 'e.g. 12.50');
  if (money(f.priceMax) === undefined) problems.priceMax = moneyProblem(f.priceMax, 'e.g. 250');
  if (parseUnitFloat(f.floatMin) === undefined) problems.floatMin = 'A float between 0 and 1';
  if (parseUnitFloat(f.floatMax) === undefined) problems.floatMax = 'A float between 0 and 1';
  return problems;
}

/** The engine query for a filter form and sort (paging added per page). Invalid fields are left out. */
export function toCatalogQuery(f: CatalogFilters, sort: CatalogSort): Omit<CatalogQuery, 'offset' | 'limit'> {
  return {
    search: f.search.trim(),
    priceMin: money(f.priceMin) ?? null,
    priceMax: money(f.priceMax) ?? null,
    rarityColors: [...f.rarityColors].sort(),
    floatMin: parseUnitFloat(f.floatMin) ?? null,
    floatMax: parseUnitFloat(f.floatMax) ?? null,
    phase: f.phase.trim() === '' ? null : f.phase.trim(),
    statTrak: tri(f.statTrak),
    souvenir: tri(f.souvenir),
    hasStickers: tri(f.hasStickers),
    stickerName: f.stickerName.trim(),
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
  if (f.rarityColors.length) n++;
  if (f.floatMin.trim() || f.floatMax.trim()) n++;
  if (f.phase.trim()) n++;
  if (f.statTrak !== 'any') n++;
  if (f.souvenir !== 'any') n++;
  if (f.hasStickers !== 'any') n++;
  if (f.stickerName.trim()) n++;
  return n;
}

/** Clicking a header: a new column starts in its natural direction; the same column flips. */
export function nextSort(current: CatalogSort, column: CatalogSortColumn): CatalogSort {
  if (current.column === column) return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  const descFirst: CatalogSortColumn[] = ['listedAt', 'stickers', 'keychains', 'rarity'];
  return { column, direction: descFirst.includes(column) ? 'desc' : 'asc' };
}
