/**
 * The reader thread's answers about the user's records: trades, the ledger, recipients, alert rules and
 * firings, notifications, saved searches and meta.
 */
import type { Trade } from '../../../../shared/api';
import { ACTIVE_TRADE_STATUSES } from '../../../../shared/api';
import type {
  AlertFiring,
  AlertRule,
  BalancePoint,
  LedgerRow,
  NotificationPage,
  Page,
  Recipient,
  StoredNotification,
  TradeDetail,
  TradeTimelineEntry,
} from '../../../../shared/ipc';
import {
  ledgerQuerySchema,
  notificationQuerySchema,
  savedSearchQuerySchema,
  tradeQuerySchema,
  type LedgerQuery,
  type NotificationQuery,
  type TradeQuery,
} from '../../../../shared/ipc/contract';
import type {
  AutoBuyDayRow,
  AutoBuyRecord,
  AutoBuySkipRow,
  ParsedLedgerQuery,
  ParsedTradeQuery,
  SavedSearchList,
} from '../types';
import { notificationRuns } from '../../../../shared/notifications';
import { statementCache, type Db, type Prepare } from './open';
import { alertRuleOf, FIRING_SELECT, firingOf, type FiringRow, LEDGER_FIELDS, TRADE_SELECT } from './recordRows';

const MAX_SERIES_POINTS = 2000;
const AUTO_BUY_SELECT = 'externalId, ruleId, itemId, price, at, state, tradeId';

/** One condition of a WHERE clause and its parameters; `false` when the filter is not asked for. */
type Clause = readonly [sql: string, ...params: unknown[]] | false;

function whereOf(clauses: Clause[]): { where: string; params: unknown[] } {
  const asked = clauses.filter((clause) => clause !== false);
  return {
    where: asked.length > 0 ? `WHERE ${asked.map(([sql]) => sql).join(' AND ')}` : '',
    params: asked.flatMap(([, ...params]) => params),
  };
}

function isIn(column: string, values: readonly unknown[]): Clause {
  return values.length > 0 && [`${column} IN (${values.map(() => '?').join(', ')})`, ...values];
}

/** The table shows ids shortened: a filter matches the start of an id (ASCII case ignored by LIKE; % and _ literal). */
function startsWith(column: string, prefix: string): Clause {
  return prefix !== '' && [`${column} LIKE ? ESCAPE '\\'`, `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`];
}

/** The WHERE of a trades query (its page, its count, an export's chunks). */
export function tradeWhere(q: ParsedTradeQuery): { where: string; params: unknown[] } {
  return whereOf([
    isIn('status', q.statuses),
    q.activeOnly && isIn('status', ACTIVE_TRADE_STATUSES),
    q.from !== null && ['createdAt >= ?', q.from],
    q.to !== null && ['createdAt <= ?', q.to],
    startsWith('externalId', q.externalId),
    startsWith('tradeId', q.tradeId),
    q.webhookFailed && ["webhookStatus = 'failed'"],
  ]);
}

/** The WHERE of a ledger query (its page, its count, the balance series, an export's chunks). */
export function ledgerWhere(q: ParsedLedgerQuery): { where: string; params: unknown[] } {
  return whereOf([
    isIn('type', q.types),
    startsWith('tradeId', q.tradeId),
    q.from !== null && ['createdAt >= ?', q.from],
    q.to !== null && ['createdAt <= ?', q.to],
  ]);
}

export class RecordsReader {
  /** Also the writer's cache: RecordsWriter reads through a RecordsReader on its own connection. */
  readonly prepare: Prepare;

  constructor(protected readonly db: Db) {
    this.prepare = statementCache(db);
  }

  private countOf(from: string, where: string, params: unknown[]): number {
    return this.prepare(`SELECT count(*) FROM ${from} ${where}`)
      .pluck()
      .get(...params) as number;
  }

  getMeta(key: string): unknown {
    const value = this.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get(key);
    return value === undefined ? null : (JSON.parse(value) as unknown);
  }

  // ---- trades

  queryTrades(query: TradeQuery = {}): Page<Trade> {
    const q = tradeQuerySchema.parse(query);
    const { where, params } = tradeWhere(q);
    const rows = this.prepare<unknown[], Trade>(
      `SELECT ${TRADE_SELECT} FROM trades ${where} ORDER BY createdAt DESC, tradeId DESC LIMIT ? OFFSET ?`,
    ).all(...params, q.limit, q.offset);
    return { rows, total: this.countOf('trades', where, params), offset: q.offset, limit: q.limit };
  }

  /** A trade as stored (the writer's too). */
  trade(tradeId: string): Trade | undefined {
    return this.prepare<[string], Trade>(`SELECT ${TRADE_SELECT} FROM trades WHERE tradeId = ?`).get(tradeId);
  }

  getTrade(tradeId: string): TradeDetail | null {
    const trade = this.trade(tradeId);
    if (!trade) return null;
    const timeline = this.prepare<[string], TradeTimelineEntry>(
      "SELECT status, at, errorCode, failReason, source FROM trade_timeline WHERE tradeId = ? ORDER BY at, CASE status WHEN 'PENDING' THEN 0 WHEN 'CREATING' THEN 0 WHEN 'SENT' THEN 1 WHEN 'REVERSED' THEN 3 ELSE 2 END",
    ).all(tradeId);
    return { trade, timeline };
  }

  activeTrades(): Trade[] {
    const { where, params } = whereOf([isIn('status', ACTIVE_TRADE_STATUSES)]);
    return this.prepare<unknown[], Trade>(
      `SELECT ${TRADE_SELECT} FROM trades ${where} ORDER BY createdAt DESC, tradeId DESC`,
    ).all(...params);
  }

  findTradeByExternalId(externalId: string): Trade | null {
    return (
      this.prepare<[string], Trade>(`SELECT ${TRADE_SELECT} FROM trades WHERE externalId = ? LIMIT 1`).get(
        externalId,
      ) ?? null
    );
  }

  // ---- ledger

  queryLedger(query: LedgerQuery = {}): Page<LedgerRow> {
    const q = ledgerQuerySchema.parse(query);
    const { where, params } = ledgerWhere(q);
    const rows = this.prepare<unknown[], LedgerRow>(
      `SELECT ${LEDGER_FIELDS.join(', ')} FROM ledger ${where} ORDER BY createdAt DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...params, q.limit, q.offset);
    return { rows, total: this.countOf('ledger', where, params), offset: q.offset, limit: q.limit };
  }

  /** Balance after each entry, oldest first; long series are thinned to the last point of each bucket. */
  balanceSeries(query: LedgerQuery = {}): BalancePoint[] {
    const { where, params } = ledgerWhere(ledgerQuerySchema.parse(query));
    const points = this.prepare<unknown[], BalancePoint>(
      `SELECT createdAt AS at, balanceAfter AS balance FROM ledger ${where} ORDER BY createdAt, id`,
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
    return this.prepare<[], string | null>('SELECT max(createdAt) FROM ledger').pluck().get() ?? null;
  }

  // ---- recipients, rules, firings

  listRecipients(): Recipient[] {
    return this.prepare<[], Recipient>(
      'SELECT id, label, tradeUrl, createdAt FROM recipients ORDER BY label COLLATE NOCASE, createdAt',
    ).all();
  }

  getRecipient(id: string): Recipient | null {
    return (
      this.prepare<[string], Recipient>('SELECT id, label, tradeUrl, createdAt FROM recipients WHERE id = ?').get(id) ??
      null
    );
  }

  listAlertRules(): AlertRule[] {
    return this.prepare<[], string>('SELECT json FROM alert_rules ORDER BY createdAt, id')
      .pluck()
      .all()
      .map(alertRuleOf);
  }

  getAlertRule(id: string): AlertRule | null {
    const json = this.prepare<[string], string>('SELECT json FROM alert_rules WHERE id = ?').pluck().get(id);
    return json === undefined ? null : alertRuleOf(json);
  }

  listFirings(query: { limit?: number; unacknowledgedOnly?: boolean } = {}): AlertFiring[] {
    const limit = Math.max(1, Math.min(query.limit ?? 200, 10_000));
    // Auto-buy skips are listed folded (autoBuySkips), not one row each.
    const where = query.unacknowledgedOnly
      ? 'WHERE autoBuySkipped IS NULL AND acknowledged = 0'
      : 'WHERE autoBuySkipped IS NULL';
    return this.prepare<[number], FiringRow>(
      `SELECT ${FIRING_SELECT} FROM alert_firings ${where} ORDER BY firedAt DESC, id LIMIT ?`,
    )
      .all(limit)
      .map(firingOf);
  }

  /** `ruleId:itemId:price` of every stored firing: what auto-buy must not fire again. */
  firingKeys(): string[] {
    return this.prepare<[], string>("SELECT ruleId || ':' || itemId || ':' || price FROM alert_firings").pluck().all();
  }

  unacknowledgedFiringCount(): number {
    return this.prepare<[], number>('SELECT count(*) FROM alert_firings WHERE acknowledged = 0')
      .pluck()
      .get() as number;
  }

  /** Per rule since `sinceIso`: the auto-buys bought (in flight and unknown ones are `unresolvedAutoBuys`) and the skips. */
  autoBuyDay(sinceIso: string): AutoBuyDayRow[] {
    return this.prepare<[string, string], AutoBuyDayRow>(
      `SELECT ruleId, sum(spent) AS spent, sum(skipped) AS skipped FROM (
         SELECT ruleId, price AS spent, 0 AS skipped FROM auto_buys WHERE at >= ? AND state = 'bought'
         UNION ALL
         SELECT ruleId, 0, 1 FROM alert_firings WHERE firedAt >= ? AND autoBuySkipped IS NOT NULL)
        GROUP BY ruleId`,
    ).all(sinceIso, sinceIso);
  }

  /** Auto-buys whose outcome the app has not learnt: in flight when it stopped, or answered by nothing. */
  unresolvedAutoBuys(): AutoBuyRecord[] {
    return this.prepare<[], AutoBuyRecord>(
      `SELECT ${AUTO_BUY_SELECT} FROM auto_buys WHERE state IN ('in_flight', 'unknown') ORDER BY at, externalId`,
    ).all();
  }

  autoBuy(externalId: string): AutoBuyRecord | null {
    return (
      this.prepare<[string], AutoBuyRecord>(`SELECT ${AUTO_BUY_SELECT} FROM auto_buys WHERE externalId = ?`).get(
        externalId,
      ) ?? null
    );
  }

  autoBuySkips(limit = 500): AutoBuySkipRow[] {
    // firedAt is UTC ISO with Z: its first 10 characters are the UTC day. ruleName: the row of max(firedAt) (SQLite's bare column rule).
    return this.prepare<[number], AutoBuySkipRow>(
      `SELECT ruleId, ruleName, substr(firedAt, 1, 10) AS day, autoBuySkipped AS reason, count(*) AS count, max(firedAt) AS lastAt
         FROM alert_firings WHERE autoBuySkipped IS NOT NULL
        GROUP BY ruleId, day, autoBuySkipped ORDER BY day DESC, lastAt DESC LIMIT ?`,
    ).all(Math.max(1, Math.min(limit, 10_000)));
  }

  autoBuyBaseline(): string[] {
    return this.prepare<[], string>("SELECT ruleId || ':' || itemId FROM auto_buy_baseline").pluck().all();
  }

  // ---- notifications

  /** Newest first; `target` is stored as JSON. */
  listNotifications(input: NotificationQuery = {}): NotificationPage {
    const query = notificationQuerySchema.parse(input);
    const { where, params } = whereOf([
      isIn('category', query.categories),
      isIn('severity', query.severities),
      query.unreadOnly && ['readAt IS NULL'],
    ]);
    const total = this.countOf('notifications', where, params);
    const rows = this.prepare<unknown[], Omit<StoredNotification, 'target'> & { target: string | null }>(
      `SELECT id, kind, category, severity, title, body, target, at, readAt FROM notifications ${where} ORDER BY at DESC, id LIMIT ? OFFSET ?`,
    ).all(...params, query.limit, query.offset);
    const notifications = rows.map((row) => ({
      ...row,
      target: row.target === null ? null : (JSON.parse(row.target) as StoredNotification['target']),
    }));
    return { rows: notifications, total, unread: this.unreadNotificationCount() };
  }

  /**
   * Unread lines of the centre: the runs it shows as one line (groupNotifications: "12 trades delivered") that hold
   * an unread notification, so the badge, the title and the tray count what the list shows. Runs are read newest
   * first, and no older notification changes a newer run: from the oldest unread one on is enough.
   */
  unreadNotificationCount(): number {
    const oldest =
      this.prepare<[], string | null>('SELECT min(at) FROM notifications WHERE readAt IS NULL').pluck().get() ?? null;
    if (oldest === null) return 0;
    const rows = this.prepare<
      [string],
      Pick<StoredNotification, 'id' | 'kind' | 'category' | 'severity' | 'at' | 'readAt'>
    >('SELECT id, kind, category, severity, at, readAt FROM notifications WHERE at >= ? ORDER BY at DESC, id').all(
      oldest,
    );
    return notificationRuns(rows).filter((run) => run.some((n) => n.readAt === null)).length;
  }

  // ---- saved searches

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
      else
        list.skipped.push({
          id: row.id,
          name: row.name,
          problem: parsed.error.issues
            .map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`)
            .join('; '),
        });
    }
    return list;
  }
}
