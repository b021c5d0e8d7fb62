import type { AlertRule, AutoBuyPreview, CatalogRow } from '../../../shared/ipc';
import type { LocalStore } from '../store';
import type { ParsedAlertRuleInput } from '../store/types';
import { catalogQueryOfRule } from './rules';

const PAGE = 1000;
/** Pages read for a preview or a baseline: a rule broader than this many listings is held back by its first ones. */
const MAX_PAGES = 50;
const PREVIEW_ITEMS = 20;

/**
 * The engine's own refusal of a rule that auto-buy cannot guard: every auto-buy rule needs a
 * maximum price per item (a rule with caps alone once bought a hundred items of $641-$896).
 */
export function autoBuyRuleProblem(input: ParsedAlertRuleInput): string | null {
  if (!input.autoBuy.enabled) return null;
  if (input.maxPrice === null)
    return 'Auto-buy needs a maximum price per item: set "Max price" on the rule (a cap alone does not limit what one item costs)';
  return null;
}

/** The rule an input would save, for matching before it is saved. */
export function ruleOfInput(input: ParsedAlertRuleInput): AlertRule {
  return {
    id: input.id ?? 'preview',
    name: input.name,
    enabled: true,
    filters: input.filters,
    maxPrice: input.maxPrice,
    autoBuy: { ...input.autoBuy, spent: 0 },
    createdAt: new Date(0).toISOString(),
  };
}

/** Cached listings the rule matches now, cheapest first; `anyPrice` ignores its maximum price. */
async function cachedMatches(store: LocalStore, rule: AlertRule, anyPrice: boolean): Promise<CatalogRow[]> {
  const rows: CatalogRow[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await store.queryCatalog(catalogQueryOfRule(rule, { anyPrice, offset: page * PAGE, limit: PAGE }));
    rows.push(...answer.rows);
    if (answer.rows.length < PAGE) break;
  }
  return rows;
}

/** What the rule matches in the cached catalog now: the count, their total and the cheapest few. */
export async function previewMatches(store: LocalStore, rule: AlertRule): Promise<AutoBuyPreview> {
  const rows = await cachedMatches(store, rule, false);
  return {
    count: rows.length,
    total: rows.reduce((sum, row) => sum + row.price, 0),
    items: rows
      .slice(0, PREVIEW_ITEMS)
      .map((row) => ({ itemId: row.itemId, market_hash_name: row.market_hash_name, price: row.price })),
  };
}

/**
 * Arms a rule's auto-buy. 'skip' ("only new listings") stores every cached listing the rule matches at
 * any price, so neither one on sale now nor a later price drop of one is bought; 'buy' stores none.
 */
export async function armAutoBuy(store: LocalStore, rule: AlertRule, existing: 'skip' | 'buy'): Promise<number> {
  const itemIds =
    rule.autoBuy.enabled && existing === 'skip'
      ? (await cachedMatches(store, rule, true)).map((row) => row.itemId)
      : [];
  await store.setAutoBuyBaseline(rule.id, itemIds);
  return itemIds.length;
}
