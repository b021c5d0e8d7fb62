import type { BuyByNameRequest, BuyRequest, BuyResult } from '../../shared/api';
import {
  MAX_ACTIVE_TRADES_PER_HOLDER,
  MAX_ACTIVE_TRADES_PER_OWNER,
  TRADE_DURATION_DEFAULT_SECONDS,
  parseTradeUrl,
} from '../../shared/api';
import { formatCents } from '../../shared/money';
import { toUtcIso } from '../../shared/time';
import type { SqliteDatabase } from '../db/database';
import { badRequest, forbidden } from './apiError';
import type { Catalog } from './catalog';
import type { ItemRecord } from './itemRecord';
import type { Merchants } from './merchants';
import type { TradeRow, Trades } from './trades';

/** The message of `price_changed`; clients read the new price from `new price: <cents>`. */
export function priceChangedMessage(newPrice: number): string {
  return `Price changed; new price: ${newPrice} (${formatCents(newPrice)})`;
}

export function partnerBlockedMessage(expiresAt: number): string {
  return `Trade URL owner is temporarily blocked after repeated declined or expired trades; expiresAt: ${toUtcIso(expiresAt)}`;
}

interface Purchase {
  item: ItemRecord;
  tradeUrl: string;
  externalId: string | null;
  tradeDurationSeconds: number;
}

/**
 * Both buy endpoints. The request's shape and value checks ran before (routes);
 * the checks here follow the documented order: item_unavailable, asset_mismatch,
 * price_changed / price_too_high, duplicate_external_id, insufficient_balance,
 * partner_blocked, too_many_active_trades. One transaction: no two buys can
 * both pass the balance or limit checks for the same money or slot.
 */
export class Buying {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly catalog: Catalog,
    private readonly merchants: Merchants,
    private readonly trades: Trades,
  ) {}

  buy(merchantId: string, request: BuyRequest): BuyResult {
    return this.commit(merchantId, () => {
      const item = this.catalog.findOnSale(request.itemId);
      if (!item) throw badRequest('item_unavailable', 'Item currently unavailable');
      if (item.assetId !== request.assetId) throw badRequest('asset_mismatch', 'assetId does not match the item');
      if (item.price !== request.price) throw badRequest('price_changed', priceChangedMessage(item.price));
      return {
        item,
        tradeUrl: request.tradeUrl,
        externalId: request.externalId ?? null,
        tradeDurationSeconds: request.tradeDurationSeconds ?? TRADE_DURATION_DEFAULT_SECONDS,
      };
    });
  }

  buyByName(merchantId: string, request: BuyByNameRequest): BuyResult {
    return this.commit(merchantId, () => {
      const item = request.itemId === undefined ? this.cheapestEligible(request) : this.targeted(request);
      return {
        item,
        tradeUrl: request.tradeUrl,
        externalId: request.externalId ?? null,
        tradeDurationSeconds: request.tradeDurationSeconds ?? TRADE_DURATION_DEFAULT_SECONDS,
      };
    });
  }

  private targeted(request: BuyByNameRequest): ItemRecord {
    const item = this.catalog.findOnSale(request.itemId as number);
    if (!item || item.market_hash_name !== request.market_hash_name)
      throw badRequest('item_unavailable', 'Item currently unavailable');
    if (item.assetId !== request.assetId) throw badRequest('asset_mismatch', 'assetId does not match the item');
    if (item.price > request.maxPrice)
      throw badRequest('price_too_high', priceTooHighMessage(item.price, request.maxPrice));
    return item;
  }

  /** The cheapest match whose holding account can take another offer; the phase filter applies here only. */
  private cheapestEligible(request: BuyByNameRequest): ItemRecord {
    const candidates = this.catalog.byName(request.market_hash_name, request.phase ?? null);
    const cheapest = candidates[0];
    if (!cheapest) throw badRequest('item_unavailable', 'Item currently unavailable');
    if (cheapest.price > request.maxPrice)
      throw badRequest('price_too_high', priceTooHighMessage(cheapest.price, request.maxPrice));
    const eligible = candidates.find(
      (c) =>
        c.price <= request.maxPrice &&
        (c.steamId === null || this.trades.activeCountForHolder(c.steamId) < MAX_ACTIVE_TRADES_PER_HOLDER),
    );
    // When every holder is busy, the cheapest goes on to fail the holder limit with its own error.
    return eligible ?? cheapest;
  }

  private commit(merchantId: string, choose: () => Purchase): BuyResult {
    const run = this.db.transaction((): TradeRow => {
      const purchase = choose();
      const { item } = purchase;
      if (purchase.externalId !== null && this.trades.findByExternalId(merchantId, purchase.externalId)) {
        throw badRequest('duplicate_external_id', 'externalId already used for another trade');
      }
      const merchant = this.merchants.get(merchantId);
      const available = merchant.balance + merchant.creditLimit;
      if (item.price > available) {
        throw badRequest(
          'insufficient_balance',
          `Insufficient merchant balance: ${formatCents(available)} available, ${formatCents(item.price)} needed`,
        );
      }
      const partner = (parseTradeUrl(purchase.tradeUrl) as { partner: string }).partner;
      const blockedUntil = this.trades.partnerBlockedUntil(partner);
      if (blockedUntil !== null) throw forbidden('partner_blocked', partnerBlockedMessage(blockedUntil));
      if (this.trades.activeCountForPartner(partner) >= MAX_ACTIVE_TRADES_PER_OWNER) {
        throw forbidden(
          'too_many_active_trades',
          `The trade URL owner already has ${MAX_ACTIVE_TRADES_PER_OWNER} active offers; wait for existing offers to finish`,
        );
      }
      if (item.steamId !== null && this.trades.activeCountForHolder(item.steamId) >= MAX_ACTIVE_TRADES_PER_HOLDER) {
        throw forbidden(
          'too_many_active_trades',
          `The account holding this item already has ${MAX_ACTIVE_TRADES_PER_HOLDER} active offers; buy an item held by another account`,
        );
      }
      const trade = this.trades.insertPending({
        merchantId,
        item,
        tradeUrl: purchase.tradeUrl,
        partner,
        externalId: purchase.externalId,
        tradeDurationSeconds: purchase.tradeDurationSeconds,
      });
      this.catalog.takeOffSale(item.itemId);
      return trade;
    });
    const trade = run();
    this.catalog.announceRemoved([trade.item_id]);
    this.trades.announce(trade);
    return {
      tradeId: trade.trade_id,
      tradeUrl: trade.trade_url,
      assetId: trade.asset_id,
      market_hash_name: trade.market_hash_name,
      phase: trade.phase,
      float: trade.float,
      price: trade.price,
      externalId: trade.external_id,
    };
  }
}

function priceTooHighMessage(price: number, maxPrice: number): string {
  return `Item price ${price} (${formatCents(price)}) exceeds maxPrice ${maxPrice} (${formatCents(maxPrice)})`;
}
