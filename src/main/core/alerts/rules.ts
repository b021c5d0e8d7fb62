import type { AlertRule } from '../../../shared/ipc';
import { catalogQuerySchema } from '../../../shared/ipc/contract';
import type { ParsedCatalogQuery } from '../store/types';

/** The fields of an item a rule looks at (an Item or a catalog row both fit). */
export interface MatchableItem {
  market_hash_name: string;
  phase: string | null;
  float: number | null;
  price: number;
  stickerNames: readonly string[];
}

const contains = (haystack: string, needle: string) => haystack.toLocaleLowerCase().includes(needle.toLocaleLowerCase());

/**
 * A rule matches when every condition it sets holds: name contains the
 * pattern (case-insensitive), the exact phase, float within range (an item
 * without a float never matches a float range), price at or under maxPrice,
 * and every listed sticker name found on the item (substring).
 */
export function matchesRule(rule: AlertRule, item: MatchableItem): boolean {
  if (!rule.enabled) return false;
  if (rule.namePattern && !contains(item.market_hash_name, rule.namePattern)) return false;
  if (rule.phase !== null && item.phase !== rule.phase) return false;
  if (rule.floatMin !== null || rule.floatMax !== null) {
    if (item.float === null) return false;
    if (rule.floatMin !== null && item.float < rule.floatMin) return false;
    if (rule.floatMax !== null && item.float > rule.floatMax) return false;
  }
  if (rule.maxPrice !== null && item.price > rule.maxPrice) return false;
  return rule.stickerNames.every((wanted) => item.stickerNames.some((name) => contains(name, wanted)));
}

/** Start of the UTC day of `epochMs`, for daily caps. */
export function utcDayStart(epochMs: number): number {
  const date = new Date(epochMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

/**
 * The catalog query that narrows the cache to a rule's candidates, cheapest first (the store filters by name,
 * phase, float, price and the first sticker; `matchesRule` then checks every condition).
 */
export function catalogQueryOfRule(rule: AlertRule, page: { maxPrice: number | null; offset: number; limit: number }): ParsedCatalogQuery {
  return catalogQuerySchema.parse({
    search: rule.namePattern,
    priceMax: page.maxPrice,
    floatMin: rule.floatMin,
    floatMax: rule.floatMax,
    phase: rule.phase,
    stickerName: rule.stickerNames[0] ?? '',
    sort: 'price',
    direction: 'asc',
    offset: page.offset,
    limit: page.limit,
  });
}
