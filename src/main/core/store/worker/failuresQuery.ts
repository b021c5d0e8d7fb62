/**
 * The store's reads and write for Operations → Failures: failed trades by UTC day, status and errorCode from the
 * `trade_failure_days` roll-up (never a scan of the trades), today's by hour from an index range, and the buy
 * refusals the desk saw (`buy_refusals`), kept BUY_REFUSALS_KEPT_DAYS.
 */
import type { TradeStatus } from '../../../../shared/api';
import { FAILURE_STATUSES } from '../schema';
import type { Prepare } from './open';

/** A refusal is kept this long (pruned as new ones are written). */
export const BUY_REFUSALS_KEPT_DAYS = 400;
const DAY_MS = 24 * 3600_000;

/** One bucket of failed trades: `at` is a UTC day (2026-11-29) or hour (2026-11-29T08); errorCode 0 for none. */
export interface FailedTradeCount {
  at: string;
  status: TradeStatus;
  errorCode: number;
  count: number;
  value: number;
}

/** One bucket of refusals by code. */
export interface RefusalCount {
  at: string;
  code: string;
  count: number;
  value: number;
}

export interface BuyRefusalInput {
  at: string;
  code: string;
  itemId: number | null;
  market_hash_name: string | null;
  /** The price confirmed (buy by id) or the maximum (by name), cents. */
  price: number;
  partner: number | null;
  externalId: string | null;
  detail: string;
  /** A buy by name the marketplace refused: what "buy the next one" continues from (its phase and recipient). */
  byName?: { phase: string | null; tradeUrl: string } | null;
}

export interface BuyRefusalRow extends Omit<BuyRefusalInput, 'byName'> {
  id: number;
}

export interface FailureRows {
  days: FailedTradeCount[];
  hours: FailedTradeCount[];
  refusalDays: RefusalCount[];
  refusalHours: RefusalCount[];
}

const STATUS_MARKS = FAILURE_STATUSES.map(() => '?').join(', ');

/** Days in [fromDay, toDay] (both UTC days, inclusive); hours of the day `hoursDay`. */
export function failureRows(
  prepare: Prepare,
  range: { fromDay: string; toDay: string; hoursDay: string },
): FailureRows {
  const days = prepare<[string, string], FailedTradeCount>(
    `SELECT day AS at, status, errorCode, sum(n) AS count, sum(value) AS value FROM trade_failure_days
     WHERE day >= ? AND day <= ? AND n > 0 GROUP BY day, status, errorCode ORDER BY day, status, errorCode`,
  ).all(range.fromDay, range.toDay);
  // trades_status (status, createdAt): one index range per failure status over the day.
  const hours = prepare<string[], FailedTradeCount>(
    `SELECT substr(createdAt, 1, 13) AS at, status, coalesce(errorCode, 0) AS errorCode, count(*) AS count,
       sum(price) AS value FROM trades INDEXED BY trades_status
     WHERE status IN (${STATUS_MARKS}) AND createdAt >= ? AND createdAt < ?
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  ).all(...FAILURE_STATUSES, `${range.hoursDay}T`, `${range.hoursDay}U`);
  const refusals = (length: number, from: string, to: string) =>
    prepare<[string, string], RefusalCount>(
      `SELECT substr(at, 1, ${length}) AS at, code, count(*) AS count, sum(price) AS value FROM buy_refusals
       WHERE at >= ? AND at < ? GROUP BY 1, 2 ORDER BY 1, 2`,
    ).all(from, to);
  return {
    days,
    hours,
    refusalDays: refusals(10, range.fromDay, `${range.toDay}U`),
    refusalHours: refusals(13, `${range.hoursDay}T`, `${range.hoursDay}U`),
  };
}

/** The refusals of one code in [from, to) (ISO times), newest first. */
export function refusalList(
  prepare: Prepare,
  query: { from: string; to: string; code: string | null; limit: number },
): BuyRefusalRow[] {
  return prepare<[string, string, string | null, string | null, number], BuyRefusalRow>(
    `SELECT id, at, code, itemId, market_hash_name, price, partner, externalId, detail FROM buy_refusals
     WHERE at >= ? AND at < ? AND (? IS NULL OR code = ?) ORDER BY at DESC, id DESC LIMIT ?`,
  ).all(query.from, query.to, query.code, query.code, query.limit);
}

/** Writes one refusal and drops those older than BUY_REFUSALS_KEPT_DAYS before it. */
export function insertRefusal(prepare: Prepare, input: BuyRefusalInput): BuyRefusalRow {
  const { byName, ...refusal } = input;
  const id = Number(
    prepare(
      `INSERT INTO buy_refusals (at, code, itemId, market_hash_name, price, partner, externalId, detail, phase, tradeUrl, byName)
       VALUES (@at, @code, @itemId, @market_hash_name, @price, @partner, @externalId, @detail, @phase, @tradeUrl, @byName)`,
    ).run({
      ...refusal,
      phase: byName?.phase ?? null,
      tradeUrl: byName?.tradeUrl ?? null,
      byName: byName ? 1 : 0,
    }).lastInsertRowid,
  );
  const cutoff = new Date(Date.parse(refusal.at) - BUY_REFUSALS_KEPT_DAYS * DAY_MS).toISOString();
  prepare('DELETE FROM buy_refusals WHERE at < ?').run(cutoff);
  return { id, ...refusal };
}
