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
  const schedule = releaseSchedule(prepare, options.now);
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

/** Named: the planner would take trades_status and read every completed trade. */
const REVERSIBLE = "FROM trades INDEXED BY trades_protection WHERE status = 'COMPLETED' AND stage = 1";

/**
 * The reversible trades by UTC day of `endProtection` after `now`: per day, one seek to its first entry and one range
 * aggregate over the covering index. A GROUP BY over the index sorts every entry in a temporary B-tree instead: a
 * week of 10,000 trades a day (52,000 reversible) took 12–32 ms that way, 5–6 ms this way.
 */
function releaseSchedule(prepare: Prepare, now: string): ExposureRows['schedule'] {
  const firstAfter = prepare<[string], string>(
    `SELECT endProtection ${REVERSIBLE} AND endProtection > ? ORDER BY endProtection LIMIT 1`,
  ).pluck();
  const firstFrom = prepare<[string], string>(
    `SELECT endProtection ${REVERSIBLE} AND endProtection >= ? ORDER BY endProtection LIMIT 1`,
  ).pluck();
  const day = prepare<[string, string], { count: number; value: number }>(
    `SELECT count(*) AS count, sum(price) AS value ${REVERSIBLE} AND endProtection >= ? AND endProtection < ?`,
  );
  const schedule: ExposureRows['schedule'] = [];
  for (let first = firstAfter.get(now); first !== undefined;) {
    const date = first.slice(0, 10);
    const next = new Date(Date.parse(`${date}T00:00:00.000Z`) + 86_400_000).toISOString();
    const { count, value } = day.get(first, next) ?? { count: 0, value: 0 };
    schedule.push({ day: date, count, value });
    first = firstFrom.get(next);
  }
  return schedule;
}
