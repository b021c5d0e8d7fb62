import { z } from 'zod';
import { MAX_NAME_LENGTH } from '../api';
import { CHARM_PATTERN_MAX, LISTINGS_MIN_MAX, MAX_LIST_ENTRIES, SEED_MAX, WEARS } from '../filters';
import { cents, id, offset, pageLimit } from './schemaFields';

export const CATALOG_SORT_COLUMNS = [
  'price',
  'name',
  'float',
  'paintSeed',
  'phase',
  'stickers',
  'keychains',
  'listedAt',
  'rarity',
  'discount',
  'floatRank',
] as const;

/** Ranges of whole numbers within 0..max, sorted and not overlapping (as parseNumberList gives them). */
const numberRanges = (max: number) =>
  z
    .array(
      z
        .tuple([z.int().min(0).max(max), z.int().min(0).max(max)])
        .refine(([low, high]) => low <= high, 'a range runs backwards'),
    )
    .max(MAX_LIST_ENTRIES)
    .refine(
      (ranges) => ranges.every((range, i) => i === 0 || range[0] > (ranges[i - 1] as [number, number])[1]),
      'ranges must be sorted and apart',
    )
    .default([]);

/** The catalog's filters: one model for the catalog, saved searches and alert rules (a filter is written once). */
export const catalogFiltersSchema = z.strictObject({
  search: z.string().max(MAX_NAME_LENGTH).default(''),
  priceMin: cents.nullable().default(null),
  priceMax: cents.nullable().default(null),
  rarityColors: z.array(z.string().max(16)).max(10).default([]),
  floatMin: z.number().min(0).max(1).nullable().default(null),
  floatMax: z.number().min(0).max(1).nullable().default(null),
  phase: z.string().max(64).nullable().default(null),
  statTrak: z.boolean().nullable().default(null),
  souvenir: z.boolean().nullable().default(null),
  hasStickers: z.boolean().nullable().default(null),
  stickerName: z.string().max(MAX_NAME_LENGTH).default(''),
  /** Paint seeds (a pasted list, parsed by parseNumberList). */
  seeds: numberRanges(SEED_MAX),
  /** Wear bands; a float in any of them matches. */
  wears: z.array(z.enum(WEARS)).max(WEARS.length).default([]),
  hasCharm: z.boolean().nullable().default(null),
  /** A charm name holding the text. */
  charmName: z.string().max(MAX_NAME_LENGTH).default(''),
  charmPatterns: numberRanges(CHARM_PATTERN_MAX),
  stickerCountMin: z.int().min(1).max(10).nullable().default(null),
  /** At least this many of one sticker ("4× the same"). */
  sameStickerMin: z.int().min(2).max(10).nullable().default(null),
  /** Any of these sticker names (each held by one of the item's sticker names). */
  stickerNames: z.array(z.string().trim().min(1).max(MAX_NAME_LENGTH)).max(20).default([]),
  /** Words the item's name must not hold (space-separated). */
  excludeWords: z.string().max(MAX_NAME_LENGTH).default(''),
  /** At least this many percent under its name's reference price. */
  discountMin: z.number().min(-1000).max(100).nullable().default(null),
  /** Among the lowest floats of its name: rank at most this. */
  floatRankMax: z.int().min(1).max(1_000_000).nullable().default(null),
  /** At least this many of its name (and phase) on sale: a discount in a thin market says little. */
  listingsMin: z
    .int('listings on sale: a whole number')
    .min(1, 'listings on sale: at least 1')
    .max(LISTINGS_MIN_MAX, `listings on sale: at most ${LISTINGS_MIN_MAX}`)
    .nullable()
    .default(null),
});
export type CatalogFilters = z.output<typeof catalogFiltersSchema>;
export type CatalogFiltersInput = z.input<typeof catalogFiltersSchema>;

export const catalogQuerySchema = catalogFiltersSchema.extend({
  sort: z.enum(CATALOG_SORT_COLUMNS).default('price'),
  direction: z.enum(['asc', 'desc']).default('asc'),
  offset,
  limit: pageLimit,
});
export type CatalogQuery = z.input<typeof catalogQuerySchema>;

/** A saved search's query: the catalog query without paging (re-checked with this schema whenever it is read back). */
export const savedSearchQuerySchema = catalogQuerySchema.omit({ offset: true, limit: true });
export type SavedSearchQuery = z.output<typeof savedSearchQuerySchema>;
export const SAVED_SEARCH_NAME_MAX = 80;
/** Saved searches one account keeps: more than a sidebar and a palette can offer usefully. */
export const MAX_SAVED_SEARCHES = 200;

export const savedSearchInputSchema = z.strictObject({
  /** Absent: a new search; present: rename or replace that one. */
  id: id.optional(),
  name: z
    .string()
    .trim()
    .min(1, 'Name the search')
    .max(SAVED_SEARCH_NAME_MAX, `A name is at most ${SAVED_SEARCH_NAME_MAX} characters`),
  query: savedSearchQuerySchema,
});
export type SavedSearchInput = z.input<typeof savedSearchInputSchema>;
export type ParsedSavedSearchInput = z.output<typeof savedSearchInputSchema>;

export interface SavedSearch {
  id: string;
  name: string;
  query: SavedSearchQuery;
  createdAt: string;
  updatedAt: string;
}
