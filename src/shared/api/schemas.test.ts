import { describe, expect, it } from 'vitest';
import {
  balanceHistoryQuerySchema,
  balanceSchema,
  buyByNameRequestChecks,
  buyByNameRequestSchema,
  buyByNameRequestShapeSchema,
  buyRequestChecks,
  buyRequestSchema,
  buyRequestShapeSchema,
  catalogEnvelopeSchema,
  feedFrameSchema,
  firstFailedCheck,
  itemSchema,
  searchItemsRequestSchema,
  stickerSchema,
  testWebhookSchema,
  toQueryString,
  tradeHistoryQuerySchema,
  tradeSchema,
  tradeUpdatedWebhookSchema,
  wearPercentOf,
} from './index';

const TRADE_URL = 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234';

const item = {
  itemId: 1001,
  assetId: '38291234567',
  classId: '310776',
  instanceId: '0',
  paintIndex: 282,
  paintSeed: 661,
  rarityColor: '#d32ce6',
  market_hash_name: 'AK-47 | Redline (Field-Tested)',
  img: 'https://example.test/img/ak.svg',
  phase: null,
  price: 1234,
  float: 0.2512,
  stickers: [
    { name: 'Sticker | Crown (Foil)', img: 'https://example.test/s.svg', slot: 0, wear: 0.25, wearPercent: '75%' },
  ],
  keyChains: [{ name: "Charm | Lil' Squirt", img: 'https://example.test/c.svg', slot: 0, pattern: 42 }],
  steamId: null,
  inspectInGame: null,
  tradeUrl: null,
};

const trade = {
  tradeId: 't-1',
  externalId: null,
  status: 'PENDING',
  price: 1234,
  itemId: 1001,
  assetId: '38291234567',
  offerId: null,
  tradeUrl: TRADE_URL,
  market_hash_name: 'AK-47 | Redline (Field-Tested)',
  phase: null,
  float: 0.25,
  webhookStatus: null,
  failReason: null,
  errorCode: null,
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
  completedAt: null,
  cancelledAt: null,
  endProtection: null,
  rollbackAt: null,
  stage: 1,
};

describe('resource schemas', () => {
  it('accept a spec-shaped item and tolerate unknown extra fields', () => {
    expect(itemSchema.parse(item)).toEqual(item);
    expect(itemSchema.safeParse({ ...item, addedLater: true }).success).toBe(true);
  });

  it.each([
    ['rarity colour outside the list', { rarityColor: '#ffffff' }],
    ['paint seed above 999', { paintSeed: 1000 }],
    ['price in fractional cents', { price: 12.5 }],
    ['price as a string', { price: '1234' }],
    ['float above 1', { float: 1.2 }],
    ['missing market_hash_name', { market_hash_name: undefined }],
    ['stickers not an array', { stickers: null }],
    ['sticker wearPercent not a percentage', { stickers: [{ ...item.stickers[0], wearPercent: '75' }] }],
    ['keychain without slot', { keyChains: [{ name: 'x', img: 'y' }] }],
  ])('reject an item with %s', (_what, patch) => {
    expect(itemSchema.safeParse({ ...item, ...patch }).success).toBe(false);
  });

  it('computes wearPercent as floor((1 - wear) * 100)%', () => {
    expect(wearPercentOf(0)).toBe('100%');
    expect(wearPercentOf(1)).toBe('0%');
    expect(wearPercentOf(0.255)).toBe('74%');
    expect(wearPercentOf(null)).toBeNull();
  });

  it.each([
    [0, '100%'],
    [1, '0%'],
    // (1 - 0.9) * 100 is 9.999999999999998 in binary floating point: still 10%.
    [0.9, '10%'],
    [0.07685845345258713, '92%'],
    // 32-bit raw wears of decimal values (inspection data is a float32).
    [Math.fround(0.3), '70%'],
    [Math.fround(0.9), '10%'],
    [Math.fround(0.1), '90%'],
    [0.5, '50%'],
    [0.555, '44%'],
    [0.00999, '99%'],
    [0.99999, '0%'],
    [0.994, '0%'],
    [0.989, '1%'],
  ])('wearPercent of wear %d is %s, robust to floating point', (wear, expected) => {
    expect((1 - 0.9) * 100).toBeLessThan(10);
    expect(wearPercentOf(wear)).toBe(expected);
    expect(stickerSchema.shape.wearPercent.parse(wearPercentOf(wear))).toBe(expected);
  });

  it('accept a trade and reject bad statuses, stages and timestamps', () => {
    expect(tradeSchema.parse(trade).stage).toBe(1);
    expect(tradeSchema.safeParse({ ...trade, status: 'DONE' }).success).toBe(false);
    expect(tradeSchema.safeParse({ ...trade, stage: 3 }).success).toBe(false);
    expect(tradeSchema.safeParse({ ...trade, createdAt: '2026-11-21T10:00:00Z' }).success).toBe(false);
    expect(tradeSchema.safeParse({ ...trade, createdAt: '2026-11-21T10:00:00.000+01:00' }).success).toBe(false);
    expect(tradeSchema.safeParse({ ...trade, webhookStatus: 'pending' }).success).toBe(false);
    // CREATING is named by the active-trade limit: a client must accept it.
    expect(tradeSchema.safeParse({ ...trade, status: 'CREATING' }).success).toBe(true);
  });

  it('reject a catalog envelope without lastUpdate and a balance with fractional cents', () => {
    expect(catalogEnvelopeSchema.safeParse({ totalItems: 1, totalValue: 1234, items: [item] }).success).toBe(false);
    expect(balanceSchema.safeParse({ balance: 1.5, credit_limit: 0, total_available: 1.5 }).success).toBe(false);
  });
});

describe('SearchItems body', () => {
  it('accepts exactly one of the two fields', () => {
    expect(searchItemsRequestSchema.safeParse({ itemId: [1, 2] }).success).toBe(true);
    expect(searchItemsRequestSchema.safeParse({ market_hash_name: ['AK-47 | Redline (Field-Tested)'] }).success).toBe(
      true,
    );
  });

  it.each([
    ['neither field', {}],
    ['both fields', { itemId: [1], market_hash_name: ['x'] }],
    ['11 names', { market_hash_name: Array.from({ length: 11 }, (_, i) => `n${i}`) }],
    ['501 ids', { itemId: Array.from({ length: 501 }, (_, i) => i + 1) }],
    ['a zero id', { itemId: [0] }],
    ['a negative id', { itemId: [-5] }],
    ['an id as a string', { itemId: ['5'] }],
    ['an empty list', { itemId: [] }],
    ['an unknown field', { itemId: [1], extra: 1 }],
  ])('rejects %s', (_what, body) => {
    expect(searchItemsRequestSchema.safeParse(body).success).toBe(false);
  });
});

describe('Buy body', () => {
  const body = { itemId: 1001, assetId: '38291234567', price: 1234, tradeUrl: TRADE_URL };

  it('accepts a valid body with the optional fields', () => {
    expect(buyRequestSchema.safeParse({ ...body, externalId: 'order-1', tradeDurationSeconds: 600 }).success).toBe(
      true,
    );
    expect(buyRequestSchema.safeParse({ ...body, externalId: null }).success).toBe(true);
  });

  it.each([['itemId'], ['assetId'], ['price'], ['tradeUrl']])('shape rejects a body missing %s', (field) => {
    const { [field as keyof typeof body]: _dropped, ...rest } = body;
    expect(buyRequestShapeSchema.safeParse(rest).success).toBe(false);
  });

  it('shape rejects unknown fields and mistyped values', () => {
    expect(buyRequestShapeSchema.safeParse({ ...body, coupon: 'x' }).success).toBe(false);
    expect(buyRequestShapeSchema.safeParse({ ...body, price: '1234' }).success).toBe(false);
    expect(buyRequestShapeSchema.safeParse({ ...body, tradeDurationSeconds: 600.5 }).success).toBe(false);
    expect(buyRequestShapeSchema.safeParse({ ...body, externalId: '' }).success).toBe(false);
  });

  it.each([
    ['invalid_price', { price: 0 }],
    ['invalid_price', { price: -1 }],
    ['invalid_trade_duration', { tradeDurationSeconds: 599 }],
    ['invalid_trade_duration', { tradeDurationSeconds: 43_201 }],
    ['invalid_tradeurl', { tradeUrl: 'https://example.com/' }],
    ['invalid_tradeurl', { tradeUrl: TRADE_URL.replace('https', 'http') }],
    ['invalid_tradeurl', { tradeUrl: TRADE_URL.replace('AbCd1234', 'AbCd123') }],
    ['invalid_tradeurl', { tradeUrl: TRADE_URL.replace('12345678', '0') }],
  ])('value checks answer %s', (code, patch) => {
    const parsed = buyRequestShapeSchema.parse({ ...body, ...patch });
    expect(firstFailedCheck(buyRequestChecks, parsed)?.code).toBe(code);
    expect(buyRequestSchema.safeParse({ ...body, ...patch }).success).toBe(false);
  });

  it('runs the checks in the documented order', () => {
    const parsed = buyRequestShapeSchema.parse({ ...body, price: 0, tradeDurationSeconds: 1, tradeUrl: 'nope' });
    expect(firstFailedCheck(buyRequestChecks, parsed)?.code).toBe('invalid_price');
    expect(firstFailedCheck(buyRequestChecks, { ...parsed, price: 5 })?.code).toBe('invalid_trade_duration');
  });
});

describe('BuyByName body', () => {
  const body = { market_hash_name: '★ Karambit | Doppler (Factory New)', tradeUrl: TRADE_URL, maxPrice: 100_000 };

  it('accepts a name with a phase, or a targeted item', () => {
    expect(buyByNameRequestSchema.safeParse({ ...body, phase: 'Phase 2' }).success).toBe(true);
    expect(buyByNameRequestSchema.safeParse({ ...body, itemId: 5, assetId: '77' }).success).toBe(true);
  });

  it('rejects itemId without assetId and the reverse', () => {
    expect(buyByNameRequestShapeSchema.safeParse({ ...body, itemId: 5 }).success).toBe(false);
    expect(buyByNameRequestShapeSchema.safeParse({ ...body, assetId: '77' }).success).toBe(false);
  });

  it('maps a non-positive maxPrice to invalid_price', () => {
    const parsed = buyByNameRequestShapeSchema.parse({ ...body, maxPrice: 0 });
    expect(firstFailedCheck(buyByNameRequestChecks, parsed)?.code).toBe('invalid_price');
  });
});

describe('history queries', () => {
  it('parse strings into typed values and back', () => {
    const parsed = tradeHistoryQuerySchema.parse({ limit: '20', page: '3', status: 'SENT', isActive: 'false' });
    expect(parsed).toEqual({ limit: 20, page: 3, status: 'SENT', isActive: false });
    expect(tradeHistoryQuerySchema.parse(Object.fromEntries(new URLSearchParams(toQueryString(parsed))))).toEqual(
      parsed,
    );
  });

  it.each([
    ['isActive with from', { isActive: 'true', from: '2026-11-01T00:00:00.000Z' }],
    ['isActive with to', { isActive: 'true', to: '2026-11-01T00:00:00Z' }],
    ['limit above 500', { limit: '501' }],
    ['limit 0', { limit: '0' }],
    ['page 0', { page: '0' }],
    ['a negative page', { page: '-1' }],
    ['an unknown status', { status: 'DONE' }],
    ['an unknown webhookStatus', { webhookStatus: 'pending' }],
    ['isActive not a boolean word', { isActive: 'yes' }],
    ['a non-UTC timestamp', { from: '2026-11-01T00:00:00+01:00' }],
    ['an impossible date', { from: '2026-02-31T00:00:00Z' }],
    ['from after to', { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' }],
    ['a repeated parameter', { status: ['SENT', 'PENDING'] }],
    ['an unknown parameter', { sort: 'asc' }],
  ])('trade history rejects %s', (_what, query) => {
    expect(tradeHistoryQuerySchema.safeParse(query).success).toBe(false);
  });

  it.each<[string, Record<string, string>, boolean]>([
    ['limit above 500', { limit: '1000' }, false],
    ['page 0', { page: '0' }, false],
    ['junk limit and page', { limit: 'all', page: '-3' }, false],
    ['valid limit and page', { limit: '10', page: '2' }, true],
  ])('trade history ignores limit and page with isActive=true: %s', (_what, paging, validAlone) => {
    expect(tradeHistoryQuerySchema.parse({ isActive: 'true', ...paging })).toEqual({ isActive: true });
    // Only with isActive=true: otherwise they are checked.
    expect(tradeHistoryQuerySchema.safeParse({ isActive: 'false', ...paging }).success).toBe(validAlone);
  });

  it('balance history accepts the ledger types and rejects others', () => {
    expect(balanceHistoryQuerySchema.safeParse({ type: 'BUY COMPLETED' }).success).toBe(true);
    expect(balanceHistoryQuerySchema.safeParse({ type: 'REFUND' }).success).toBe(false);
    expect(balanceHistoryQuerySchema.safeParse({ limit: '1000' }).success).toBe(false);
  });
});

describe('events', () => {
  it('parse every feed frame type and reject unknown or incomplete ones', () => {
    expect(feedFrameSchema.parse({ type: 'connected', merchantId: 'm1' }).type).toBe('connected');
    expect(feedFrameSchema.parse({ type: 'item_removed', itemIds: [1, 2] }).type).toBe('item_removed');
    expect(feedFrameSchema.parse({ type: 'price_changed', items: [{ itemId: 1, price: 5 }] }).type).toBe(
      'price_changed',
    );
    expect(feedFrameSchema.parse({ type: 'item_upserted', items: [item] }).type).toBe('item_upserted');
    expect(feedFrameSchema.safeParse({ type: 'hello' }).success).toBe(false);
    expect(feedFrameSchema.safeParse({ type: 'trade_updated', tradeId: 't' }).success).toBe(false);
    expect(feedFrameSchema.safeParse({ type: 'price_changed', items: [{ itemId: 1, price: 5.5 }] }).success).toBe(
      false,
    );
  });

  it('parse webhook bodies', () => {
    const update = {
      tradeId: 't',
      status: 'SENT',
      externalId: null,
      offerId: '123',
      failReason: null,
      errorCode: null,
    };
    expect(tradeUpdatedWebhookSchema.parse(update)).toEqual(update);
    expect(tradeUpdatedWebhookSchema.safeParse({ ...update, errorCode: '504' }).success).toBe(false);
    expect(testWebhookSchema.safeParse({ event: 'test', message: 'hi', timestamp: 'yesterday' }).success).toBe(false);
  });
});
