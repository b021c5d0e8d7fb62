/**
 * The records' columns, and the API objects of rows that need converting (rules, firings);
 * shared by the writer and the reader threads. No SQLite access here.
 */
import { balanceTransactionSchema, tradeSchema, type Trade, type TradeStatus } from '../../../../shared/api';
import type { AlertFiring, AlertRule } from '../../../../shared/ipc';
import { catalogFiltersSchema, type LegacyRuleFields, ruleFiltersInput } from '../../../../shared/ipc/contract';

// ---- Trades

/** Monotonic order of statuses: a stored trade only moves to a higher rank. */
export const STATUS_RANK: Record<TradeStatus, number> = {
  PENDING: 0,
  CREATING: 0,
  SENT: 1,
  COMPLETED: 2,
  CANCELLED: 2,
  FAILED: 2,
  EXPIRED: 2,
  REJECTED: 2,
  REVERSED: 3,
};

/**
 * Whether a trade stored with `from` may move to `to`: active statuses move
 * up the rank; COMPLETED only to REVERSED; other finals never move.
 */
export function canAdvance(from: TradeStatus, to: TradeStatus): boolean {
  if (from === to) return false;
  if (from === 'COMPLETED') return to === 'REVERSED';
  if (STATUS_RANK[from] >= 2) return false;
  return STATUS_RANK[to] > STATUS_RANK[from];
}

/** Where a trade keeps the time it reached a status; any other status (or none kept): its updatedAt. */
const STATUS_TIME_FIELD: Partial<Record<TradeStatus, 'createdAt' | 'completedAt' | 'cancelledAt' | 'rollbackAt'>> = {
  PENDING: 'createdAt',
  CREATING: 'createdAt',
  COMPLETED: 'completedAt',
  CANCELLED: 'cancelledAt',
  REVERSED: 'rollbackAt',
};

/** The time a status was reached, as far as the trade tells. */
export function statusTimeOf(trade: Trade): string {
  const field = STATUS_TIME_FIELD[trade.status];
  return (field && trade[field]) ?? trade.updatedAt;
}

/** A trade's fields, each a column of `trades` (a row read with them is a Trade as it is: same names, same types). */
export const TRADE_FIELDS = tradeSchema.keyof().options;
export const TRADE_SELECT = TRADE_FIELDS.join(', ');
/** Likewise a BalanceTransaction's, of `ledger`. */
export const LEDGER_FIELDS = balanceTransactionSchema.keyof().options;

export function sameTrade(a: Trade, b: Trade): boolean {
  return TRADE_FIELDS.every((field) => a[field] === b[field]);
}

// ---- Rules and firings

/**
 * A rule as stored (JSON): one stored before rules held the catalog's filters gets its conditions folded in
 * (same meaning); filters added since get their defaults. Filters that no longer read leave the rule switched off.
 */
export function alertRuleOf(json: string): AlertRule {
  const stored = JSON.parse(json) as AlertRule & LegacyRuleFields;
  const { namePattern: _n, phase: _p, floatMin: _min, floatMax: _max, stickerNames: _s, filters: _f, ...rule } = stored;
  const filters = catalogFiltersSchema.safeParse(ruleFiltersInput(stored));
  if (filters.success) return { ...rule, filters: filters.data };
  return { ...rule, enabled: false, filters: catalogFiltersSchema.parse({}) };
}

export const FIRING_SELECT =
  'id, ruleId, ruleName, itemId, market_hash_name, price, firedAt, acknowledged, autoBuyTradeId, autoBuyError, autoBuyDone, autoBuySkipped, autoBuyDryRun';

export type FiringRow = Omit<AlertFiring, 'acknowledged' | 'autoBuy'> & {
  acknowledged: number;
  autoBuyDone: number;
  autoBuyTradeId: string | null;
  autoBuyError: string | null;
  autoBuySkipped: string | null;
  autoBuyDryRun: number;
};

export function firingOf(row: FiringRow): AlertFiring {
  const { acknowledged, autoBuyDone, autoBuyTradeId, autoBuyError, autoBuySkipped, autoBuyDryRun, ...firing } = row;
  const autoBuy =
    autoBuyDone === 1
      ? { tradeId: autoBuyTradeId, error: autoBuyError, skipped: autoBuySkipped, dryRun: autoBuyDryRun === 1 }
      : null;
  return { ...firing, acknowledged: acknowledged === 1, autoBuy };
}
