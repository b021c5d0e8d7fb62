import { randomInt, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Trade, TradeHistoryQuery, TradeStatus, TradeUpdatedWebhook, WebhookStatus } from '../../shared/api';
import {
  ACTIVE_TRADES_WINDOW_MS,
  HISTORY_DEFAULT_LIMIT,
  HISTORY_DEFAULT_PAGE,
  PARTNER_BLOCK_THRESHOLD,
  PARTNER_BLOCK_WINDOW_MS,
  isActiveStatus,
} from '../../shared/api';
import { toUtcIso } from '../../shared/time';
import type { SandboxClock } from '../clock';
import { SANDBOX_CHOICES } from '../config';
import type { SqliteDatabase } from '../db/database';
import { ApiError, notFound } from './apiError';
import type { Catalog } from './catalog';
import type { SandboxEvents } from './events';
import type { ItemRecord } from './itemRecord';
import type { Ledger } from './ledger';
import { OldestFirst } from './oldestFirst';
import { findTransition, isPartnerStrike, resolveOutcome, returnsItemToSale } from './lifecycle';

export interface TradeRow {
  seq: number;
  trade_id: string;
  merchant_id: string;
  external_id: string | null;
  status: TradeStatus;
  price: number;
  item_id: number;
  asset_id: string;
  offer_id: string | null;
  trade_url: string;
  partner: string;
  holder: string | null;
  market_hash_name: string;
  phase: string | null;
  float: number | null;
  webhook_status: WebhookStatus | null;
  fail_reason: string | null;
  error_code: number | null;
  trade_duration_seconds: number;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  expires_at: number | null;
  completed_at: number | null;
  cancelled_at: number | null;
  end_protection: number | null;
  rollback_at: number | null;
  /** toWire() as JSON without `stage` and the closing brace; null until first computed. */
  wire: string | null;
}

/** What a history page needs of each row (all in the trades_page index): its id, for the wire JSON, and what `stage` is computed from. */
interface WireRow {
  trade_id: string;
  status: TradeStatus;
  end_protection: number | null;
  created_at: number;
}

/** A Trades/History answer kept for repeated identical polls (see Trades.historyBody). */
interface CachedPage {
  /** The merchant's trade-data version it was built from. */
  version: number;
  /** Clock time from which it may be stale: a `stage` turns 2, or a trade leaves the isActive window. */
  validUntil: number;
  /** The answer, gzipped: the form the spec asks clients to accept, ~6 times smaller than the JSON. */
  gzip: Buffer;
}

/** Bound of the history page cache (bytes of gzipped bodies): ~13,000 default pages of 50 trades. */
const PAGE_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * gzip level of history pages. Measured on a default page (50 trades, 30 KB): level 1 takes 95 µs for 4.8 KB,
 * level 6 211 µs for 4.4 KB. Pages are compressed once per change and then served from the cache, but a merchant
 * whose trades keep changing pays it on every poll: the cheaper level.
 */
const PAGE_GZIP_LEVEL = 1;

/** The query parameters in a fixed order: one cache key per distinct question. */
const HISTORY_QUERY_KEYS = [
  'tradeId',
  'status',
  'externalId',
  'webhookStatus',
  'isActive',
  'from',
  'to',
  'limit',
  'page',
] as const;

function historyQueryKey(query: TradeHistoryQuery): string {
  return HISTORY_QUERY_KEYS.map((key) => (query[key] === undefined ? '' : String(query[key]))).join('\u0001');
}

/** Bound of the in-memory wire JSON cache (characters; ~1 byte each): ~100k trades. */
const WIRE_CACHE_CHARS = 64 * 1024 * 1024;

const iso = (ms: number | null) => (ms === null ? null : toUtcIso(ms));

export interface NewTrade {
  merchantId: string;
  item: ItemRecord;
  tradeUrl: string;
  partner: string;
  externalId: string | null;
  tradeDurationSeconds: number;
}

export interface TransitionRequest {
  status: TradeStatus;
  errorCode?: number | null;
  failReason?: string | null;
}

export interface TransitionOptions {
  /** The item is gone (sold elsewhere): it does not go back on sale whatever the outcome. */
  itemGone?: boolean;
}

export class Trades {
  private readonly byIdStmt;
  private readonly setWireStmt;
  private readonly wireStmt;
  private readonly expiryTimers = new Map<string, { cancel(): void }>();
  /** Statements by SQL text: Trades/History builds a handful of shapes, each prepared once. */
  private readonly statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  /**
   * The `wire` column's text by trade id, for trades read or written lately (oldest out
   * first past WIRE_CACHE_CHARS): a history page then reads three small columns per row
   * instead of decoding ~650 bytes of text each. Every write sets the column and this cache.
   */
  private readonly wireCache = new Map<string, string>();
  private readonly oldestWire = new OldestFirst(this.wireCache);
  private wireCacheChars = 0;
  /**
   * Trade-data version per merchant: bumped by every write to one of its trades (buy, transition,
   * webhookStatus), so a cached history page of that merchant is used only while nothing changed.
   */
  private readonly versions = new Map<string, number>();
  /** Serialized and compressed Trades/History answers by merchant and query, least recently used first. */
  private readonly pages = new Map<string, CachedPage>();
  private readonly oldestPage = new OldestFirst(this.pages);
  private pageBytes = 0;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly clock: SandboxClock,
    private readonly ledger: Ledger,
    private readonly catalog: Catalog,
    private readonly events: SandboxEvents,
  ) {
    this.byIdStmt = db.prepare<[string], TradeRow>('SELECT * FROM trades WHERE trade_id = ?');
    this.setWireStmt = db.prepare('UPDATE trades SET wire = ? WHERE trade_id = ?');
    this.wireStmt = db.prepare<[string], string | null>('SELECT wire FROM trades WHERE trade_id = ?').pluck();
  }

  private statement(sql: string): ReturnType<SqliteDatabase['prepare']> {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** toWire() as JSON, minus `stage` and the closing brace (see the `wire` column). */
  static wireBaseOf(row: TradeRow): string {
    const { stage: _stage, ...rest } = Trades.wireFields(row);
    const json = JSON.stringify(rest);
    return json.slice(0, -1);
  }

  /** Recomputes and stores a trade's wire JSON after a write (same transaction as the write). */
  private refreshWire(tradeId: string): TradeRow {
    const row = this.get(tradeId);
    const wire = Trades.wireBaseOf(row);
    this.setWireStmt.run(wire, tradeId);
    this.cacheWire(tradeId, wire);
    return { ...row, wire };
  }

  private cacheWire(tradeId: string, wire: string): void {
    const previous = this.wireCache.get(tradeId);
    if (previous !== undefined) {
      this.wireCacheChars -= previous.length;
      this.wireCache.delete(tradeId);
    }
    this.wireCache.set(tradeId, wire);
    this.wireCacheChars += wire.length;
    while (this.wireCacheChars > WIRE_CACHE_CHARS) {
      const oldest = this.oldestWire.next() as [string, string];
      this.wireCache.delete(oldest[0]);
      this.wireCacheChars -= oldest[1].length;
    }
  }

  /** After an admin reset (every trade deleted). */
  clearWireCache(): void {
    this.wireCache.clear();
    this.oldestWire.reset();
    this.wireCacheChars = 0;
    this.pages.clear();
    this.oldestPage.reset();
    this.pageBytes = 0;
    // Versions only grow (a merchant id may come back after a reset): no page built before matches again.
    for (const merchantId of this.versions.keys()) this.changed(merchantId);
  }

  /** A merchant's trades changed: its cached history pages are stale. */
  private changed(merchantId: string): void {
    this.versions.set(merchantId, (this.versions.get(merchantId) ?? 0) + 1);
  }

  /** Stage 1 while the trade may still be reversed: in flight, or completed within protection. */
  stageOf(row: Pick<TradeRow, 'status' | 'end_protection'>): 1 | 2 {
    if (isActiveStatus(row.status)) return 1;
    if (row.status === 'COMPLETED' && row.end_protection !== null && this.clock.now() < row.end_protection) return 1;
    return 2;
  }

  toWire(row: TradeRow): Trade {
    return { ...Trades.wireFields(row), stage: this.stageOf(row) };
  }

  /** The wire fields in the order the API shows them; `stage` (clock-dependent) is set by toWire. */
  private static wireFields(row: TradeRow): Trade {
    return {
      tradeId: row.trade_id,
      externalId: row.external_id,
      status: row.status,
      price: row.price,
      itemId: row.item_id,
      assetId: row.asset_id,
      offerId: row.offer_id,
      tradeUrl: row.trade_url,
      market_hash_name: row.market_hash_name,
      phase: row.phase,
      float: row.float,
      webhookStatus: row.webhook_status,
      failReason: row.fail_reason,
      errorCode: row.error_code,
      createdAt: toUtcIso(row.created_at),
      updatedAt: toUtcIso(row.updated_at),
      completedAt: iso(row.completed_at),
      cancelledAt: iso(row.cancelled_at),
      endProtection: iso(row.end_protection),
      rollbackAt: iso(row.rollback_at),
      stage: 1,
    };
  }

  static updateOf(row: TradeRow): TradeUpdatedWebhook {
    return {
      tradeId: row.trade_id,
      status: row.status,
      externalId: row.external_id,
      offerId: row.offer_id,
      failReason: row.fail_reason,
      errorCode: row.error_code,
    };
  }

  find(tradeId: string): TradeRow | null {
    return this.byIdStmt.get(tradeId) ?? null;
  }

  get(tradeId: string): TradeRow {
    const row = this.find(tradeId);
    if (!row) throw notFound(`trade ${tradeId}`);
    return row;
  }

  findByExternalId(merchantId: string, externalId: string): TradeRow | null {
    return (
      (this.db.prepare('SELECT * FROM trades WHERE merchant_id = ? AND external_id = ?').get(merchantId, externalId) as
        TradeRow | undefined) ?? null
    );
  }

  /** The PENDING or SENT trade holding an item (bought items are off sale until their trade ends), or null. */
  activeForItem(itemId: number): TradeRow | null {
    return (
      (this.db
        .prepare(
          "SELECT * FROM trades WHERE item_id = ? AND status IN ('PENDING', 'SENT', 'CREATING') ORDER BY seq DESC LIMIT 1",
        )
        .get(itemId) as TradeRow | undefined) ?? null
    );
  }

  activeCountForPartner(partner: string): number {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM trades WHERE partner = ? AND status IN ('PENDING', 'SENT', 'CREATING')")
        .get(partner) as {
        n: number;
      }
    ).n;
  }

  activeCountForHolder(holder: string): number {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM trades WHERE holder = ? AND status IN ('PENDING', 'SENT', 'CREATING')")
        .get(holder) as {
        n: number;
      }
    ).n;
  }

  /** The end of a partner's block, or null when it may trade. */
  partnerBlockedUntil(partner: string): number | null {
    const row = this.db.prepare('SELECT until FROM partner_blocks WHERE partner = ?').get(partner) as
      { until: number } | undefined;
    return row && row.until > this.clock.now() ? row.until : null;
  }

  /** Writes a PENDING trade and its FREEZE; the caller has run every check inside the same transaction. */
  insertPending(trade: NewTrade): TradeRow {
    const now = this.clock.now();
    const tradeId = randomUUID();
    const row: TradeRow = {
      seq: 0,
      trade_id: tradeId,
      merchant_id: trade.merchantId,
      external_id: trade.externalId,
      status: 'PENDING',
      price: trade.item.price,
      item_id: trade.item.itemId,
      asset_id: trade.item.assetId,
      offer_id: null,
      trade_url: trade.tradeUrl,
      partner: trade.partner,
      holder: trade.item.steamId,
      market_hash_name: trade.item.market_hash_name,
      phase: trade.item.phase,
      float: trade.item.float,
      webhook_status: null,
      fail_reason: null,
      error_code: null,
      trade_duration_seconds: trade.tradeDurationSeconds,
      created_at: now,
      updated_at: now,
      sent_at: null,
      expires_at: null,
      completed_at: null,
      cancelled_at: null,
      end_protection: null,
      rollback_at: null,
      wire: null,
    };
    const wire = Trades.wireBaseOf(row);
    this.db
      .prepare(
        `INSERT INTO trades (trade_id, merchant_id, external_id, status, price, item_id, asset_id, trade_url, partner, holder,
           market_hash_name, phase, float, trade_duration_seconds, created_at, updated_at, wire)
         VALUES (?, ?, ?, 'PENDING', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        tradeId,
        trade.merchantId,
        trade.externalId,
        trade.item.price,
        trade.item.itemId,
        trade.item.assetId,
        trade.tradeUrl,
        trade.partner,
        trade.item.steamId,
        trade.item.market_hash_name,
        trade.item.phase,
        trade.item.float,
        trade.tradeDurationSeconds,
        now,
        now,
        wire,
      );
    this.ledger.post(trade.merchantId, {
      type: 'FREEZE',
      amount: -trade.item.price,
      tradeId,
      note: 'Balance frozen for a pending buy',
      market_hash_name: trade.item.market_hash_name,
      phase: trade.item.phase,
    });
    this.cacheWire(tradeId, wire);
    this.changed(trade.merchantId);
    return this.get(tradeId);
  }

  /** Announces a committed change of status. */
  announce(row: TradeRow): void {
    this.events.emit('tradeUpdated', row.merchant_id, Trades.updateOf(row));
  }

  /** Moves a trade along the transition table, with its ledger entry, timestamps and side effects. */
  transition(tradeId: string, request: TransitionRequest, options: TransitionOptions = {}): TradeRow {
    let relistItemId: number | null = null;
    const apply = this.db.transaction((): TradeRow => {
      const row = this.get(tradeId);
      const rule = findTransition(row.status, request.status);
      if (!rule) throw new ApiError(409, 'invalid_request', `A ${row.status} trade cannot become ${request.status}`);
      if (row.status === 'COMPLETED' && this.stageOf(row) !== 1) {
        throw new ApiError(
          409,
          'invalid_request',
          'The trade is past its protection period (stage 2) and cannot be reversed',
        );
      }
      const outcome = resolveOutcome(rule, request.errorCode, request.failReason);
      if (!outcome) {
        throw new ApiError(
          400,
          'invalid_request',
          `errorCode/failReason do not match any ${request.status} row of the outcome table`,
        );
      }
      const now = this.clock.now();
      const sets: Record<string, string | number | null> = {
        status: request.status,
        error_code: outcome.errorCode,
        fail_reason: outcome.failReason,
        updated_at: now,
      };
      if (request.status === 'SENT') {
        sets.offer_id = String(randomInt(1_000_000_000, 9_999_999_999));
        sets.sent_at = now;
        sets.expires_at = now + row.trade_duration_seconds * 1000;
      }
      if (request.status === 'COMPLETED') {
        sets.completed_at = now;
        sets.end_protection = now + SANDBOX_CHOICES.endProtectionMs;
      }
      if (request.status === 'CANCELLED' || request.status === 'EXPIRED') sets.cancelled_at = now;
      if (request.status === 'REVERSED') sets.rollback_at = now;
      // The stored wire JSON changes with the row, in the same UPDATE.
      sets.wire = Trades.wireBaseOf({ ...row, ...sets } as TradeRow);
      const columns = Object.keys(sets);
      this.db
        .prepare(`UPDATE trades SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE trade_id = @tradeId`)
        .run({ ...sets, tradeId });

      if (rule.ledger) {
        this.ledger.post(row.merchant_id, {
          type: rule.ledger.type,
          amount: rule.ledger.refund ? row.price : 0,
          tradeId,
          note: outcome.failReason,
          market_hash_name: row.market_hash_name,
          phase: row.phase,
        });
      }
      if (isPartnerStrike(request.status, outcome.errorCode)) this.recordStrike(row.partner, tradeId, now);
      if (!options.itemGone && returnsItemToSale(request.status, outcome.errorCode)) relistItemId = row.item_id;
      this.cacheWire(tradeId, sets.wire as string);
      this.changed(row.merchant_id);
      return this.get(tradeId);
    });
    const updated = apply();
    this.announce(updated);
    if (relistItemId !== null) this.catalog.relist(relistItemId);
    this.syncExpiryTimer(updated);
    return updated;
  }

  /** Sets the webhook delivery result shown as `webhookStatus`. */
  setWebhookStatus(tradeId: string, status: WebhookStatus): void {
    const row = this.find(tradeId);
    if (!row) return;
    const wire = Trades.wireBaseOf({ ...row, webhook_status: status });
    this.db.prepare('UPDATE trades SET webhook_status = ?, wire = ? WHERE trade_id = ?').run(status, wire, tradeId);
    this.cacheWire(tradeId, wire);
    this.changed(row.merchant_id);
  }

  list(merchantId: string, query: TradeHistoryQuery): { trades: Trade[]; total: number; limit: number; page: number } {
    return JSON.parse(this.listJson(merchantId, query)) as {
      trades: Trade[];
      total: number;
      limit: number;
      page: number;
    };
  }

  /** The Trades/History answer as JSON text (built afresh; the route serves historyBody). */
  listJson(merchantId: string, query: TradeHistoryQuery): string {
    return this.buildPage(merchantId, query).json;
  }

  /**
   * The Trades/History answer as bytes, gzip-compressed or not, from a cache of answers by
   * (merchant, query): a merchant polling the same question again while none of its trades
   * changed costs no query, no serialization and no compression. An entry is used only while
   * the merchant's trade-data version is the one it was built from and the clock has not reached
   * the moment it could change by itself (a completed trade's protection ends, so `stage` turns 2;
   * a trade leaves the 14-day isActive window). Entries hold the gzipped form only; a client that
   * does not accept gzip (the spec says clients must) gets it inflated again, which costs less than
   * building it.
   */
  historyBody(merchantId: string, query: TradeHistoryQuery, gzip: boolean): Buffer {
    const key = `${merchantId}\u0000${historyQueryKey(query)}`;
    const version = this.versions.get(merchantId) ?? 0;
    const cached = this.pages.get(key);
    if (cached && cached.version === version && this.clock.now() < cached.validUntil) {
      this.pages.delete(key);
      this.pages.set(key, cached); // most recently used last
      return gzip ? cached.gzip : gunzipSync(cached.gzip);
    }
    if (cached) this.forgetPage(key, cached);
    const built = this.buildPage(merchantId, query);
    const plain = Buffer.from(built.json);
    const page: CachedPage = {
      version,
      validUntil: built.validUntil,
      gzip: gzipSync(plain, { level: PAGE_GZIP_LEVEL }),
    };
    this.pages.set(key, page);
    this.pageBytes += page.gzip.length;
    // Least recently used pages go first past the bound (never the one just built).
    while (this.pageBytes > PAGE_CACHE_BYTES && this.pages.size > 1) {
      const [oldestKey, oldest] = this.oldestPage.next() as [string, CachedPage];
      this.forgetPage(oldestKey, oldest);
    }
    return gzip ? page.gzip : plain;
  }

  private forgetPage(key: string, page: CachedPage): void {
    this.pages.delete(key);
    this.pageBytes -= page.gzip.length;
  }

  /**
   * The Trades/History answer as JSON text, built from the stored wire JSON of each
   * trade plus its `stage` (clock-dependent, so computed here): no 28-column row
   * objects, no Date formatting, no serialization per request. `validUntil` is the clock
   * time from which the same question could get another answer without any write.
   */
  private buildPage(merchantId: string, query: TradeHistoryQuery): { json: string; validUntil: number } {
    const where = ['merchant_id = @merchantId'];
    const params: Record<string, string | number> = { merchantId };
    const add = (clause: string, key: string, value: string | number | undefined) => {
      if (value === undefined) return;
      where.push(clause);
      params[key] = value;
    };
    add('trade_id = @tradeId', 'tradeId', query.tradeId);
    add('status = @status', 'status', query.status);
    add('external_id = @externalId', 'externalId', query.externalId);
    add('webhook_status = @webhookStatus', 'webhookStatus', query.webhookStatus);
    const now = this.clock.now();
    if (query.isActive === true) {
      add('created_at >= @activeSince', 'activeSince', now - ACTIVE_TRADES_WINDOW_MS);
    } else {
      add('created_at >= @from', 'from', query.from === undefined ? undefined : Date.parse(query.from));
      add('created_at <= @to', 'to', query.to === undefined ? undefined : Date.parse(query.to));
    }
    const clause = where.join(' AND ');
    const total = (this.statement(`SELECT count(*) AS n FROM trades WHERE ${clause}`).get(params) as { n: number }).n;
    const order = 'ORDER BY created_at DESC, seq DESC';
    const columns = 'trade_id, status, end_protection, created_at';
    let rows: WireRow[];
    let tail: string;
    if (query.isActive === true) {
      // No paging: every trade of the window; limit reports how many came back.
      rows = this.statement(`SELECT ${columns} FROM trades WHERE ${clause} ${order}`).all(params) as WireRow[];
      tail = `],"total":${total},"limit":${rows.length},"page":1}`;
    } else {
      const limit = query.limit ?? HISTORY_DEFAULT_LIMIT;
      const page = query.page ?? HISTORY_DEFAULT_PAGE;
      rows = this.statement(`SELECT ${columns} FROM trades WHERE ${clause} ${order} LIMIT @limit OFFSET @offset`).all({
        ...params,
        limit,
        offset: (page - 1) * limit,
      }) as WireRow[];
      tail = `],"total":${total},"limit":${limit},"page":${page}}`;
    }
    let validUntil = Number.POSITIVE_INFINITY;
    for (const row of rows) {
      if (row.status === 'COMPLETED' && row.end_protection !== null && row.end_protection > now)
        validUntil = Math.min(validUntil, row.end_protection);
      // In the window while created_at >= now - 14 days.
      if (query.isActive === true) validUntil = Math.min(validUntil, row.created_at + ACTIVE_TRADES_WINDOW_MS + 1);
    }
    return { json: this.wirePage(rows, tail), validUntil };
  }

  private wirePage(rows: WireRow[], tail: string): string {
    let out = '{"trades":[';
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as WireRow;
      out += `${i === 0 ? '' : ','}${this.wireOf(row.trade_id)},"stage":${this.stageOf(row)}}`;
    }
    return out + tail;
  }

  private wireOf(tradeId: string): string {
    const cached = this.wireCache.get(tradeId);
    if (cached !== undefined) return cached;
    const stored = this.wireStmt.get(tradeId) as string | null | undefined;
    if (typeof stored === 'string') {
      this.cacheWire(tradeId, stored);
      return stored;
    }
    return this.refreshWire(tradeId).wire as string;
  }

  /** Re-arms expiry timers after a restart. */
  restoreTimers(): void {
    const rows = this.db.prepare("SELECT * FROM trades WHERE status = 'SENT'").all() as TradeRow[];
    for (const row of rows) this.syncExpiryTimer(row);
  }

  stopTimers(): void {
    for (const timer of this.expiryTimers.values()) timer.cancel();
    this.expiryTimers.clear();
  }

  private syncExpiryTimer(row: TradeRow): void {
    const existing = this.expiryTimers.get(row.trade_id);
    if (row.status !== 'SENT' || row.expires_at === null) {
      existing?.cancel();
      this.expiryTimers.delete(row.trade_id);
      return;
    }
    if (existing) return;
    const timer = this.clock.schedule(row.expires_at, `expire trade ${row.trade_id}`, () => {
      this.expiryTimers.delete(row.trade_id);
      if (this.find(row.trade_id)?.status === 'SENT') this.transition(row.trade_id, { status: 'EXPIRED' });
    });
    this.expiryTimers.set(row.trade_id, timer);
  }

  private recordStrike(partner: string, tradeId: string, now: number): void {
    this.db.prepare('INSERT INTO partner_strikes (partner, at, trade_id) VALUES (?, ?, ?)').run(partner, now, tradeId);
    const recent = (
      this.db
        .prepare('SELECT count(*) AS n FROM partner_strikes WHERE partner = ? AND at > ?')
        .get(partner, now - PARTNER_BLOCK_WINDOW_MS) as {
        n: number;
      }
    ).n;
    if (recent >= PARTNER_BLOCK_THRESHOLD && this.partnerBlockedUntil(partner) === null) {
      this.db
        .prepare(
          'INSERT INTO partner_blocks (partner, until) VALUES (?, ?) ON CONFLICT (partner) DO UPDATE SET until = excluded.until',
        )
        .run(partner, now + SANDBOX_CHOICES.partnerBlockMs);
    }
  }
}
