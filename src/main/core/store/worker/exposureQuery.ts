/**
 * The store's reads for Operations → Reversals: the completed trades still reversible (stage 1, protection not ended)
 * by the day their protection ends (`trades_protection`, a covering partial index), a page of the reversed trades with
 * their TRADE ROLLBACK ledger entries, and the recipients who reversed: those with a reversal of their own, the buyer's
 * (the `recipient_totals` roll-up; a seller's rollback is not the recipient's doing).
 */
import type { BalanceTransaction, Trade } from '../../../../shared/api';
import type { Prepare } from './open';
import { LEDGER_FIELDS, TRADE_SELECT } from './recordRows';

export interface ExposureRows {
  /** By UTC day of `endProtection` (after `now`): count and value of the completed trades it releases. */
  schedule: { day: string; count: number; value: number }[];
  /** Completed at stage 1 with no `endProtection` ("null if no data"): reversible for all the cache knows. */
  undated: { count: number; value: number };
  reversedTotal: number;
  reversed: { trade: Trade; partner: number | null; rollback: BalanceTransaction | null }[];
  reversers: { partner: number; buyerReversed: number; reversed: number; delivered: number; trades: number }[];
  reversersTotal: number;
}

export function exposureRows(
  prepare: Prepare,
  options: { now: string; reversedOffset: number; reversedLimit: number; reversersLimit: number },
): ExposureRows {
  const schedule = prepare<[string], { day: string; count: number; value: number }>(
    // Named: the planner would take trades_status and read every completed trade.
    `SELECT substr(endProtection, 1, 10) AS day, count(*) AS count, sum(price) AS value FROM trades
     INDEXED BY trades_protection WHERE status = 'COMPLETED' AND stage = 1 AND endProtection > ? GROUP BY day ORDER BY day`,
  ).all(options.now);
  const undated = prepare<[], { count: number; value: number | null }>(
    `SELECT count(*) AS count, sum(price) AS value FROM trades
     WHERE status = 'COMPLETED' AND stage = 1 AND endProtection IS NULL`,
  ).get() ?? { count: 0, value: 0 };
  const reversedTotal =
    prepare<[], number | null>("SELECT sum(n) FROM trade_days WHERE status = 'REVERSED'").pluck().get() ?? 0;
  // The page's ids from the status index alone (an offset skips index entries, not rows), then their rows.
  const trades = prepare<[number, number], Trade & { partner: number | null }>(
    `SELECT ${TRADE_SELECT}, partner FROM trades WHERE tradeId IN (SELECT tradeId FROM trades WHERE status = 'REVERSED'
     ORDER BY createdAt DESC, tradeId DESC LIMIT ? OFFSET ?) ORDER BY createdAt DESC, tradeId DESC`,
  ).all(options.reversedLimit, options.reversedOffset);
  // Named: without statistics the planner walks every rollback newest first (ledger_type) for each trade.
  const rollbackOf = prepare<[string], BalanceTransaction>(
    `SELECT ${LEDGER_FIELDS.join(', ')} FROM ledger INDEXED BY ledger_trade WHERE tradeId = ? AND type = 'TRADE ROLLBACK'
     ORDER BY createdAt DESC, id DESC LIMIT 1`,
  );
  const reversed = trades.map(({ partner, ...trade }) => ({
    trade,
    partner,
    rollback: rollbackOf.get(trade.tradeId) ?? null,
  }));
  const reversers = prepare<[number], ExposureRows['reversers'][number]>(
    `SELECT partner, buyerReversed, reversed, delivered, trades FROM recipient_totals WHERE buyerReversed > 0
     ORDER BY buyerReversed DESC, partner LIMIT ?`,
  ).all(options.reversersLimit);
  const reversersTotal =
    prepare<[], number>('SELECT count(*) FROM recipient_totals WHERE buyerReversed > 0').pluck().get() ?? 0;
  return {
    schedule,
    undated: { count: undated.count, value: undated.value ?? 0 },
    reversedTotal,
    reversed,
    reversers,
    reversersTotal,
  };
}
