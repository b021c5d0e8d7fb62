import type { AlertRule } from '../../../shared/ipc';
import { type CatalogFilters, catalogQuerySchema } from '../../../shared/ipc/contract';
import { itemFilter, type ItemTest } from '../catalog';
import type { ParsedCatalogQuery } from '../store/types';

/** A rule ready for live matching: its filters and maximum price as one test of an item (made once per reload). */
export interface CompiledRule {
  rule: AlertRule;
  test: ItemTest;
  /** It filters on the market standing (discount, float rank): decided by the store once the change is written. */
  needsStanding: boolean;
}

/** The rule's filters with its maximum price folded into the price range (`anyPrice`: the filters alone). */
export function filtersOfRule(rule: AlertRule, anyPrice = false): CatalogFilters {
  const { priceMax } = rule.filters;
  if (anyPrice || rule.maxPrice === null) return rule.filters;
  return { ...rule.filters, priceMax: priceMax === null ? rule.maxPrice : Math.min(priceMax, rule.maxPrice) };
}

export function compileRule(rule: AlertRule): CompiledRule {
  const { test, needsStanding } = itemFilter(filtersOfRule(rule));
  return { rule, test, needsStanding };
}

/** Start of the UTC day of `epochMs`, for daily caps. */
export function utcDayStart(epochMs: number): number {
  const date = new Date(epochMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

/** The catalog query of a rule's matches in the cache, cheapest first. */
export function catalogQueryOfRule(
  rule: AlertRule,
  page: { anyPrice: boolean; offset: number; limit: number },
): ParsedCatalogQuery {
  return catalogQuerySchema.parse({
    ...filtersOfRule(rule, page.anyPrice),
    sort: 'price',
    direction: 'asc',
    offset: page.offset,
    limit: page.limit,
  });
}
