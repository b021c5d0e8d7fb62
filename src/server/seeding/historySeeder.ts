import { randomUUID } from 'node:crypto';
import type { TradeStatus, TradeUpdatedWebhook, TransactionType, WebhookStatus } from '../../shared/api';
import {
  MAX_ACTIVE_TRADES_PER_HOLDER,
  MAX_ACTIVE_TRADES_PER_OWNER,
  PARTNER_BLOCK_THRESHOLD,
  PARTNER_BLOCK_WINDOW_MS,
  TRADE_DURATION_DEFAULT_SECONDS,
} from '../../shared/api';
import { DAY_MS, SECOND_MS } from '../../shared/time';
import { Rng } from '../catalog/rng';
import { SANDBOX_CHOICES } from '../config';
import { ApiError } from '../domain/apiError';
import type { SandboxCore } from '../domain/core';
import type { Outcome } from '../domain/lifecycle';
import { findTransition, isPartnerStrike } from '../domain/lifecycle';
import type { TradeRow } from '../domain/trades';
import { Trades } from '../domain/trades';
import { EventQueue } from './eventQueue';
import type { HistoryParams } from './historyParams';
import { SeedStopped, discardPartialSeed, type SeedMarker } from './seedMarker';
import { Recipients } from './recipients';
import type { Fate, Move } from './tradeFates';
import { drawFate } from './tradeFates';
import { Outages } from './outages';

/** One trade row with every column, the wire JSON included (named parameters: the column names). */
export const INSERT_TRADE_ROW_SQL = `INSERT INTO trades (trade_id, merchant_id, external_id, status, price, item_id, asset_id, offer_id, trade_url,
           partner, holder, market_hash_name, phase, float, webhook_status, fail_reason, error_code, trade_duration_seconds,
           created_at, updated_at, sent_at, expires_at, completed_at, cancelled_at, end_protection, rollback_at, wire)
         VALUES (@trade_id, @merchant_id, @external_id, @status, @price, @item_id, @asset_id, @offer_id, @trade_url,
           @partner, @holder, @market_hash_name, @phase, @float, @webhook_status, @fail_reason, @error_code,
           @trade_duration_seconds, @created_at, @updated_at, @sent_at, @expires_at, @completed_at, @cancelled_at,
           @end_protection, @rollback_at, @wire)`;

export interface SeedProgress {
  written: number;
  total: number;
  elapsedMs: number;
}

export interface SeedOptions {
  onProgress?: (progress: SeedProgress) => void;
  /** Stops between chunks; everything written so far is removed again. */
  signal?: AbortSignal;
}

export interface HistorySeedResult {
  merchantId: string;
  from: number;
  to: number;
  trades: number;
  statuses: Partial<Record<TradeStatus, number>>;
  ledgerEntries: number;
  webhookDeliveries: number;
  failedWebhooks: number;
  partnerStrikes: number;
  partnerBlocks: number;
  balance: number;
  elapsedMs: number;
}

export interface Template {
  itemId: number;
  name: string;
  phase: string | null;
  price: number;
  holder: string | null;
  float: number | null;
}

interface Planned {
  tradeId: string;
  externalId: string;
  itemId: number;
  assetId: string;
  template: Template;
  partner: number;
  offerId: string;
  fate: Fate;
}

type EventKind = 'sent' | 'end' | 'reversal';

const CHUNK_SIZE = 5000;
/** Page cache while seeding, in KiB (negative: a size, not a page count). */
const SEED_CACHE_KIB = -256 * 1024;
const TEMPLATE_SAMPLE = 20_000;
/** Where the merchant's back end had its webhook endpoint, when it has none now. */
const FORMER_WEBHOOK_URL = 'https://merchant.invalid/webhooks';
const FREEZE_NOTE = 'Balance frozen for a pending buy';
/** A failed delivery ran out of its 4 attempts: 10 s, 60 s and 300 s after the first. */
const LAST_RETRY_MS = SANDBOX_CHOICES.webhookRetryDelaysMs.reduce((sum, ms) => sum + ms, 0);
const ACTIVE_UNTIL_NEVER = Number.MAX_SAFE_INTEGER;

/**
 * A version-4 UUID whose first 48 bits are the trade's time (as UUIDv7 lays them out): the trade id indexes of
 * trades and deliveries then fill in order (about 10 % less work per trade than random ids).
 */
function timeOrderedUuid(at: number): string {
  const time = at.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}${randomUUID().slice(13)}`;
}

/** Counts, per key, the trades still active at a time (each remembered until its end). */
class ActiveCounter {
  private readonly ends = new Map<string | number, number[]>();

  count(key: string | number, at: number): number {
    const ends = this.ends.get(key);
    if (!ends) return 0;
    const live = ends.filter((end) => end > at);
    if (live.length === 0) this.ends.delete(key);
    else this.ends.set(key, live);
    return live.length;
  }

  add(key: string | number, until: number): void {
    const ends = this.ends.get(key);
    if (ends) ends.push(until);
    else this.ends.set(key, [until]);
  }
}

/**
 * Writes a merchant's past: trades bought over `days`, each living the simulator's outcome table, with the ledger,
 * webhook deliveries and partner strikes the live code would have written, in time order (ids grow with time).
 * One transaction per chunk; a marker in `meta` names what a seed in progress wrote, so an abort, an error or a
 * crash (cleaned at the next start) leaves no half-written merchant. The merchant's API answers 503 meanwhile.
 */
export class HistorySeeder {
  private readonly rng: Rng;
  private readonly recipients: Recipients;
  private readonly events = new EventQueue<EventKind, Planned>();
  private readonly partnerActive = new ActiveCounter();
  private readonly holderActive = new ActiveCounter();
  private readonly strikes = new Map<number, number[]>();
  private readonly blockedUntil = new Map<number, number>();
  private readonly outages: Outages;
  private readonly statements;
  private readonly from: number;
  private readonly url: string;
  private balance: number;
  private readonly depositSize: number;
  private readonly result: HistorySeedResult;

  constructor(
    private readonly core: SandboxCore,
    private readonly merchantId: string,
    private readonly params: HistoryParams,
    private readonly templates: readonly Template[],
    private readonly marker: SeedMarker,
  ) {
    this.rng = new Rng(params.seed).fork(`history ${merchantId}`);
    this.recipients = new Recipients(merchantId, params.recipients, params.seed);
    this.from = params.endAt - params.days * DAY_MS;
    this.outages = Outages.draw(this.rng.fork('outages'), this.from, params.endAt);
    const merchant = core.merchants.get(merchantId);
    this.url = merchant.webhookUrl ?? FORMER_WEBHOOK_URL;
    this.balance = merchant.balance;
    const averagePrice = templates.reduce((sum, t) => sum + t.price, 0) / templates.length;
    // A merchant tops up about a day of buys at a time, in whole thousands of dollars.
    this.depositSize = Math.max(1, Math.ceil((averagePrice * params.tradesPerDay) / 100_000)) * 100_000;
    this.result = {
      merchantId,
      from: this.from,
      to: params.endAt,
      trades: 0,
      statuses: {},
      ledgerEntries: 0,
      webhookDeliveries: 0,
      failedWebhooks: 0,
      partnerStrikes: 0,
      partnerBlocks: 0,
      balance: this.balance,
      elapsedMs: 0,
    };
    const db = core.db;
    this.statements = {
      trade: db.prepare(INSERT_TRADE_ROW_SQL),
      ledger: db.prepare(
        `INSERT INTO ledger (merchant_id, type, amount, balance_before, balance_after, trade_id, note, created_at, market_hash_name, phase)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      delivery: db.prepare(
        `INSERT INTO webhook_deliveries (merchant_id, kind, body, trade_id, url, state, attempts, http_status, last_error,
           created_at, last_attempt_at, next_attempt_at)
         VALUES (?, 'trade_updated', ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
      ),
      strike: db.prepare('INSERT INTO partner_strikes (partner, at, trade_id) VALUES (?, ?, ?)'),
      block: db.prepare(
        `INSERT INTO partner_blocks (partner, until) VALUES (?, ?)
         ON CONFLICT (partner) DO UPDATE SET until = max(until, excluded.until)`,
      ),
      item: db.prepare(
        `INSERT OR REPLACE INTO items (item_id, asset_id, market_hash_name, phase, price, steam_id, inspect_in_game,
           trade_url, json, on_sale, updated_at)
         VALUES (@itemId, @assetId, @market_hash_name, @phase, @price, @steamId, @inspectInGame, @tradeUrl, @json, 0, @now)`,
      ),
    };
  }

  async run(options: SeedOptions): Promise<HistorySeedResult> {
    const started = Date.now();
    const total = this.params.days * this.params.tradesPerDay;
    const stillActive: Planned[] = [];
    let last: Planned | null = null;
    // Seven indexes over hundreds of thousands of rows: a larger page cache keeps them in memory while seeding.
    const cacheSize = this.core.db.pragma('cache_size', { simple: true }) as number;
    this.core.db.pragma(`cache_size = ${SEED_CACHE_KIB}`);
    try {
      for (let first = 0; first < total; first += CHUNK_SIZE) {
        if (options.signal?.aborted) throw new SeedStopped();
        const end = Math.min(total, first + CHUNK_SIZE);
        this.core.db.transaction(() => {
          for (let n = first; n < end; n++) {
            last = this.buy(n);
            if (last.fate.end.at > this.params.endAt) stillActive.push(last);
          }
        })();
        options.onProgress?.({ written: end, total, elapsedMs: Date.now() - started });
        // Let the sandbox answer other requests between chunks.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (options.signal?.aborted) throw new SeedStopped();
      this.core.db.transaction(() => this.finish(last, stillActive))();
    } catch (error) {
      discardPartialSeed(this.core, this.marker);
      throw error;
    } finally {
      this.core.db.pragma(`cache_size = ${cacheSize}`);
    }
    this.result.elapsedMs = Date.now() - started;
    return this.result;
  }

  /** The n-th trade of the history: its recipient, item, fate, row and PENDING webhook, after what came before. */
  private buy(n: number): Planned {
    const { tradesPerDay, endAt } = this.params;
    const day = Math.floor(n / tradesPerDay);
    const createdAt =
      this.from + day * DAY_MS + Math.floor(((n % tradesPerDay) + this.rng.next()) * (DAY_MS / tradesPerDay));
    this.flush(createdAt);
    const fate = drawFate(this.rng, createdAt);
    const partner = this.pickRecipient(createdAt, n);
    const template = this.pickTemplate(createdAt, n);
    const itemId = this.marker.itemFrom + n;
    const planned: Planned = {
      tradeId: timeOrderedUuid(createdAt),
      externalId: `wd-${String(n + 1).padStart(8, '0')}`,
      itemId,
      assetId: String(40_000_000_000 + itemId * 10 + this.rng.int(0, 9)),
      template,
      partner,
      offerId: String(this.rng.int(1_000_000_000, 9_999_999_999)),
      fate,
    };
    const activeUntil = fate.end.at > endAt ? ACTIVE_UNTIL_NEVER : fate.end.at;
    this.partnerActive.add(partner, activeUntil);
    if (template.holder !== null) this.holderActive.add(template.holder, activeUntil);

    if (this.balance < template.price) {
      this.post(createdAt, 'CRYPTO DEPOSIT', this.depositSize + template.price, null, 'USDT deposit');
    }
    this.post(createdAt, 'FREEZE', -template.price, planned, FREEZE_NOTE);
    this.statements.trade.run(this.rowOf(planned));
    this.result.trades++;
    this.deliver(planned, 'PENDING', createdAt, null);
    if (fate.sentAt !== null && fate.sentAt <= endAt) this.events.push(fate.sentAt, 'sent', planned);
    if (fate.end.at <= endAt) this.events.push(fate.end.at, 'end', planned);
    if (fate.reversal && fate.reversal.at <= endAt) this.events.push(fate.reversal.at, 'reversal', planned);
    return planned;
  }

  /** Everything that happened to earlier trades up to `at`, in time order. */
  private flush(at: number): void {
    for (let next = this.events.popUntil(at); next; next = this.events.popUntil(at)) {
      const { kind, value: trade, at: when } = next;
      const fate = trade.fate;
      if (kind === 'sent') {
        this.deliver(trade, 'SENT', when, null);
        continue;
      }
      const move = kind === 'end' ? fate.end : (fate.reversal as Move);
      const from: TradeStatus = kind === 'reversal' ? 'COMPLETED' : fate.sentAt === null ? 'PENDING' : 'SENT';
      const ledger = findTransition(from, move.status)?.ledger;
      if (ledger) {
        const amount = ledger.refund ? trade.template.price : 0;
        this.post(when, ledger.type, amount, trade, move.outcome.failReason);
      }
      this.deliver(trade, move.status, when, move.outcome);
      if (isPartnerStrike(move.status, move.outcome.errorCode)) this.strike(trade, when);
    }
  }

  private post(at: number, type: TransactionType, amount: number, trade: Planned | null, note: string | null): void {
    const before = this.balance;
    this.balance += amount;
    this.statements.ledger.run(
      this.merchantId,
      type,
      amount,
      before,
      this.balance,
      trade?.tradeId ?? null,
      note,
      at,
      trade?.template.name ?? null,
      trade?.template.phase ?? null,
    );
    this.result.ledgerEntries++;
  }

  /** One trade_updated delivery per status; those due while the endpoint was down ran out of attempts. */
  private deliver(trade: Planned, status: TradeStatus, at: number, outcome: Outcome | null): void {
    const body: TradeUpdatedWebhook = {
      tradeId: trade.tradeId,
      status,
      externalId: trade.externalId,
      offerId: trade.fate.sentAt !== null && status !== 'PENDING' ? trade.offerId : null,
      failReason: outcome?.failReason ?? null,
      errorCode: outcome?.errorCode ?? null,
    };
    const failed = this.outages.covers(at);
    this.statements.delivery.run(
      this.merchantId,
      JSON.stringify(body),
      trade.tradeId,
      this.url,
      failed ? 'failed' : 'delivered',
      failed ? 1 + SANDBOX_CHOICES.webhookRetryDelaysMs.length : 1,
      failed ? null : 200,
      failed ? 'network error: ECONNREFUSED' : null,
      at,
      failed ? at + LAST_RETRY_MS : at,
    );
    this.result.webhookDeliveries++;
    if (failed) this.result.failedWebhooks++;
  }

  /** A decline or expiry; the 10th within 24 hours blocks the recipient for a day (as `Trades.recordStrike`). */
  private strike(trade: Planned, at: number): void {
    this.statements.strike.run(this.recipients.partner(trade.partner), at, trade.tradeId);
    this.result.partnerStrikes++;
    const recent = (this.strikes.get(trade.partner) ?? []).filter((time) => time > at - PARTNER_BLOCK_WINDOW_MS);
    recent.push(at);
    this.strikes.set(trade.partner, recent);
    if (recent.length >= PARTNER_BLOCK_THRESHOLD && (this.blockedUntil.get(trade.partner) ?? 0) <= at) {
      this.blockedUntil.set(trade.partner, at + SANDBOX_CHOICES.partnerBlockMs);
      this.result.partnerBlocks++;
    }
  }

  /** A recipient who may take another offer now: not blocked, under 30 active. */
  private pickRecipient(at: number, n: number): number {
    const count = this.recipients.count;
    const eligible = (index: number) =>
      (this.blockedUntil.get(index) ?? 0) <= at && this.partnerActive.count(index, at) < MAX_ACTIVE_TRADES_PER_OWNER;
    for (let attempt = 0; attempt < 8; attempt++) {
      const index = this.rng.int(0, count - 1);
      if (eligible(index)) return index;
    }
    const start = this.rng.int(0, count - 1);
    for (let i = 0; i < count; i++) if (eligible((start + i) % count)) return (start + i) % count;
    throw new ApiError(409, 'invalid_request', `trade ${n + 1}: every recipient is blocked or has 30 active offers`);
  }

  /** A catalog item whose holding account may take another offer now (under 5 active). */
  private pickTemplate(at: number, n: number): Template {
    const eligible = (t: Template) =>
      t.holder === null || this.holderActive.count(t.holder, at) < MAX_ACTIVE_TRADES_PER_HOLDER;
    for (let attempt = 0; attempt < 8; attempt++) {
      const template = this.rng.pick(this.templates);
      if (eligible(template)) return template;
    }
    const start = this.rng.int(0, this.templates.length - 1);
    for (let i = 0; i < this.templates.length; i++) {
      const template = this.templates[(start + i) % this.templates.length] as Template;
      if (eligible(template)) return template;
    }
    throw new ApiError(409, 'invalid_request', `trade ${n + 1}: every holding account has 5 active offers`);
  }

  /** The trade's row as it stands at the history's end. */
  private rowOf(trade: Planned): TradeRow {
    const { fate, template } = trade;
    const endAt = this.params.endAt;
    const sent = fate.sentAt !== null && fate.sentAt <= endAt;
    const ended = fate.end.at <= endAt;
    const reversed = fate.reversal !== null && fate.reversal.at <= endAt;
    const last: Move | null = reversed ? fate.reversal : ended ? fate.end : null;
    const status: TradeStatus = last ? last.status : sent ? 'SENT' : 'PENDING';
    const lastAt = last ? last.at : sent ? (fate.sentAt as number) : fate.createdAt;
    const completedAt = ended && fate.end.status === 'COMPLETED' ? fate.end.at : null;
    const row: TradeRow = {
      seq: 0,
      trade_id: trade.tradeId,
      merchant_id: this.merchantId,
      external_id: trade.externalId,
      status,
      price: template.price,
      item_id: trade.itemId,
      asset_id: trade.assetId,
      offer_id: sent ? trade.offerId : null,
      trade_url: this.recipients.tradeUrl(trade.partner),
      partner: this.recipients.partner(trade.partner),
      holder: template.holder,
      market_hash_name: template.name,
      phase: template.phase,
      float: template.float,
      webhook_status: this.webhookStatusAt(lastAt),
      fail_reason: last?.outcome.failReason ?? null,
      error_code: last?.outcome.errorCode ?? null,
      trade_duration_seconds: TRADE_DURATION_DEFAULT_SECONDS,
      created_at: fate.createdAt,
      updated_at: lastAt,
      sent_at: sent ? fate.sentAt : null,
      expires_at: sent ? (fate.sentAt as number) + TRADE_DURATION_DEFAULT_SECONDS * SECOND_MS : null,
      completed_at: completedAt,
      cancelled_at: ended && (fate.end.status === 'CANCELLED' || fate.end.status === 'EXPIRED') ? fate.end.at : null,
      end_protection: completedAt === null ? null : completedAt + SANDBOX_CHOICES.endProtectionMs,
      rollback_at: reversed ? (fate.reversal as Move).at : null,
      wire: null,
    };
    row.wire = Trades.wireBaseOf(row);
    const counts = this.result.statuses;
    counts[status] = (counts[status] ?? 0) + 1;
    return row;
  }

  /** `webhookStatus` follows the delivery of the trade's latest status. */
  private webhookStatusAt(at: number): WebhookStatus {
    return this.outages.covers(at) ? 'failed' : 'sent';
  }

  /**
   * The last events up to the end, the blocks, the items of trades still in flight (they go back on sale if their
   * trade fails), the merchant's balance; its older ledger rows move before the history, as if it had been created
   * then. Then the marker goes: the seed is whole.
   */
  private finish(last: Planned | null, stillActive: readonly Planned[]): void {
    const { endAt } = this.params;
    this.flush(endAt);
    for (const [partner, until] of this.blockedUntil)
      this.statements.block.run(this.recipients.partner(partner), until);
    const withItems = last && !stillActive.includes(last) ? [...stillActive, last] : stillActive;
    for (const trade of withItems) this.writeItem(trade);
    const db = this.core.db;
    const before = this.from - SECOND_MS;
    db.prepare('UPDATE ledger SET created_at = ? WHERE merchant_id = ? AND id <= ? AND created_at >= ?').run(
      before,
      this.merchantId,
      this.marker.ledgerId,
      this.from,
    );
    db.prepare('UPDATE merchants SET balance = ?, created_at = min(created_at, ?) WHERE merchant_id = ?').run(
      this.balance,
      before,
      this.merchantId,
    );
    db.prepare('DELETE FROM meta WHERE key = ?').run(this.marker.key);
    this.result.balance = this.balance;
  }

  private writeItem(trade: Planned): void {
    const source = this.core.catalog.find(trade.template.itemId);
    if (!source) return;
    const json = JSON.stringify({
      ...(JSON.parse(source.json) as object),
      itemId: trade.itemId,
      assetId: trade.assetId,
    });
    this.statements.item.run({ ...source, itemId: trade.itemId, assetId: trade.assetId, json, now: this.params.endAt });
  }
}

/** Catalog items whose names, prices, floats and holders the history's trades take (evenly spread over the ids). */
export function sampleTemplates(core: SandboxCore): Template[] {
  const count = (core.db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;
  const stride = Math.max(1, Math.floor(count / TEMPLATE_SAMPLE));
  return core.db
    .prepare(
      `SELECT item_id AS itemId, market_hash_name AS name, phase, price, steam_id AS holder,
         json_extract(json, '$.float') AS float
       FROM items WHERE item_id % ? = 0 ORDER BY item_id LIMIT ?`,
    )
    .all(stride, TEMPLATE_SAMPLE) as Template[];
}
