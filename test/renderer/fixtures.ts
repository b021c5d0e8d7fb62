import type { Trade } from '../../src/shared/api';
import type { EngineEventBatch } from '../../src/shared/ipc/events';
import type { CatalogRow, Page } from '../../src/shared/ipc/models';

export function row(itemId: number, price = 1000, extra: Partial<CatalogRow> = {}): CatalogRow {
  return {
    itemId,
    assetId: `a${itemId}`,
    market_hash_name: `AK-47 | Redline (Field-Tested) #${itemId}`,
    phase: null,
    price,
    float: 0.25,
    paintSeed: 123,
    rarityColor: '#d32ce6',
    img: null,
    stickerCount: 0,
    stickerNames: [],
    keyChainNames: [],
    statTrak: false,
    souvenir: false,
    listedAt: '2026-03-01T12:00:00.000Z',
    lastMove: null,
    market: { reference: 1000, listings: 5, plainListings: 5, discount: (1000 - price) / 10, floatRank: 1 },
    ...extra,
  };
}

export function page(first: number, count: number, total: number): Page<CatalogRow> {
  return { rows: Array.from({ length: count }, (_, i) => row(first + i)), total, offset: first, limit: count };
}

export function batch(seq: number, extra: Partial<EngineEventBatch> = {}): EngineEventBatch {
  return { seq, at: '2026-03-01T12:00:01.000Z', ...extra };
}

export function items(extra: Partial<NonNullable<EngineEventBatch['items']>>): NonNullable<EngineEventBatch['items']> {
  return { upserted: [], removed: [], prices: [], invalidated: false, ...extra };
}

export function trade(tradeId: string, status: Trade['status'] = 'PENDING', extra: Partial<Trade> = {}): Trade {
  return {
    tradeId,
    externalId: null,
    status,
    price: 1000,
    itemId: 1,
    assetId: 'a1',
    offerId: null,
    tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCdEfGh',
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    phase: null,
    float: 0.25,
    webhookStatus: null,
    failReason: null,
    errorCode: null,
    createdAt: '2026-03-01T12:00:00.000Z',
    updatedAt: '2026-03-01T12:00:00.000Z',
    completedAt: null,
    cancelledAt: null,
    endProtection: null,
    rollbackAt: null,
    stage: 1,
    ...extra,
  };
}
