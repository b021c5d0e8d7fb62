import type { AlertRule } from '../../../shared/ipc';

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

export type AutoBuyVerdict = { buy: true } | { buy: false; reason: string };

/**
 * Auto-buy is off by default; when on, each purchase must fit both the
 * rule's total spend cap and its cap for the current UTC day.
 */
export function autoBuyVerdict(rule: AlertRule, price: number, spentToday: number, alertsPaused: boolean): AutoBuyVerdict {
  if (!rule.autoBuy.enabled) return { buy: false, reason: 'auto-buy is off for this rule' };
  if (alertsPaused) return { buy: false, reason: 'alerts are paused' };
  if (!rule.autoBuy.recipientId) return { buy: false, reason: 'no recipient chosen for auto-buy' };
  if (rule.autoBuy.spent + price > rule.autoBuy.spendCap) return { buy: false, reason: 'the rule would exceed its spend cap' };
  if (spentToday + price > rule.autoBuy.dailyCap) return { buy: false, reason: "the rule would exceed today's cap" };
  return { buy: true };
}

/** Start of the UTC day of `epochMs`, for daily caps. */
export function utcDayStart(epochMs: number): number {
  const date = new Date(epochMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}
