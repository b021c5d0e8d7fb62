/**
 * The reader thread's service: a read-only connection that answers the UI's
 * queries. In WAL mode it reads the last committed state while the writer
 * works, so a long sync never delays a query.
 */
import type { Statement } from 'better-sqlite3';
import type { Item, Trade } from '../../../../shared/api';
import { ACTIVE_TRADE_STATUSES, RARITY_COLORS } from '../../../../shared/api';
import type {
  AlertFiring,
  AlertRule,
  AppSettings,
  BalancePoint,
  CatalogInfo,
  CatalogRow,
  ItemDetail,
  LedgerRow,
  Page,
  PricePoint,
  Recipient,
  TradeDetail,
  TradeTimelineEntry,
} from '../../../../shared/ipc';
import type { AutoBuyDayRow, AutoBuySkipRow, FiringQuery, ParsedCatalogQuery, ParsedLedgerQuery, ParsedTradeQuery, ReaderMethods } from '../types';
import { CatalogIndex, type IndexQuery } from './catalogIndex';
import { CheckpointService, openReadConnection, type Db } from './open';
import { listNotifications, unreadNotificationCount } from './notificationRows';
import type { NotificationPage } from '../../../../shared/ipc';
import type { ParsedNotificationQuery } from '../../../../shared/ipc/contract';
import {
  CATALOG_ROW_SELECT,
  catalogRowOf,
  type CatalogRowValues,
  FIRING_SELECT,
  firingOf,
  isoOf,
  LEDGER_SELECT,
  ledgerOf,
  META,
  rarityRankOf,
  recipientOf,
  settingsOf,
  TRADE_SELECT,
  tradeOf,
} from './rows';

const SORT_COLUMN: Record<ParsedCatalogQuery['sort'], string> = {
  price: 'price',
  name: 'name',
  float: 'float',
  // An item without wear (sticker, charm, vanilla knife) has seed 0 but no pattern: it sorts as empty.
  paintSeed: 'CASE WHEN float IS NULL THEN NULL ELSE paintSeed END',
  phase: 'phase',
  stickers: 'stickerCount',
  keychains: 'keyChainCount',
  listedAt: 'listed_at',
  rarity: 'rarity_rank',
};

/**
 * Search strategy: when the names that match hold at most this many items,
 * fetch those items through items(name_id) and sort them; otherwise walk the
 * sort column's index and test name_id against the matched set.
 */
const NAME_DRIVE_MAX_ITEMS = 10_000;
const MAX_SERIES_POINTS = 2000;
const CHECKPOINT_EVERY_MS = 200;
/** See the constructor. */
const FIRST_BUILD_DELAY_MS = 1500;
/**
 * When the idle upkeep of the catalog index runs: every minMs, or less often when a refresh took long
 * (a burst of live events), so that it takes at most ~1/shareDivisor of the thread; a query still
 * applies whatever is pending first, so answers are never stale. ReaderService's `upkeep` option
 * overrides it (tests).
 */
export interface UpkeepPolicy {
  minMs: number;
  maxMs: number;
  shareDivisor: number;
  /**
   * Past this many pending changes the upkeep runs at its next check whatever its share: under a flood of
   * ~90,000 events/s, 2 s between refreshes let more than 200,000 changes (MAX_INCREMENTAL_CHANGES) pile
   * up, and the index was rebuilt from every row (seconds of this thread) instead of repaired.
   */
  backlogChanges: number;
}
const UPKEEP: UpkeepPolicy = { minMs: 250, maxMs: 2000, shareDivisor: 10, backlogChanges: 50_000 };
const STATEMENT_CACHE_SIZE = 200;
const COUNT_CACHE_SIZE = 100;

/** The stored JSON with the live price: price changes update the rows, not the JSON (migrations 005, 006). */
function withPrice(item: Item, price: number | null): Item {
  if (price !== null) item.price = price;
  return item;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A term for an FTS5 query: one quoted phrase (trigram: a substring). */
function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

export function searchTerms(search: string): string[] {
  return search.trim().split(/\s+/u).filter((term) => term.length > 0);
}

interface NameMatch {
  ids: number[];
  items: number;
}

export class ReaderService implements ReaderMethods {
  readonly db: Db;
  private readonly statements = new Map<string, Statement>();
  private readonly counts = new Map<string, { version: number; total: number }>();
  private readonly dataVersion: Statement<[], number>;
  /** The in-memory catalog index once built (see catalogIndex.ts); queries use SQL until then. */
  private index: CatalogIndex | null = null;
  private build: { step: () => boolean; index: CatalogIndex } | null = null;
  private maintenance: NodeJS.Timeout | null = null;
  private readonly upkeep: UpkeepPolicy;
  /** When the next idle upkeep may run (its share of the thread: see UpkeepPolicy). */
  private upkeepDueAt = 0;
  private checkpoints: CheckpointService | null = null;
  private checkpointTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    readonly file: string,
    options: { catalogIndex?: boolean; checkpoint?: boolean; firstBuildDelayMs?: number; upkeep?: Partial<UpkeepPolicy> } = {},
  ) {
    this.upkeep = { ...UPKEEP, ...options.upkeep };
    this.db = openReadConnection(file);
    if (options.checkpoint) {
      const checkpoints = new CheckpointService(file);
      this.checkpoints = checkpoints;
      this.checkpointTimer = setInterval(() => {
        try {
          checkpoints.maybeCheckpoint();
        } catch {
          // Busy or closing: the next tick tries again (and the writer has its own threshold).
        }
      }, CHECKPOINT_EVERY_MS);
      this.checkpointTimer.unref();
    }
    this.dataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
    if (options.catalogIndex !== false) {
      // The first build waits a moment: an app that just opened asks for its first screens now, and
      // SQL answers those from its indexes in a few ms, while a build step (a 500k-row sort) holds the
      // thread for up to ~0.2 s.
      const first = setTimeout(() => {
        if (!this.closed && !this.index && !this.build) this.startBuild();
      }, options.firstBuildDelayMs ?? FIRST_BUILD_DELAY_MS);
      first.unref();
      // Idle upkeep: apply item changes between queries so a query rarely pays for them.
      this.scheduleUpkeep();
    }
  }

  close(): void {
    this.closed = true;
    if (this.maintenance) clearTimeout(this.maintenance);
    if (this.checkpointTimer) clearInterval(this.checkpointTimer);
    this.checkpoints?.close();
    this.build = null;
    this.db.close();
  }

  catalogIndexStatus(): { ready: boolean; items: number } {
    this.refreshIndex();
    return { ready: this.index !== null, items: this.index?.size ?? 0 };
  }

  /**
   * Builds the index one bounded step per macrotask, so queries are served
   * (in SQL) between steps. A failure never takes the thread down: queries stay
   * on SQL and the build is retried a little later.
   */
  private startBuild(): void {
    this.index = null;
    let build: { step: () => boolean; index: CatalogIndex };
    try {
      build = CatalogIndex.builder(this.db);
    } catch {
      this.build = null;
      this.retryBuildLater();
      return;
    }
    this.build = build;
    const tick = () => {
      if (this.closed || this.build !== build) return;
      let done: boolean;
      try {
        done = build.step();
      } catch {
        this.build = null;
        this.retryBuildLater();
        return;
      }
      if (!done) {
        setImmediate(tick);
        return;
      }
      this.build = null;
      if (build.index.ready) this.index = build.index;
      else this.startBuild();
    };
    setImmediate(tick);
  }

  private retryBuildLater(): void {
    if (this.closed) return;
    setTimeout(() => {
      if (!this.closed && !this.build && !this.index) this.startBuild();
    }, 5000).unref();
  }

  /** Checks every upkeep.minMs; refreshes when its share allows (upkeepDueAt) or a backlog has built up. */
  private scheduleUpkeep(): void {
    const { minMs, maxMs, shareDivisor, backlogChanges } = this.upkeep;
    this.maintenance = setTimeout(() => {
      if (this.closed) return;
      if (performance.now() >= this.upkeepDueAt || this.upkeepBacklog() >= backlogChanges) {
        const started = performance.now();
        this.refreshIndex();
        const tookMs = performance.now() - started;
        // Due one check early: the check that comes after it runs it.
        this.upkeepDueAt = performance.now() + Math.min(maxMs, Math.max(minMs, tookMs * shareDivisor)) - minMs;
      }
      this.scheduleUpkeep();
    }, minMs);
    this.maintenance.unref();
  }

  private upkeepBacklog(): number {
    try {
      return this.index?.pendingChanges(this.db) ?? 0;
    } catch {
      return 0; // refreshIndex reports a broken index
    }
  }

  private refreshIndex(): void {
    if (!this.index || this.closed) return;
    try {
      if (this.index.refresh(this.db) === 'rebuild') this.startBuild();
    } catch {
      this.index = null;
      this.retryBuildLater();
    }
  }

  private prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.statements.keys().next().value;
        if (oldest !== undefined) this.statements.delete(oldest);
      }
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement as unknown as Statement<P, R>;
  }

  /** count(*) for a WHERE clause, remembered until the database changes (paging and re-sorting reuse it). */
  private countOf(from: string, where: string, params: unknown[]): number {
    const version = this.dataVersion.get() as number;
    const key = `${from}|${where}|${JSON.stringify(params)}`;
    const cached = this.counts.get(key);
    if (cached && cached.version === version) return cached.total;
    const total = this.prepare<unknown[], number>(`SELECT count(*) FROM ${from} ${where}`).pluck().get(...params) as number;
    if (this.counts.size >= COUNT_CACHE_SIZE) {
      const oldest = this.counts.keys().next().value;
      if (oldest !== undefined) this.counts.delete(oldest);
    }
    this.counts.set(key, { version, total });
    return total;
  }

  private meta(key: string): unknown {
    const value = this.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
    return value === undefined ? null : (JSON.parse(value) as unknown);
  }

  getMeta(key: string): unknown {
    return this.meta(key);
  }

  // ---- catalog

  /** Names containing every term: FTS5 trigram for terms of 3+ characters, LIKE on the (small) names table for shorter ones. */
  private matchNames(terms: string[]): NameMatch {
    const long = terms.filter((term) => [...term].length >= 3);
    const short = terms.filter((term) => [...term].length < 3);
    const params: unknown[] = [];
    let sql: string;
    if (long.length > 0) {
      sql = 'SELECT n.name_id AS id, n.item_count AS c FROM names_fts JOIN names n ON n.name_id = names_fts.rowid WHERE names_fts MATCH ?';
      params.push(long.map(ftsPhrase).join(' AND '));
    } else {
      sql = 'SELECT n.name_id AS id, n.item_count AS c FROM names n WHERE 1';
    }
    for (const term of short) {
      sql += " AND n.name LIKE ? ESCAPE '\\'";
      params.push(`%${escapeLike(term)}%`);
    }
    const rows = this.prepare<unknown[], { id: number; c: number }>(sql).all(...params);
    let items = 0;
    const ids = rows.map((row) => {
      items += row.c;
      return row.id;
    });
    ids.sort((a, b) => a - b);
    return { ids, items };
  }

  queryCatalog(q: ParsedCatalogQuery): Page<CatalogRow> {
    const empty = { rows: [], total: 0, offset: q.offset, limit: q.limit };
    const terms = searchTerms(q.search);
    const nameMatch = terms.length > 0 ? this.matchNames(terms) : null;
    if (nameMatch !== null && nameMatch.ids.length === 0) return empty;
    this.refreshIndex();
    if (this.index) return this.queryCatalogIndexed(this.index, q, nameMatch);
    return this.queryCatalogSql(q, nameMatch);
  }

  private queryCatalogIndexed(index: CatalogIndex, q: ParsedCatalogQuery, nameMatch: NameMatch | null): Page<CatalogRow> {
    let names: Uint8Array | null = null;
    if (nameMatch !== null) {
      names = new Uint8Array((nameMatch.ids[nameMatch.ids.length - 1] ?? 0) + 1);
      for (const id of nameMatch.ids) names[id] = 1;
    }
    let rarities: Uint8Array | null = null;
    if (q.rarityColors.length > 0) {
      rarities = new Uint8Array(RARITY_COLORS.length + 1);
      for (const color of q.rarityColors) {
        const rank = rarityRankOf(color);
        if (rank !== null) rarities[rank + 1] = 1;
      }
    }
    const stickerName = q.stickerName.trim().toLowerCase();
    const query: IndexQuery = {
      sort: q.sort,
      desc: q.direction === 'desc',
      offset: q.offset,
      limit: q.limit,
      names,
      priceMin: q.priceMin,
      priceMax: q.priceMax,
      rarities,
      floatMin: q.floatMin,
      floatMax: q.floatMax,
      phase: q.phase,
      statTrak: q.statTrak,
      souvenir: q.souvenir,
      hasStickers: q.hasStickers,
      stickerName: stickerName === '' ? null : stickerName,
    };
    const { itemIds, total } = index.query(query);
    return { rows: this.rowsInOrder(itemIds), total, offset: q.offset, limit: q.limit };
  }

  /** Catalog rows of these items as readers see them (live prices laid over), in the given order. */
  private rowsInOrder(itemIds: number[]): CatalogRow[] {
    if (itemIds.length === 0) return [];
    const records = this.prepare<[string], CatalogRowValues>(`SELECT ${CATALOG_ROW_SELECT} FROM items_live WHERE itemId IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(JSON.stringify(itemIds));
    const byId = new Map(records.map((record) => [record[0], record]));
    const rows: CatalogRow[] = [];
    for (const itemId of itemIds) {
      const record = byId.get(itemId);
      if (record) rows.push(catalogRowOf(record));
    }
    return rows;
  }

  /**
   * The same query in SQL, used while the in-memory index builds. On `items` and its indexes when
   * no live price change is pending (after a sync or an open, usually); else on `items_live`, whose
   * price no index serves (~70 ms at 500k items), so that the answer stays exact.
   */
  private queryCatalogSql(q: ParsedCatalogQuery, nameMatch: NameMatch | null): Page<CatalogRow> {
    const empty = { rows: [], total: 0, offset: q.offset, limit: q.limit };
    const where: string[] = [];
    const params: unknown[] = [];
    const livePrices =
      this.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM item_prices) OR EXISTS (SELECT 1 FROM item_prices_pending)').pluck().get() === 1;
    let from = livePrices ? 'items_live' : 'items';
    if (nameMatch !== null) {
      if (nameMatch.items <= NAME_DRIVE_MAX_ITEMS) {
        if (!livePrices) from = 'items INDEXED BY items_name_id';
        where.push('name_id IN (SELECT value FROM json_each(?))');
      } else {
        // Many matches: walk the sort index instead; "+" keeps the planner off items(name_id).
        where.push('+name_id IN (SELECT value FROM json_each(?))');
      }
      params.push(JSON.stringify(nameMatch.ids));
    }
    if (q.priceMin !== null) {
      where.push('price >= ?');
      params.push(q.priceMin);
    }
    if (q.priceMax !== null) {
      where.push('price <= ?');
      params.push(q.priceMax);
    }
    if (q.rarityColors.length > 0) {
      const ranks = [...new Set(q.rarityColors.map(rarityRankOf).filter((rank): rank is number => rank !== null))];
      if (ranks.length === 0) return empty;
      where.push(`rarity_rank IN (${ranks.map(() => '?').join(', ')})`);
      params.push(...ranks);
    }
    if (q.floatMin !== null) {
      where.push('float >= ?');
      params.push(q.floatMin);
    }
    if (q.floatMax !== null) {
      where.push('float <= ?');
      params.push(q.floatMax);
    }
    if (q.phase !== null) {
      where.push('phase = ?');
      params.push(q.phase);
    }
    if (q.statTrak !== null) {
      where.push('statTrak = ?');
      params.push(q.statTrak ? 1 : 0);
    }
    if (q.souvenir !== null) {
      where.push('souvenir = ?');
      params.push(q.souvenir ? 1 : 0);
    }
    if (q.hasStickers !== null) where.push(q.hasStickers ? 'stickerCount > 0' : 'stickerCount = 0');
    const stickerName = q.stickerName.trim();
    if (stickerName !== '') {
      where.push("stickerNames LIKE ? ESCAPE '\\'");
      params.push(`%${escapeLike(stickerName)}%`);
    }

    const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const column = SORT_COLUMN[q.sort];
    const dir = q.direction === 'desc' ? 'DESC' : 'ASC';
    // Empty values (null) last in both directions, as the index walks them.
    const ids = this.prepare<unknown[], number>(`SELECT itemId FROM ${from} ${whereSql} ORDER BY ${column} ${dir} NULLS LAST, itemId ${dir} LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, q.limit, q.offset) as number[];
    const rows = this.rowsInOrder(ids);

    let total: number;
    if (where.length === 0) total = (this.meta(META.count) as number | null) ?? this.countOf('items', '', []);
    else if (nameMatch !== null && where.length === 1) total = nameMatch.items;
    else if (rows.length > 0 && rows.length < q.limit) total = q.offset + rows.length;
    else total = this.countOf(from, whereSql, params);
    return { rows, total, offset: q.offset, limit: q.limit };
  }

  getItem(itemId: number): ItemDetail | null {
    const live = this.prepare<[number], { json: string; listed_at: number; price: number }>(
      'SELECT j.json AS json, i.listed_at AS listed_at, i.price AS price FROM items_live i JOIN item_json j ON j.itemId = i.itemId WHERE i.itemId = ?',
    ).get(itemId);
    let item: Item;
    let onSale: boolean;
    let listedAt: number | null = null;
    if (live) {
      item = withPrice(JSON.parse(live.json) as Item, live.price);
      onSale = true;
      listedAt = live.listed_at;
    } else {
      const sold = this.prepare<[number, number], { json: string; price: number | null }>(
        `SELECT json, price FROM sold_items WHERE itemId = ?
         UNION ALL SELECT j.json, r.price FROM live_removals r JOIN item_json j ON j.itemId = r.itemId WHERE r.itemId = ?`,
      ).get(itemId, itemId);
      if (!sold) return null;
      item = withPrice(JSON.parse(sold.json) as Item, sold.price);
      onSale = false;
    }
    // Folded moves (one seek per run of price_moves: priceHistory.ts), then the live ones still in the change
    // log (writer.foldPriceMoves): of two at one time the later run's, or the log's, stays, as a merge or fold will leave it.
    const logged = this.prepare<[number, number], { at: number; price: number; previous: number }>(
      `SELECT at, price, previous FROM (
         SELECT m.at AS at, m.price AS price, m.previous AS previous, m.run AS run, 0 AS seq
         FROM price_move_runs r CROSS JOIN price_moves m ON m.run = r.run AND m.itemId = ?
         UNION ALL
         SELECT at, moved, previous, ${Number.MAX_SAFE_INTEGER}, seq FROM item_changes
         WHERE seq > coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${META.movesFolded}'), 0) AND itemId = ? AND moved IS NOT NULL
       ) ORDER BY at, run, seq`,
    ).all(itemId, itemId);
    // An item on sale shows its history from its listing on: the moves of an earlier listing (before a removal
    // or a sync that left it out) are not its price now.
    const since = listedAt === null ? logged : logged.filter((move) => move.at >= listedAt);
    const moves = since.filter((move, i) => since[i + 1]?.at !== move.at);
    // The history starts at the listing: the price before the first move (the first of its instant's), or the price now when it never moved.
    const priceHistory: PricePoint[] = [];
    const listed = listedAt ?? moves[0]?.at ?? null;
    if (listed !== null) priceHistory.push({ at: isoOf(Math.min(listed, moves[0]?.at ?? listed)), price: since[0]?.previous ?? item.price });
    for (const move of moves) priceHistory.push({ at: isoOf(move.at), price: move.price });
    return { item, priceHistory, onSale };
  }

  /** Items on sale, and those that left sale still kept in `sold_items` (the items of our active trades). */
  findItemsByIds(itemIds: number[]): Item[] {
    if (itemIds.length === 0) return [];
    return this.prepare<[string, string, string], { json: string; price: number | null }>(
      'SELECT json, price FROM (SELECT i.itemId, j.json, i.price FROM items_live i JOIN item_json j ON j.itemId = i.itemId WHERE i.itemId IN (SELECT value FROM json_each(?)) ' +
        'UNION ALL SELECT s.itemId, s.json, s.price FROM sold_items s WHERE s.itemId IN (SELECT value FROM json_each(?)) ' +
        'AND NOT EXISTS (SELECT 1 FROM items i2 WHERE i2.itemId = s.itemId) ' +
        // Removed live, not folded yet: sold, with the price it left at.
        'UNION ALL SELECT r.itemId, j.json, r.price FROM live_removals r JOIN item_json j ON j.itemId = r.itemId ' +
        'WHERE r.itemId IN (SELECT value FROM json_each(?))) ORDER BY itemId',
    )
      .all(JSON.stringify(itemIds), JSON.stringify(itemIds), JSON.stringify(itemIds))
      .map((row) => withPrice(JSON.parse(row.json) as Item, row.price));
  }

  catalogInfo(): CatalogInfo {
    return {
      totalItems: (this.meta(META.count) as number | null) ?? 0,
      totalValue: (this.meta(META.value) as number | null) ?? 0,
      lastUpdate: (this.meta(META.lastUpdate) as string | null) ?? null,
      syncedAt: (this.meta(META.syncedAt) as string | null) ?? null,
    };
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
      .map((json) => JSON.parse(json as string) as AlertRule);
  }

  getAlertRule(id: string): AlertRule | null {
    const json = this.prepare<[string], string>('SELECT json FROM alert_rules WHERE id = ?').pluck().get(id) as string | undefined;
    return json === undefined ? null : (JSON.parse(json) as AlertRule);
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

  getSettings(): AppSettings {
    return settingsOf(this.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings').all());
  }
}
