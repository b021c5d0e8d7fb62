/**
 * The reader thread's answers about the user's records: trades, the ledger, recipients, alert rules and
 * firings, notifications, settings and meta.
 */
import type { Statement } from 'better-sqlite3';
import type { Trade } from '../../../../shared/api';
import { ACTIVE_TRADE_STATUSES } from '../../../../shared/api';
import type { AlertFiring, AlertRule, AppSettings, BalancePoint, LedgerRow, NotificationPage, Page, Recipient, TradeDetail, TradeTimelineEntry } from '../../../../shared/ipc';
import { savedSearchQuerySchema, type ParsedNotificationQuery } from '../../../../shared/ipc/contract';
import type { AutoBuyDayRow, AutoBuySkipRow, FiringQuery, ParsedLedgerQuery, ParsedTradeQuery, SavedSearchList } from '../types';
import { listNotifications, unreadNotificationCount } from './notificationRows';
import type { Db } from './open';
import { alertRuleOf, FIRING_SELECT, firingOf, LEDGER_SELECT, ledgerOf, recipientOf, settingsOf, TRADE_SELECT, tradeOf } from './recordRows';

const MAX_SERIES_POINTS = 2000;
const STATEMENT_CACHE_SIZE = 100;

/** `text` as a LIKE pattern that matches it literally (% and _ escaped with \\). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class RecordsReader {
  private readonly statements = new Map<string, Statement>();

  constructor(protected readonly db: Db) {}

  /** A prepared statement, kept for reuse (the oldest dropped past the cache's size). */
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value as string);
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement as unknown as Statement<P, R>;
  }

  private countOf(from: string, where: string, params: unknown[]): number {
    return this.prepare<unknown[], number>(`SELECT count(*) FROM ${from} ${where}`).pluck().get(...params) as number;
  }

  getMeta(key: string): unknown {
    const value = this.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
    return value === undefined ? null : (JSON.parse(value) as unknown);
  }

  // ---- trades

  queryTrades(q: ParsedTradeQuery): Page<Trade> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.statuses.length > 0) {
      where.push(`status IN (${q.statuses.map(() => '?').join(', ')})`);
      params.push(...q.statuses);
    }
    if (q.activeOnly) {
      where.push(`status IN (${ACTIVE_TRADE_STATUSES.map(() => '?').join(', ')})`);
      params.push(...ACTIVE_TRADE_STATUSES);
    }
    if (q.from !== null) {
      where.push('createdAt >= ?');
      params.push(q.from);
    }
    if (q.to !== null) {
      where.push('createdAt <= ?');
      params.push(q.to);
    }
    // The table shows ids shortened: a filter matches the start of an id (ASCII case ignored by LIKE).
    if (q.externalId !== '') {
      where.push("externalId LIKE ? ESCAPE '\\'");
      params.push(`${escapeLike(q.externalId)}%`);
    }
    if (q.tradeId !== '') {
      where.push("tradeId LIKE ? ESCAPE '\\'");
      params.push(`${escapeLike(q.tradeId)}%`);
    }
    if (q.webhookFailed) where.push("webhookStatus = 'failed'");
    const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const rows = this.prepare<unknown[], Record<string, unknown>>(
      `SELECT ${TRADE_SELECT} FROM trades ${whereSql} ORDER BY createdAt DESC, tradeId DESC LIMIT ? OFFSET ?`,
    ).all(...params, q.limit, q.offset);
    const total = this.countOf('trades', whereSql, params);
    return { rows: rows.map(tradeOf), total, offset: q.offset, limit: q.limit };
  }

  getTrade(tradeId: string): TradeDetail | null {
    const row = this.prepare<[string], Record<string, unknown>>(`SELECT ${TRADE_SELECT} FROM trades WHERE tradeId = ?`).get(tradeId);
    if (!row) return null;
    const timeline = this.prepare<[string], TradeTimelineEntry>(
      "SELECT status, at, errorCode, failReason, source FROM trade_timeline WHERE tradeId = ? ORDER BY at, CASE status WHEN 'PENDING' THEN 0 WHEN 'CREATING' THEN 0 WHEN 'SENT' THEN 1 WHEN 'REVERSED' THEN 3 ELSE 2 END",
    ).all(tradeId);
    return { trade: tradeOf(row), timeline };
  }

  activeTrades(): Trade[] {
    return this.prepare<string[], Record<string, unknown>>(
      `SELECT ${TRADE_SELECT} FROM trades WHERE status IN (${ACTIVE_TRADE_STATUSES.map(() => '?').join(', ')}) ORDER BY createdAt DESC, tradeId DESC`,
    )
      .all(...ACTIVE_TRADE_STATUSES)
      .map(tradeOf);
  }

  findTradeByExternalId(externalId: string): Trade | null {
    const row = this.prepare<[string], Record<string, unknown>>(`SELECT ${TRADE_SELECT} FROM trades WHERE externalId = ? LIMIT 1`).get(externalId);
    return row ? tradeOf(row) : null;
  }

  // ---- ledger

  private ledgerWhere(q: ParsedLedgerQuery): { sql: string; params: unknown[] } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.types.length > 0) {
      where.push(`type IN (${q.types.map(() => '?').join(', ')})`);
      params.push(...q.types);
    }
    if (q.tradeId !== '') {
      where.push("tradeId LIKE ? ESCAPE '\\'");
      params.push(`${escapeLike(q.tradeId)}%`);
    }
    if (q.from !== null) {
      where.push('createdAt >= ?');
      params.push(q.from);
    }
    if (q.to !== null) {
      where.push('createdAt <= ?');
      params.push(q.to);
    }
    return { sql: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', params };
  }

  queryLedger(q: ParsedLedgerQuery): Page<LedgerRow> {
    const { sql, params } = this.ledgerWhere(q);
    const rows = this.prepare<unknown[], Record<string, unknown>>(
      `SELECT ${LEDGER_SELECT} FROM ledger ${sql} ORDER BY createdAt DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...params, q.limit, q.offset);
    const total = this.countOf('ledger', sql, params);
    return { rows: rows.map(ledgerOf), total, offset: q.offset, limit: q.limit };
  }

  /** Balance after each entry, oldest first; long series are thinned to the last point of each bucket. */
  balanceSeries(q: ParsedLedgerQuery): BalancePoint[] {
    const { sql, params } = this.ledgerWhere(q);
    const points = this.prepare<unknown[], { at: string; balance: number }>(
      `SELECT createdAt AS at, balanceAfter AS balance FROM ledger ${sql} ORDER BY createdAt, id`,
    ).all(...params);
    if (points.length <= MAX_SERIES_POINTS) return points;
    const step = points.length / MAX_SERIES_POINTS;
    const thinned: BalancePoint[] = [];
    for (let bucket = 1; bucket <= MAX_SERIES_POINTS; bucket++) {
      const point = points[Math.min(points.length - 1, Math.ceil(bucket * step) - 1)];
      if (point) thinned.push(point);
    }
    return thinned;
  }

  latestLedgerCreatedAt(): string | null {
    return (this.prepare<[], string | null>('SELECT max(createdAt) FROM ledger').pluck().get() as string | null) ?? null;
  }

  // ---- recipients, rules, firings, settings

  listRecipients(): Recipient[] {
    return this.prepare<[], Record<string, unknown>>('SELECT id, label, tradeUrl, createdAt FROM recipients ORDER BY label COLLATE NOCASE, createdAt')
      .all()
      .map(recipientOf);
  }

  getRecipient(id: string): Recipient | null {
    const row = this.prepare<[string], Record<string, unknown>>('SELECT id, label, tradeUrl, createdAt FROM recipients WHERE id = ?').get(id);
    return row ? recipientOf(row) : null;
  }

  listAlertRules(): AlertRule[] {
    return this.prepare<[], string>('SELECT json FROM alert_rules ORDER BY createdAt, id')
      .pluck()
      .all()
      .map((json) => alertRuleOf(json as string));
  }

  getAlertRule(id: string): AlertRule | null {
    const json = this.prepare<[string], string>('SELECT json FROM alert_rules WHERE id = ?').pluck().get(id) as string | undefined;
    return json === undefined ? null : alertRuleOf(json);
  }

  listFirings(query: FiringQuery): AlertFiring[] {
    const limit = Math.max(1, Math.min(query.limit ?? 200, 10_000));
    // Auto-buy skips are listed folded (autoBuySkips), not one row each.
    const where = query.unacknowledgedOnly ? 'WHERE autoBuySkipped IS NULL AND acknowledged = 0' : 'WHERE autoBuySkipped IS NULL';
    return this.prepare<[number], Record<string, unknown>>(`SELECT ${FIRING_SELECT} FROM alert_firings ${where} ORDER BY firedAt DESC, id LIMIT ?`)
      .all(limit)
      .map(firingOf);
  }

  /** `ruleId:itemId:price` of every stored firing: what auto-buy must not fire again. */
  firingKeys(): string[] {
    return this.prepare<[], string>("SELECT ruleId || ':' || itemId || ':' || price FROM alert_firings").pluck().all() as string[];
  }

  unacknowledgedFiringCount(): number {
    return this.prepare<[], number>('SELECT count(*) FROM alert_firings WHERE acknowledged = 0').pluck().get() as number;
  }

  autoBuyDay(sinceIso: string): AutoBuyDayRow[] {
    return this.prepare<[string], AutoBuyDayRow>(
      `SELECT ruleId,
              coalesce(sum(CASE WHEN autoBuyTradeId IS NOT NULL THEN price END), 0) AS spent,
              count(autoBuySkipped) AS skipped
         FROM alert_firings WHERE firedAt >= ? AND (autoBuyTradeId IS NOT NULL OR autoBuySkipped IS NOT NULL)
        GROUP BY ruleId`,
    ).all(sinceIso) as AutoBuyDayRow[];
  }

  autoBuySkips(limit: number): AutoBuySkipRow[] {
    // firedAt is UTC ISO with Z: its first 10 characters are the UTC day. ruleName: the row of max(firedAt) (SQLite's bare column rule).
    return this.prepare<[number], AutoBuySkipRow>(
      `SELECT ruleId, ruleName, substr(firedAt, 1, 10) AS day, autoBuySkipped AS reason, count(*) AS count, max(firedAt) AS lastAt
         FROM alert_firings WHERE autoBuySkipped IS NOT NULL
        GROUP BY ruleId, day, autoBuySkipped ORDER BY day DESC, lastAt DESC LIMIT ?`,
    ).all(Math.max(1, Math.min(limit, 10_000))) as AutoBuySkipRow[];
  }

  autoBuyBaseline(): string[] {
    return this.prepare<[], string>("SELECT ruleId || ':' || itemId FROM auto_buy_baseline").pluck().all() as string[];
  }

  listNotifications(query: ParsedNotificationQuery): NotificationPage {
    return listNotifications(this.db, query);
  }

  unreadNotificationCount(): number {
    return unreadNotificationCount(this.db);
  }

  /** By name; a row whose query no longer passes the schema (hand-edited, or from a build with other filters) is left out and reported. */
  listSearches(): SavedSearchList {
    const rows = this.prepare<[], { id: string; name: string; query: string; createdAt: string; updatedAt: string }>(
      'SELECT id, name, query, createdAt, updatedAt FROM saved_searches ORDER BY name COLLATE NOCASE, id',
    ).all();
    const list: SavedSearchList = { searches: [], skipped: [] };
    for (const row of rows) {
      let json: unknown;
      try {
        json = JSON.parse(row.query);
      } catch (error) {
        list.skipped.push({ id: row.id, name: row.name, problem: `not JSON (${(error as Error).message})` });
        continue;
      }
      const parsed = savedSearchQuerySchema.safeParse(json);
      if (parsed.success) list.searches.push({ ...row, query: parsed.data });
      else list.skipped.push({ id: row.id, name: row.name, problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ') });
    }
    return list;
  }

  getSettings(): AppSettings {
    return settingsOf(this.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings').all());
  }
}
