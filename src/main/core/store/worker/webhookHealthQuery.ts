/**
 * The store's reads for Operations → Webhook health: the cached trades whose webhookStatus is failed, counted by
 * status, hour and day of their status time (updatedAt), and what tells a pause (see operations/webhookHealth.ts).
 */
import type { Trade, TradeStatus } from '../../../../shared/api';
import type { Prepare } from './open';
import { TRADE_SELECT } from './recordRows';

export interface WebhookHealthRows {
  byStatus: { status: TradeStatus; count: number }[];
  /** `at`: the hour's (or day's) first characters of an ISO time, e.g. 2026-11-29T08 or 2026-11-29. */
  byHour: { at: string; count: number }[];
  byDay: { at: string; count: number }[];
  lastDeliveredCreatedAt: string | null;
  /** Failed deliveries with no delivered one after them: how many, and the oldest's status time. */
  unanswered: { count: number; since: string | null };
  failed: Trade[];
  history: { from: string | null; to: string | null };
}

/**
 * The failed deliveries, read through their covering index by status time. Named: for the counts by status the planner
 * would take trades_status and read every trade (38 s at a year's 3.65M).
 */
const FAILED = "trades INDEXED BY trades_webhook_failed_at WHERE webhookStatus = 'failed'";

export function webhookHealthRows(
  prepare: Prepare,
  options: { hoursFrom: string; daysFrom: string; listLimit: number },
): WebhookHealthRows {
  const byStatus = prepare<[], { status: TradeStatus; count: number }>(
    `SELECT status, count(*) AS count FROM ${FAILED} GROUP BY status ORDER BY count DESC, status`,
  ).all();
  const buckets = (length: number, from: string) =>
    prepare<[string], { at: string; count: number }>(
      `SELECT substr(updatedAt, 1, ${length}) AS at, count(*) AS count FROM ${FAILED} AND updatedAt >= ?
       GROUP BY at ORDER BY at`,
    ).all(from);
  const lastDeliveredCreatedAt = lastDeliveredCreatedAtOf(prepare);
  const unanswered = prepare<[string], { count: number; since: string | null }>(
    `SELECT count(*) AS count, min(updatedAt) AS since FROM ${FAILED} AND updatedAt > ?`,
  ).get(lastDeliveredCreatedAt ?? '') ?? { count: 0, since: null };
  const list = prepare<[number], Trade>(
    `SELECT ${TRADE_SELECT} FROM ${FAILED} ORDER BY updatedAt DESC, tradeId DESC LIMIT ?`,
  ).all(options.listLimit);
  return {
    byStatus,
    byHour: buckets(13, options.hoursFrom),
    byDay: buckets(10, options.daysFrom),
    lastDeliveredCreatedAt,
    unanswered,
    failed: list,
    history: historyBounds(prepare),
  };
}

/** What the cache holds: from its first trade's creation to its last change (the status times a range picks from). */
function historyBounds(prepare: Prepare): { from: string | null; to: string | null } {
  // Two subqueries: one min or max each is read from its index's end (both in one SELECT would read every trade).
  return (
    prepare<[], { from: string | null; to: string | null }>(
      'SELECT (SELECT min(createdAt) FROM trades) AS "from", (SELECT max(updatedAt) FROM trades) AS "to"',
    ).get() ?? { from: null, to: null }
  );
}

/** The creation time of the newest trade whose update was delivered: proof that deliveries went through then. */
export function lastDeliveredCreatedAtOf(prepare: Prepare): string | null {
  return (
    prepare<[], string | null>("SELECT max(createdAt) FROM trades WHERE webhookStatus = 'sent'").pluck().get() ?? null
  );
}

/** The newest failures the cache holds (by status time): what a refresh checks the server's list against. */
export function newestFailed(prepare: Prepare, limit: number): { tradeId: string; createdAt: string }[] {
  return prepare<[number], { tradeId: string; createdAt: string }>(
    `SELECT tradeId, createdAt FROM ${FAILED} ORDER BY updatedAt DESC, tradeId DESC LIMIT ?`,
  ).all(limit);
}

/** The failed deliveries a replay names: by status time in [from, to] (at most `limit`), or the trades asked for. */
export function replayCandidates(
  prepare: Prepare,
  choice: { from: string; to: string; limit: number } | { tradeIds: readonly string[] },
): { trades: Trade[]; history: { from: string | null; to: string | null } } {
  const history = historyBounds(prepare);
  if ('tradeIds' in choice) {
    const marks = choice.tradeIds.map(() => '?').join(', ');
    const trades = prepare<string[], Trade>(
      `SELECT ${TRADE_SELECT} FROM trades WHERE tradeId IN (${marks}) ORDER BY updatedAt, tradeId`,
    ).all(...choice.tradeIds);
    return { trades, history };
  }
  const trades = prepare<[string, string, number], Trade>(
    `SELECT ${TRADE_SELECT} FROM ${FAILED} AND updatedAt >= ? AND updatedAt <= ? ORDER BY updatedAt, tradeId LIMIT ?`,
  ).all(choice.from, choice.to, choice.limit);
  return { trades, history };
}
