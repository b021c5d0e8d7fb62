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
import { dayOf, dayStart, nextDayStart, planDayPage, type DayCount } from './dayPages';
import { notificationRuns } from '../../../../shared/notifications';
import { statementCache, type Db, type Prepare } from './open';
import { readInOne } from './readInOne';
import { alertRuleOf, FIRING_SELECT, firingOf, type FiringRow, LEDGER_FIELDS, TRADE_SELECT } from './recordRows';

const MAX_SERIES_POINTS = 2000;
const AUTO_BUY_SELECT = 'externalId, ruleId, itemId, price, at, state, tradeId';

/** At most MAX_SERIES_POINTS points: of equal runs of the series, each run's last point. */
function thin(points: BalancePoint[]): BalancePoint[] {
  if (points.length <= MAX_SERIES_POINTS) return points;
  const step = points.length / MAX_SERIES_POINTS;
  const thinned: BalancePoint[] = [];
  for (let bucket = 1; bucket <= MAX_SERIES_POINTS; bucket++) {
    const point = points[Math.min(points.length - 1, Math.ceil(bucket * step) - 1)];
    if (point) thinned.push(point);
  }
  return thinned;
}

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

/** The least string above every string that starts with `folded` (null: none), in code point (UTF-8 byte) order. */
function prefixBound(folded: string): string | null {
  const points = Array.from(folded);
  while (points.length > 0) {
    const last = (points.pop() as string).codePointAt(0) as number;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return [...points, String.fromCodePoint(next)].join('');
    }
  }
  return null;
}

/**
 * The table shows ids shortened: a filter matches the start of an id, ASCII case ignored, `%` and `_` literal.
 * The range on the column's NOCASE index finds the candidates; LIKE (the same rule: ASCII case folded) decides.
 */
function startsWith(column: string, prefix: string): Clause {
  if (prefix === '') return false;
  const folded = prefix.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const bound = prefixBound(folded);
  const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return bound === null
    ? [`${column} COLLATE NOCASE >= ? AND ${column} LIKE ? ESCAPE '\\'`, folded, like]
    : [
        `${column} COLLATE NOCASE >= ? AND ${column} COLLATE NOCASE < ? AND ${column} LIKE ? ESCAPE '\\'`,
        folded,
        bound,
        like,
      ];
}

/** The statuses a trade query keeps (null: any), as `statuses` and `activeOnly` together say. */
function tradeStatuses(q: ParsedTradeQuery): readonly string[] | null {
  let statuses: readonly string[] | null = q.statuses.length > 0 ? q.statuses : null;
  if (q.activeOnly)
    statuses = (statuses ?? ACTIVE_TRADE_STATUSES).filter((s) => ACTIVE_TRADE_STATUSES.includes(s as never));
  return statuses;
}

/** A window of createdAt inside the query's dates: `lo` inclusive, `hi` exclusive (null: none). */
interface Window {
  lo: string | null;
  hi: string | null;
}
const NO_WINDOW: Window = { lo: null, hi: null };

/**
 * The query's dates (inclusive) within a window, as one lower and one upper bound: SQLite's range on an index takes
 * one of each, and the tighter one must be it. Timestamps are fixed-width UTC ISO: string order is time order.
 */
function dateClauses(q: { from: string | null; to: string | null }, window: Window): Clause[] {
  const lo = q.from === null ? window.lo : window.lo === null || q.from > window.lo ? q.from : window.lo;
  const toBinds = q.to !== null && (window.hi === null || q.to < window.hi);
  return [
    lo !== null && ['createdAt >= ?', lo],
    toBinds ? ['createdAt <= ?', q.to] : window.hi !== null && ['createdAt < ?', window.hi],
  ];
}

function tradeClauses(q: ParsedTradeQuery, window = NO_WINDOW): Clause[] {
  const statuses = tradeStatuses(q);
  return [
    statuses !== null && (statuses.length > 0 ? isIn('status', statuses) : ['0']),
    ...dateClauses(q, window),
    startsWith('externalId', q.externalId),
    startsWith('tradeId', q.tradeId),
    q.partner !== null && ['partner = ?', Number(q.partner)],
    q.webhookFailed && ["webhookStatus = 'failed'"],
    q.errorCode !== null && (q.errorCode === 0 ? ['errorCode IS NULL'] : ['errorCode = ?', q.errorCode]),
  ];
}

/** The WHERE of a trade query (its filters; not its paging). */
export function tradeWhere(q: ParsedTradeQuery): { where: string; params: unknown[] } {
  return whereOf(tradeClauses(q));
}

function ledgerClauses(q: ParsedLedgerQuery, window = NO_WINDOW): Clause[] {
  return [isIn('type', q.types), startsWith('tradeId', q.tradeId), ...dateClauses(q, window)];
}

/** The WHERE of a ledger query (its filters; not its paging). */
export function ledgerWhere(q: ParsedLedgerQuery): { where: string; params: unknown[] } {
  return whereOf(ledgerClauses(q));
}

/** How a records table pages: its day roll-up, the column the roll-up splits by, its key after createdAt. */
interface PagedTable {
  table: 'trades' | 'ledger';
  days: 'trade_days' | 'ledger_days';
  split: 'status' | 'type';
  key: 'tradeId' | 'id';
  /** The index in page order (createdAt, key). */
  order: 'trades_order' | 'ledger_created';
  select: string;
}

const TRADES_PAGED: PagedTable = {
  table: 'trades',
  days: 'trade_days',
  split: 'status',
  key: 'tradeId',
  order: 'trades_order',
  select: TRADE_SELECT,
};
const LEDGER_PAGED: PagedTable = {
  table: 'ledger',
  days: 'ledger_days',
  split: 'type',
  key: 'id',
  order: 'ledger_created',
  select: LEDGER_FIELDS.join(', '),
};
/** An id prefix matching more rows than this shows "2,000+" (Page.totalCapped) and pages that far. */
export const PREFIX_COUNT_CAP = 2_000;
/** Up to this many matches of an id prefix, its page is sorted from the prefix's index; more, read in page order. */
export const PREFIX_SORT_LIMIT = 20_000;

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

  /** `read`'s statements in one read transaction: a page and its total, a trade and its timeline agree. */
  protected readOnce<T>(read: () => T): T {
    return readInOne(this.db, read);
  }

  getMeta(key: string): unknown {
    const value = this.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get(key);
    return value === undefined ? null : (JSON.parse(value) as unknown);
  }

  // ---- trades

  queryTrades(query: TradeQuery = {}): Page<Trade> {
    const q = tradeQuerySchema.parse(query);
    // The roll-up counts by day and status: it answers when no other filter is asked.
    const byDays =
      q.externalId === '' && q.tradeId === '' && q.partner === null && !q.webhookFailed && q.errorCode === null;
    const prefix = q.externalId !== '' || q.tradeId !== '';
    return this.readOnce(() =>
      this.page<Trade>(TRADES_PAGED, (window) => tradeClauses(q, window), q, {
        split: byDays ? tradeStatuses(q) : undefined,
        prefix,
      }),
    );
  }

  /** A trade as stored (the writer's too). */
  trade(tradeId: string): Trade | undefined {
    return this.prepare<[string], Trade>(`SELECT ${TRADE_SELECT} FROM trades WHERE tradeId = ?`).get(tradeId);
  }

  getTrade(tradeId: string): TradeDetail | null {
    return this.readOnce(() => {
      const trade = this.trade(tradeId);
      if (!trade) return null;
      const timeline = this.prepare<[string], TradeTimelineEntry>(
        "SELECT status, at, errorCode, failReason, source FROM trade_timeline WHERE tradeId = ? ORDER BY at, CASE status WHEN 'PENDING' THEN 0 WHEN 'CREATING' THEN 0 WHEN 'SENT' THEN 1 WHEN 'REVERSED' THEN 3 ELSE 2 END",
      ).all(tradeId);
      return { trade, timeline };
    });
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
    const byDays = q.tradeId === '';
    return this.readOnce(() =>
      this.page<LedgerRow>(LEDGER_PAGED, (window) => ledgerClauses(q, window), q, {
        split: byDays ? (q.types.length > 0 ? q.types : null) : undefined,
        prefix: !byDays,
      }),
    );
  }

  /**
   * A page newest first. `split` given (null: any status/type): the filters are the split's and the dates only, and
   * the day roll-up gives the total and the days the page spans. Undefined: a selective filter (an id prefix, a
   * recipient, failed webhooks) is asked; its index finds the rows and they are counted, but an id prefix that
   * more than PREFIX_COUNT_CAP rows match (a character or two that many ids start with) has its total capped
   * (`totalCapped`) and its pages reach that far: no count or sort of a large match list.
   */
  private page<T>(
    paged: PagedTable,
    clauses: (window: Window) => Clause[],
    q: { from: string | null; to: string | null; offset: number; limit: number },
    how: { split: readonly string[] | null | undefined; prefix: boolean },
  ): Page<T> {
    const paging = { offset: q.offset, limit: q.limit };
    if (how.split === undefined) {
      const { where, params } = whereOf(clauses(NO_WINDOW));
      if (!how.prefix) {
        const total = this.countOf(paged.table, where, params);
        return {
          rows: q.offset < total ? this.pageRows<T>(paged, clauses(NO_WINDOW), q.offset, q.limit) : [],
          total,
          ...paging,
        };
      }
      // An id prefix: its matches counted up to PREFIX_SORT_LIMIT from its index. Up to that many, the newest are
      // sorted from that index (the sorter keeps offset + limit); more (most ids share the prefix), the page-order
      // index is read from the newest down, the prefix checked on it: it meets offset + limit matches soon.
      const some = this.prepare<unknown[], number>(
        `SELECT count(*) FROM (SELECT 1 FROM ${paged.table} ${where} LIMIT ${PREFIX_SORT_LIMIT + 1})`,
      )
        .pluck()
        .get(...params) as number;
      const total = Math.min(some, PREFIX_COUNT_CAP);
      const limit = Math.max(0, Math.min(q.limit, total - q.offset));
      const rows =
        limit > 0
          ? this.pageRows<T>(
              paged,
              clauses(NO_WINDOW),
              q.offset,
              limit,
              some > PREFIX_SORT_LIMIT ? paged.order : undefined,
            )
          : [];
      return { rows, total, ...(some > PREFIX_COUNT_CAP && { totalCapped: true }), ...paging };
    }
    const plan = planDayPage(this.dayCounts(paged, clauses, how.split, q), q.offset, q.limit);
    const rows = plan.read ? this.pageRows<T>(paged, clauses({ lo: plan.lo, hi: plan.hi }), plan.skip, q.limit) : [];
    return { rows, total: plan.total, ...paging };
  }

  /** The keys of the page from a covering index (`indexed`: that one), then those rows (a skipped row is never read whole). */
  private pageRows<T>(paged: PagedTable, clauses: Clause[], offset: number, limit: number, indexed?: string): T[] {
    const { where, params } = whereOf(clauses);
    const { table, key, select } = paged;
    return this.prepare<unknown[], T>(
      `SELECT ${select} FROM (SELECT ${key} FROM ${table} ${indexed ? `INDEXED BY ${indexed}` : ''} ${where}
        ORDER BY createdAt DESC, ${key} DESC LIMIT ? OFFSET ?)
        JOIN ${table} USING (${key}) ORDER BY createdAt DESC, ${key} DESC`,
    ).all(...params, limit, offset);
  }

  /** Matching rows by day, newest first: the roll-up's; the days the query's dates cut, counted from the rows. */
  private dayCounts(
    paged: PagedTable,
    clauses: (window: Window) => Clause[],
    split: readonly string[] | null,
    bounds: { from: string | null; to: string | null },
  ): DayCount[] {
    const { where, params } = whereOf([
      split !== null && (split.length > 0 ? isIn(paged.split, split) : ['0']),
      bounds.from !== null && ['day >= ?', dayOf(bounds.from)],
      bounds.to !== null && ['day <= ?', dayOf(bounds.to)],
    ]);
    const days = this.prepare<unknown[], DayCount>(
      `SELECT day, sum(n) AS n FROM ${paged.days} ${where} GROUP BY day HAVING sum(n) > 0 ORDER BY day DESC`,
    ).all(...params);
    const cut = new Set([bounds.from, bounds.to].filter((at) => at !== null).map(dayOf));
    return days.map(({ day, n }) => {
      if (!cut.has(day)) return { day, n };
      const inDay = whereOf(clauses({ lo: dayStart(day), hi: nextDayStart(day) }));
      return { day, n: this.countOf(paged.table, inDay.where, inDay.params) };
    });
  }

  /**
   * Balance after each entry, oldest first. Up to MAX_SERIES_POINTS entries: each one. More: the last balance of each
   * UTC hour (the `ledger_hours` roll-up; the hours the dates cut, from the rows), thinned to MAX_SERIES_POINTS by
   * the last point of each bucket when there are more hours.
   */
  balanceSeries(query: LedgerQuery = {}): BalancePoint[] {
    const q = ledgerQuerySchema.parse(query);
    return this.readOnce(() => this.series(q));
  }

  private series(q: ParsedLedgerQuery): BalancePoint[] {
    const { where, params } = ledgerWhere(q);
    const few = this.prepare<unknown[], number>(
      `SELECT count(*) FROM (SELECT 1 FROM ledger ${where} LIMIT ${MAX_SERIES_POINTS + 1})`,
    )
      .pluck()
      .get(...params) as number;
    if (few <= MAX_SERIES_POINTS || q.tradeId !== '')
      return thin(
        this.prepare<unknown[], BalancePoint>(
          `SELECT createdAt AS at, balanceAfter AS balance FROM ledger ${where} ORDER BY createdAt, id`,
        ).all(...params),
      );
    return thin(this.hourlyBalances(q));
  }

  /** The last balance of each hour with a matching entry, oldest first. */
  private hourlyBalances(q: ParsedLedgerQuery): BalancePoint[] {
    const fromHour = q.from === null ? null : q.from.slice(0, 13);
    const toHour = q.to === null ? null : q.to.slice(0, 13);
    const inner = whereOf([
      q.types.length > 0 ? isIn('type', q.types) : ["type = '*'"],
      fromHour !== null && ['hour > ?', fromHour],
      toHour !== null && ['hour < ?', toHour],
    ]);
    // Of several types in an hour, the latest entry (createdAt, then id); type '*' is every type's already.
    const rows = this.prepare<unknown[], { hour: string; lastAt: string; lastId: number; balance: number }>(
      `SELECT hour, lastAt, lastId, balance FROM ledger_hours ${inner.where} ORDER BY hour`,
    ).all(...inner.params);
    const latest = new Map<string, (typeof rows)[number]>();
    for (const row of rows) {
      const held = latest.get(row.hour);
      if (!held || row.lastAt > held.lastAt || (row.lastAt === held.lastAt && row.lastId > held.lastId))
        latest.set(row.hour, row);
    }
    const points = [...latest.values()]
      .sort((x, y) => (x.hour < y.hour ? -1 : 1))
      .map(({ lastAt, balance }) => ({ at: lastAt, balance }));
    const edge = (hour: string | null): BalancePoint | undefined => {
      if (hour === null) return undefined;
      const start = `${hour}:00:00.000Z`;
      const end = new Date(Date.parse(start) + 3_600_000).toISOString();
      const { where, params } = whereOf(ledgerClauses(q, { lo: start, hi: end }));
      return this.prepare<unknown[], BalancePoint>(
        `SELECT createdAt AS at, balanceAfter AS balance FROM ledger ${where} ORDER BY createdAt DESC, id DESC LIMIT 1`,
      ).get(...params);
    };
    const first = edge(fromHour);
    const last = toHour === fromHour ? undefined : edge(toHour);
    return [...(first ? [first] : []), ...points, ...(last ? [last] : [])];
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
    return this.readOnce((): NotificationPage => {
      const total = this.countOf('notifications', where, params);
      const rows = this.prepare<unknown[], Omit<StoredNotification, 'target'> & { target: string | null }>(
        `SELECT id, kind, category, severity, title, body, target, at, readAt FROM notifications ${where} ORDER BY at DESC, id LIMIT ? OFFSET ?`,
      ).all(...params, query.limit, query.offset);
      const notifications = rows.map((row) => ({
        ...row,
        target: row.target === null ? null : (JSON.parse(row.target) as StoredNotification['target']),
      }));
      return { rows: notifications, total, unread: this.unreadNotificationCount() };
    });
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
