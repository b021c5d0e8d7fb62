import {
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  MAX_ACTIVE_TRADES_PER_HOLDER,
  MAX_ACTIVE_TRADES_PER_OWNER,
} from '../../shared/api';
import { DAY_MS, MINUTE_MS } from '../../shared/time';
import { Rng } from '../catalog/rng';
import type { TimerHandle } from '../clock';
import { ApiError } from '../domain/apiError';
import type { SandboxCore } from '../domain/core';
import type { SlidingWindowRateLimiter } from '../http/rateLimiter';
import { HISTORY_LIMITS } from '../seeding/historyParams';
import { Recipients } from '../seeding/recipients';

/** A merchant's back end buying on its own (docs/sandbox.md, "Load mode"). */
export interface LoadModeOptions {
  /** The buying merchant; the demo merchant (or the busy one) by default. */
  merchantId?: string;
  /** Average buys a day outside bursts. Default 10,000. */
  tradesPerDay?: number;
  /** Rate multiplier during a burst (a streamer giveaway); 1 = no bursts. Default 20. */
  burstFactor?: number;
  /** Length of a burst. Default 10. */
  burstMinutes?: number;
  /** A burst starts this often. Default 360 (every 6 hours). */
  burstEveryMinutes?: number;
  /** The first burst starts this long after the load starts. Default 5. */
  firstBurstMinutes?: number;
  /** Trade URL owners bought for (the seeded history's players). Default 5,000. */
  recipients?: number;
  seed?: number;
}

export interface LoadStats {
  bought: number;
  /** Buys left out to stay inside a limit: the request budget, recipients' or holders' active offers. */
  skipped: { rateLimit: number; recipients: number; holders: number; noItem: number };
  /** Buys the sandbox refused anyway (0 while the load keeps to the limits). */
  refused: number;
  deposits: number;
}

/** The back end's peak may use at most this share of the 300-a-minute budget; the rest is the desk's. */
const PEAK_SHARE = 0.5;
export const LOAD_MAX_PEAK_PER_DAY = DEFAULT_RATE_LIMIT_PER_MINUTE * PEAK_SHARE * (DAY_MS / MINUTE_MS);
const PICK_ATTEMPTS = 10;
/** A merchant tops up when a buy would not fit: this much on top of the price. */
const DEPOSIT_CENTS = 50_000_00;

export const LOAD_DEFAULTS = {
  tradesPerDay: 10_000,
  burstFactor: 20,
  burstMinutes: 10,
  burstEveryMinutes: 360,
  firstBurstMinutes: 5,
  recipients: 5000,
} as const;

type Resolved = Required<Omit<LoadModeOptions, 'merchantId' | 'seed'>>;

function positive(name: string, value: number, integer = true): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(`loadMode.${name} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`);
  }
  return value;
}

/** Fills the defaults and refuses a load that would break the API's limits. */
export function resolveLoadOptions(options: LoadModeOptions): Resolved {
  const o = { ...LOAD_DEFAULTS, ...options };
  const resolved: Resolved = {
    tradesPerDay: positive('tradesPerDay', o.tradesPerDay, false),
    burstFactor: positive('burstFactor', o.burstFactor, false),
    burstMinutes: positive('burstMinutes', o.burstMinutes, false),
    burstEveryMinutes: positive('burstEveryMinutes', o.burstEveryMinutes, false),
    firstBurstMinutes: o.firstBurstMinutes,
    recipients: positive('recipients', o.recipients),
  };
  if (!(resolved.firstBurstMinutes >= 0)) throw new RangeError('loadMode.firstBurstMinutes must be >= 0');
  if (resolved.burstMinutes > resolved.burstEveryMinutes) {
    throw new RangeError('loadMode.burstMinutes must not exceed burstEveryMinutes');
  }
  const peak = resolved.tradesPerDay * resolved.burstFactor;
  if (peak > LOAD_MAX_PEAK_PER_DAY) {
    throw new RangeError(
      `loadMode: ${resolved.tradesPerDay} a day × burst ${resolved.burstFactor} is ${Math.round(peak / 1440)} buys a ` +
        `minute; the back end may take at most half the ${DEFAULT_RATE_LIMIT_PER_MINUTE}-a-minute budget (${LOAD_MAX_PEAK_PER_DAY} a day)`,
    );
  }
  const perRecipient = HISTORY_LIMITS.maxTradesPerRecipientPerDay;
  if (resolved.tradesPerDay > resolved.recipients * perRecipient) {
    throw new RangeError(
      `loadMode: ${resolved.tradesPerDay} a day need at least ${Math.ceil(resolved.tradesPerDay / perRecipient)} recipients ` +
        `(${perRecipient} a day each, or their declines and expiries block them)`,
    );
  }
  return resolved;
}

interface OnSale {
  itemId: number;
  assetId: string;
  price: number;
  holder: string | null;
}

/**
 * Buys on the sandbox clock at the set rate, with bursts, through the same checks as `POST /Items/Buy` and the same
 * per-merchant request budget as its API key (every buy is one request of the 300 a minute). Before each buy it
 * picks a recipient under 30 active offers and not blocked, and an item whose holding account is under 5, so the
 * sandbox never has to refuse it; when none is free, or the budget is spent, the buy is skipped and counted.
 */
export class MerchantLoad {
  readonly options: Resolved;
  readonly stats: LoadStats = {
    bought: 0,
    skipped: { rateLimit: 0, recipients: 0, holders: 0, noItem: 0 },
    refused: 0,
    deposits: 0,
  };
  private readonly rng: Rng;
  private readonly recipients: Recipients;
  private readonly pickStmt;
  private readonly boundsStmt;
  private timer: TimerHandle | null = null;
  private startedAt = 0;
  private sequence = 0;

  constructor(
    private readonly core: SandboxCore,
    private readonly limiter: SlidingWindowRateLimiter,
    readonly merchantId: string,
    options: LoadModeOptions = {},
  ) {
    this.options = resolveLoadOptions(options);
    const seed = options.seed ?? 1;
    this.rng = new Rng(seed).fork(`load ${merchantId}`);
    this.recipients = new Recipients(merchantId, this.options.recipients, seed);
    this.pickStmt = core.db.prepare<[number], OnSale>(
      `SELECT item_id AS itemId, asset_id AS assetId, price, steam_id AS holder FROM items
       WHERE on_sale = 1 AND item_id >= ? ORDER BY item_id LIMIT 1`,
    );
    // Two statements: min() and max() together would scan the whole table.
    this.boundsStmt = {
      lo: core.db.prepare<[], number>('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id LIMIT 1').pluck(),
      hi: core.db
        .prepare<[], number>('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id DESC LIMIT 1')
        .pluck(),
    };
  }

  get running(): boolean {
    return this.timer !== null;
  }

  start(): void {
    if (this.timer) return;
    this.core.merchants.get(this.merchantId);
    this.startedAt = this.core.clock.now();
    this.scheduleNext(this.startedAt);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** Whether `at` falls inside a burst. */
  inBurst(at: number): boolean {
    const { burstFactor, burstMinutes, burstEveryMinutes, firstBurstMinutes } = this.options;
    if (burstFactor === 1) return false;
    const since = at - this.startedAt - firstBurstMinutes * MINUTE_MS;
    if (since < 0) return false;
    return since % (burstEveryMinutes * MINUTE_MS) < burstMinutes * MINUTE_MS;
  }

  private scheduleNext(from: number): void {
    const rate = this.options.tradesPerDay * (this.inBurst(from) ? this.options.burstFactor : 1);
    const due = from + Math.max(1, Math.round(DAY_MS / rate));
    this.timer = this.core.clock.schedule(due, `load: buy for ${this.merchantId}`, () => {
      if (!this.timer) return;
      this.buyOne();
      this.scheduleNext(due);
    });
  }

  private buyOne(): void {
    const partner = this.pickRecipient();
    if (partner === null) {
      this.stats.skipped.recipients++;
      return;
    }
    const item = this.pickItem();
    if (item === 'none' || item === 'busy') {
      if (item === 'none') this.stats.skipped.noItem++;
      else this.stats.skipped.holders++;
      return;
    }
    // One request of the merchant's budget, as POST /Items/Buy would be.
    if (!this.limiter.take(this.merchantId, 'default').allowed) {
      this.stats.skipped.rateLimit++;
      return;
    }
    try {
      this.topUpFor(item.price);
      this.core.buying.buy(this.merchantId, {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: this.recipients.tradeUrl(partner),
        externalId: `ld-${this.startedAt.toString(36)}-${++this.sequence}`,
      });
      this.stats.bought++;
    } catch (error) {
      // A refusal (or the merchant gone after a reset) costs this buy only; the next one is scheduled anyway.
      if (!(error instanceof ApiError)) throw error;
      this.stats.refused++;
    }
  }

  private pickRecipient(): number | null {
    for (let attempt = 0; attempt < PICK_ATTEMPTS; attempt++) {
      const index = this.rng.int(0, this.recipients.count - 1);
      const partner = this.recipients.partner(index);
      if (
        this.core.trades.partnerBlockedUntil(partner) === null &&
        this.core.trades.activeCountForPartner(partner) < MAX_ACTIVE_TRADES_PER_OWNER
      ) {
        return index;
      }
    }
    return null;
  }

  /** A random on-sale item whose holder can take another offer: the first on sale at or after a random id. */
  private pickItem(): OnSale | 'none' | 'busy' {
    const lo = this.boundsStmt.lo.get();
    const hi = this.boundsStmt.hi.get();
    if (lo === undefined || hi === undefined) return 'none';
    for (let attempt = 0; attempt < PICK_ATTEMPTS; attempt++) {
      const item = this.pickStmt.get(this.rng.int(lo, hi));
      if (!item) continue;
      if (item.holder === null || this.core.trades.activeCountForHolder(item.holder) < MAX_ACTIVE_TRADES_PER_HOLDER) {
        return item;
      }
    }
    return 'busy';
  }

  /** The back end deposits before a buy its balance (and credit) would not cover. */
  private topUpFor(price: number): void {
    const merchant = this.core.merchants.get(this.merchantId);
    if (merchant.balance + merchant.creditLimit >= price) return;
    this.core.db.transaction(() =>
      this.core.ledger.post(this.merchantId, {
        type: 'CRYPTO DEPOSIT',
        amount: DEPOSIT_CENTS + price,
        note: 'USDT deposit',
      }),
    )();
    this.stats.deposits++;
  }
}
