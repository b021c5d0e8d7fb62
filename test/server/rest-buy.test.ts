import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BalanceHistoryPage, BuyResult, Item, TradeHistoryPage } from '../../src/shared/api';
import { buyResultSchema } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, merchantApi, tradeUrlFor } from '../support/sandboxHttp';

type ErrorBody = { error: string; message: string };

describe('sandbox REST: buying', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;
  let api: ReturnType<typeof merchantApi>;
  let nextItemId = 9_000_001;

  /** Puts items with known fields on sale through the admin helper. */
  async function listItems(partials: Partial<Item>[]): Promise<Item[]> {
    const answer = await admin.post<{ items: Item[] }>('/admin/items', {
      items: partials.map((p) => ({ itemId: nextItemId++, ...p })),
    });
    expect(answer.status).toBe(200);
    return answer.body.items;
  }

  async function listItem(partial: Partial<Item> = {}): Promise<Item> {
    return (await listItems([{ price: 1000, ...partial }]))[0] as Item;
  }

  const buyBody = (item: Item, extra: Record<string, unknown> = {}) => ({
    itemId: item.itemId,
    assetId: item.assetId,
    price: item.price,
    tradeUrl: TEST_TRADE_URL,
    ...extra,
  });

  async function snapshot() {
    const [balance, ledger, trades] = await Promise.all([
      api.get('/Wallet/GetBalance'),
      api.get<BalanceHistoryPage>('/Wallet/BalanceHistory?limit=500'),
      api.get<TradeHistoryPage>('/Trades/History?limit=500'),
    ]);
    return { balance: balance.body, ledger: ledger.body.total, trades: trades.body.total };
  }

  beforeEach(async () => {
    sb = await startSandbox({ items: 200, seed: 9 });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 50_000, creditLimit: 10_000 });
    api = merchantApi(sb, merchant);
  });
  afterEach(() => sb.close());

  it('buys by id: PENDING trade, FREEZE entry, item off sale at once, default duration 1800 s', async () => {
    const item = await listItem({ price: 2500, market_hash_name: 'AK-47 | Redline (Field-Tested)', phase: null });
    const answer = await api.post<BuyResult>('/Items/Buy', buyBody(item, { externalId: 'order-1' }));
    expect(answer.status).toBe(200);
    const result = buyResultSchema.parse(answer.body);
    expect(result).toMatchObject({
      tradeUrl: TEST_TRADE_URL,
      assetId: item.assetId,
      market_hash_name: item.market_hash_name,
      phase: null,
      float: item.float,
      price: 2500,
      externalId: 'order-1',
    });

    const trades = await api.get<TradeHistoryPage>(`/Trades/History?tradeId=${result.tradeId}`);
    expect(trades.body.trades[0]).toMatchObject({
      status: 'PENDING',
      offerId: null,
      itemId: item.itemId,
      stage: 1,
      webhookStatus: null,
    });

    const ledger = await api.get<BalanceHistoryPage>(`/Wallet/BalanceHistory?tradeId=${result.tradeId}`);
    expect(ledger.body.transactions).toHaveLength(1);
    expect(ledger.body.transactions[0]).toMatchObject({
      type: 'FREEZE',
      amount: -2500,
      balanceBefore: 50_000,
      balanceAfter: 47_500,
      market_hash_name: item.market_hash_name,
    });
    expect((await api.get('/Wallet/GetBalance')).body).toEqual({
      balance: 47_500,
      credit_limit: 10_000,
      total_available: 57_500,
    });

    const search = await api.post<{ totalItems: number }>('/Items/SearchItems', { itemId: [item.itemId] });
    expect(search.body.totalItems).toBe(0);
    const again = await api.post<ErrorBody>('/Items/Buy', buyBody(item));
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('item_unavailable');

    // Expiry counts from SENT: the default 1800 s.
    const sent = await admin.transition(result.tradeId, { status: 'SENT' });
    await admin.advance(1799);
    expect((await api.get<TradeHistoryPage>(`/Trades/History?tradeId=${result.tradeId}`)).body.trades[0]?.status).toBe(
      'SENT',
    );
    await admin.advance(2);
    const expired = (await api.get<TradeHistoryPage>(`/Trades/History?tradeId=${result.tradeId}`)).body.trades[0];
    expect(expired).toMatchObject({
      status: 'EXPIRED',
      errorCode: 503,
      failReason: 'Trade offer expired',
      offerId: sent.offerId,
    });
  });

  it('answers every buy error with its code and changes nothing', async () => {
    const item = await listItem({ price: 3000 });
    const before = await snapshot();
    const cases: [string, number, Record<string, unknown>][] = [
      ['invalid_request', 400, { itemId: item.itemId, price: 3000, tradeUrl: TEST_TRADE_URL }],
      ['invalid_request', 400, { ...buyBody(item), price: '3000' }],
      ['invalid_request', 400, { ...buyBody(item), unexpected: true }],
      ['invalid_price', 400, buyBody(item, { price: 0 })],
      ['invalid_trade_duration', 400, buyBody(item, { tradeDurationSeconds: 599 })],
      ['invalid_trade_duration', 400, buyBody(item, { tradeDurationSeconds: 43_201 })],
      ['invalid_tradeurl', 400, buyBody(item, { tradeUrl: 'https://steamcommunity.com/id/someone' })],
      ['item_unavailable', 400, buyBody({ ...item, itemId: 123 })],
      ['asset_mismatch', 400, buyBody({ ...item, assetId: '1' })],
      ['price_changed', 400, buyBody({ ...item, price: 2999 })],
    ];
    for (const [code, status, body] of cases) {
      const answer = await api.post<ErrorBody>('/Items/Buy', body);
      expect({ code: answer.body.error, status: answer.status }, JSON.stringify(body)).toEqual({ code, status });
      expect(typeof answer.body.message).toBe('string');
    }
    const priceChanged = await api.post<ErrorBody>('/Items/Buy', buyBody({ ...item, price: 1 }));
    expect(priceChanged.body.message).toContain('new price: 3000');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a reused externalId, and funds beyond balance + credit limit', async () => {
    const [a, b, costly] = await listItems([{ price: 100 }, { price: 100 }, { price: 60_001 }]);
    expect((await api.post('/Items/Buy', buyBody(a as Item, { externalId: 'same' }))).status).toBe(200);
    const duplicate = await api.post<ErrorBody>('/Items/Buy', buyBody(b as Item, { externalId: 'same' }));
    expect([duplicate.status, duplicate.body.error]).toEqual([400, 'duplicate_external_id']);

    // Available is 49,900 + 10,000 credit = 59,900 < 60,001.
    const poor = await api.post<ErrorBody>('/Items/Buy', buyBody(costly as Item));
    expect([poor.status, poor.body.error]).toEqual([400, 'insufficient_balance']);
    expect(poor.body.message).toContain('$599.00');

    // Credit makes a negative balance possible.
    const [affordable] = await listItems([{ price: 59_900 }]);
    expect((await api.post('/Items/Buy', buyBody(affordable as Item))).status).toBe(200);
    expect((await api.get('/Wallet/GetBalance')).body).toEqual({
      balance: -10_000,
      credit_limit: 10_000,
      total_available: 0,
    });
  });

  it('limits active offers: 30 per trade URL owner, 5 per holding account', async () => {
    await admin.post(`/admin/merchants/${merchant.merchantId}/balance`, { type: 'ADMIN TOP UP', amount: 1_000_000 });
    const ownerItems = await listItems(
      Array.from({ length: 31 }, (_, i) => ({ price: 10, steamId: `7656119800000${String(i).padStart(4, '0')}` })),
    );
    for (const item of ownerItems.slice(0, 30)) expect((await api.post('/Items/Buy', buyBody(item))).status).toBe(200);
    const ownerFull = await api.post<ErrorBody>('/Items/Buy', buyBody(ownerItems[30] as Item));
    expect([ownerFull.status, ownerFull.body.error]).toEqual([403, 'too_many_active_trades']);
    // Another owner is fine.
    expect((await api.post('/Items/Buy', buyBody(ownerItems[30] as Item, { tradeUrl: tradeUrlFor(777) }))).status).toBe(
      200,
    );

    const holder = '76561198099999999';
    const held = await listItems(Array.from({ length: 6 }, () => ({ price: 10, steamId: holder })));
    for (const [i, item] of held.slice(0, 5).entries()) {
      expect((await api.post('/Items/Buy', buyBody(item, { tradeUrl: tradeUrlFor(1000 + i) }))).status).toBe(200);
    }
    const holderFull = await api.post<ErrorBody>(
      '/Items/Buy',
      buyBody(held[5] as Item, { tradeUrl: tradeUrlFor(2000) }),
    );
    expect([holderFull.status, holderFull.body.error]).toEqual([403, 'too_many_active_trades']);
    expect(holderFull.body.message).toContain('another account');
  });

  it('blocks a trade URL owner after 10 declines or expiries in 24 h, until expiresAt', async () => {
    const owner = tradeUrlFor(4242);
    const items = await listItems(Array.from({ length: 11 }, () => ({ price: 10 })));
    for (const [i, item] of items.slice(0, 10).entries()) {
      const bought = await api.post<BuyResult>('/Items/Buy', buyBody(item, { tradeUrl: owner }));
      await admin.transition(bought.body.tradeId, { status: 'SENT' });
      if (i % 2 === 0) await admin.transition(bought.body.tradeId, { status: 'CANCELLED', errorCode: 504 });
      else await admin.advance(1801);
    }
    const blocked = await api.post<ErrorBody>('/Items/Buy', buyBody(items[10] as Item, { tradeUrl: owner }));
    expect([blocked.status, blocked.body.error]).toEqual([403, 'partner_blocked']);
    const expiresAt = /expiresAt: (\S+Z)/.exec(blocked.body.message)?.[1] as string;
    expect(expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // Someone else is not blocked.
    const [other] = await listItems([{ price: 10 }]);
    expect((await api.post('/Items/Buy', buyBody(other as Item, { tradeUrl: tradeUrlFor(4243) }))).status).toBe(200);

    const clock = await admin.get<{ now: string }>('/admin/clock');
    await admin.advance((Date.parse(expiresAt) - Date.parse(clock.body.now)) / 1000 + 1);
    expect((await api.post('/Items/Buy', buyBody(items[10] as Item, { tradeUrl: owner }))).status).toBe(200);
  });

  /** Ten declines within 24 h: the owner of `tradeUrl` is blocked. */
  async function blockOwner(tradeUrl: string): Promise<void> {
    for (const item of await listItems(Array.from({ length: 10 }, () => ({ price: 10 })))) {
      const bought = await api.post<BuyResult>('/Items/Buy', buyBody(item, { tradeUrl }));
      expect(bought.status).toBe(200);
      await admin.transition(bought.body.tradeId, { status: 'SENT' });
      await admin.transition(bought.body.tradeId, { status: 'CANCELLED', errorCode: 504 });
    }
  }

  it('answers every BuyByName error row with its code and changes nothing', async () => {
    // Names the generator never makes (no souvenir of a case skin), so only the items listed here match.
    const name = 'Souvenir AWP | Asiimov (Field-Tested)';
    const [cheap] = await listItems([
      { market_hash_name: name, phase: null, price: 2_000, steamId: '76561198011110001' },
    ]);
    const byName = (extra: Record<string, unknown> = {}) => ({
      market_hash_name: name,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 5_000,
      ...extra,
    });
    // externalId `taken` is used by a Buy: unique per merchant across both endpoints.
    const [other] = await listItems([{ price: 100 }]);
    expect((await api.post('/Items/Buy', buyBody(other as Item, { externalId: 'taken' }))).status).toBe(200);
    const before = await snapshot();

    const cases: [string, number, Record<string, unknown>][] = [
      ['invalid_request', 400, { market_hash_name: name, tradeUrl: TEST_TRADE_URL }],
      ['invalid_request', 400, byName({ itemId: cheap?.itemId })],
      ['invalid_request', 400, byName({ assetId: cheap?.assetId })],
      ['invalid_price', 400, byName({ maxPrice: 0 })],
      ['invalid_price', 400, byName({ maxPrice: -1 })],
      ['invalid_trade_duration', 400, byName({ tradeDurationSeconds: 599 })],
      ['invalid_trade_duration', 400, byName({ tradeDurationSeconds: 43_201 })],
      [
        'invalid_tradeurl',
        400,
        byName({ tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=123&token=short' }),
      ],
      [
        'invalid_tradeurl',
        400,
        byName({ tradeUrl: 'http://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234' }),
      ],
      ['item_unavailable', 400, byName({ market_hash_name: 'AWP | Nothing Like It (Field-Tested)' })],
      ['item_unavailable', 400, byName({ phase: 'Phase 9' })],
      [
        'item_unavailable',
        400,
        byName({ itemId: cheap?.itemId, assetId: cheap?.assetId, market_hash_name: 'AK-47 | Redline (Field-Tested)' }),
      ],
      ['asset_mismatch', 400, byName({ itemId: cheap?.itemId, assetId: '1' })],
      ['price_too_high', 400, byName({ maxPrice: 1_999 })],
      ['duplicate_external_id', 400, byName({ externalId: 'taken' })],
    ];
    for (const [code, status, body] of cases) {
      const answer = await api.post<ErrorBody>('/Items/BuyByName', body);
      expect({ code: answer.body.error, status: answer.status }, JSON.stringify(body)).toEqual({ code, status });
      expect(Object.keys(answer.body).sort()).toEqual(['error', 'message']);
    }
    expect(await snapshot()).toEqual(before);

    // Balance + credit limit is 49,900 + 10,000.
    const [dear] = await listItems([
      { market_hash_name: 'Souvenir M4A4 | Howl (Minimal Wear)', phase: null, price: 59_901 },
    ]);
    const poor = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: dear?.market_hash_name,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 60_000,
    });
    expect([poor.status, poor.body.error]).toEqual([400, 'insufficient_balance']);
    expect(poor.body.message).toContain('$599.01');
    expect((await snapshot()).balance).toEqual(before.balance);
    const bought = await api.post<BuyResult>('/Items/BuyByName', byName({ externalId: 'fresh' }));
    expect(bought.status).toBe(200);
    const duplicate = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: dear?.market_hash_name,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 60_000,
      externalId: 'fresh',
    });
    expect([duplicate.status, duplicate.body.error]).toEqual([400, 'duplicate_external_id']);
  });

  it('BuyByName: partner_blocked with expiresAt, and too_many_active_trades per owner (30) and per holder (5)', async () => {
    await admin.post(`/admin/merchants/${merchant.merchantId}/balance`, { type: 'ADMIN TOP UP', amount: 1_000_000 });
    const blocked = tradeUrlFor(5150);
    await blockOwner(blocked);
    const name = 'Souvenir Glock-18 | Fade (Factory New)';
    await listItems([{ market_hash_name: name, phase: null, price: 50 }]);
    const refused = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: name,
      tradeUrl: blocked,
      maxPrice: 100,
    });
    expect([refused.status, refused.body.error]).toEqual([403, 'partner_blocked']);
    expect(refused.body.message).toMatch(/expiresAt: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    // 30 active offers to one owner; the 31st is refused, another owner is fine.
    const owner = tradeUrlFor(6160);
    const ownerName = 'Souvenir MP9 | Hydra (Field-Tested)';
    await listItems(
      Array.from({ length: 32 }, (_, i) => ({
        market_hash_name: ownerName,
        phase: null,
        price: 10 + i,
        steamId: `7656119802${String(i).padStart(7, '0')}`,
      })),
    );
    for (let i = 0; i < 30; i++) {
      const answer = await api.post<BuyResult>('/Items/BuyByName', {
        market_hash_name: ownerName,
        tradeUrl: owner,
        maxPrice: 100,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.price).toBe(10 + i);
    }
    const ownerFull = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: ownerName,
      tradeUrl: owner,
      maxPrice: 100,
    });
    expect([ownerFull.status, ownerFull.body.error]).toEqual([403, 'too_many_active_trades']);
    expect(ownerFull.body.message).toContain('30 active offers');
    expect(
      (await api.post('/Items/BuyByName', { market_hash_name: ownerName, tradeUrl: tradeUrlFor(6161), maxPrice: 100 }))
        .status,
    ).toBe(200);

    // 5 active offers per holding account: the cheapest item of a busy holder is skipped while another holder has one…
    const holder = '76561198033333333';
    const heldName = 'Souvenir USP-S | Kill Confirmed (Minimal Wear)';
    const held = await listItems(
      Array.from({ length: 6 }, (_, i) => ({
        market_hash_name: heldName,
        phase: null,
        price: 100 + i,
        steamId: holder,
      })),
    );
    const [spare] = await listItems([
      { market_hash_name: heldName, phase: null, price: 500, steamId: '76561198044444444' },
    ]);
    for (let i = 0; i < 5; i++) {
      expect(
        (
          await api.post('/Items/BuyByName', {
            market_hash_name: heldName,
            tradeUrl: tradeUrlFor(7000 + i),
            maxPrice: 1_000,
          })
        ).status,
      ).toBe(200);
    }
    const skipped = await api.post<BuyResult>('/Items/BuyByName', {
      market_hash_name: heldName,
      tradeUrl: tradeUrlFor(7100),
      maxPrice: 1_000,
    });
    expect(skipped.body.assetId).toBe(spare?.assetId);
    // …and refused when no holder of the name has a free slot, or when the busy holder's item is targeted.
    const holderFull = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: heldName,
      tradeUrl: tradeUrlFor(7200),
      maxPrice: 1_000,
    });
    expect([holderFull.status, holderFull.body.error]).toEqual([403, 'too_many_active_trades']);
    expect(holderFull.body.message).toContain('another account');
    const targeted = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: heldName,
      itemId: held[5]?.itemId,
      assetId: held[5]?.assetId,
      tradeUrl: tradeUrlFor(7300),
      maxPrice: 1_000,
    });
    expect([targeted.status, targeted.body.error]).toEqual([403, 'too_many_active_trades']);
  });

  it('orders the checks: a body failing two of them gets the earlier code (Buy and BuyByName)', async () => {
    await admin.post(`/admin/merchants/${merchant.merchantId}/balance`, { type: 'ADMIN TOP UP', amount: 1_000_000 });
    // A blocked owner, a holding account with 5 active offers, an owner with 30, a used externalId.
    const blocked = tradeUrlFor(8100);
    await blockOwner(blocked);
    const busyHolder = '76561198055555555';
    for (const [i, item] of (
      await listItems(Array.from({ length: 5 }, () => ({ price: 10, steamId: busyHolder })))
    ).entries()) {
      expect((await api.post('/Items/Buy', buyBody(item, { tradeUrl: tradeUrlFor(8200 + i) }))).status).toBe(200);
    }
    const fullOwner = tradeUrlFor(8300);
    for (const [i, item] of (
      await listItems(
        Array.from({ length: 30 }, (_, i) => ({ price: 10, steamId: `7656119806${String(i).padStart(7, '0')}` })),
      )
    ).entries()) {
      expect(
        (
          await api.post(
            '/Items/Buy',
            buyBody(item, { tradeUrl: fullOwner, ...(i === 0 ? { externalId: 'used' } : {}) }),
          )
        ).status,
      ).toBe(200);
    }
    const name = 'Souvenir Desert Eagle | Blaze (Factory New)';
    const [item, heldByBusy, dear] = (await listItems([
      { market_hash_name: name, phase: null, price: 3_000, steamId: '76561198066666666' },
      { market_hash_name: 'Souvenir AK-47 | Vulcan (Minimal Wear)', phase: null, price: 3_000, steamId: busyHolder },
      {
        market_hash_name: 'StatTrak™ AWP | Dragon Lore (Factory New)',
        phase: null,
        price: 5_000_000,
        steamId: '76561198077777777',
      },
    ])) as [Item, Item, Item];
    const bad = { tradeUrl: 'https://steamcommunity.com/id/nobody' };
    const before = await snapshot();

    const buyCases: [string, Record<string, unknown>][] = [
      ['invalid_request', { ...buyBody(item, { price: 0 }), assetId: undefined }],
      ['invalid_price', buyBody(item, { price: 0, tradeDurationSeconds: 599 })],
      ['invalid_trade_duration', buyBody(item, { tradeDurationSeconds: 599, ...bad })],
      ['invalid_tradeurl', buyBody({ ...item, itemId: 424242 }, bad)],
      ['item_unavailable', buyBody({ ...item, itemId: 424242, assetId: 'x' })],
      ['asset_mismatch', buyBody({ ...item, assetId: 'x', price: 1 })],
      ['price_changed', buyBody({ ...item, price: 1 }, { externalId: 'used' })],
      ['duplicate_external_id', buyBody(dear, { externalId: 'used' })],
      ['insufficient_balance', buyBody(dear, { tradeUrl: blocked })],
      ['partner_blocked', buyBody(heldByBusy, { tradeUrl: blocked })],
      ['too_many_active_trades', buyBody(heldByBusy, { tradeUrl: fullOwner })],
    ];
    const byName = (target: Item, extra: Record<string, unknown> = {}) => ({
      market_hash_name: target.market_hash_name,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 10_000_000,
      ...extra,
    });
    const byNameCases: [string, Record<string, unknown>][] = [
      ['invalid_request', byName(item, { itemId: item.itemId, maxPrice: 0 })],
      ['invalid_price', byName(item, { maxPrice: 0, tradeDurationSeconds: 43_201 })],
      ['invalid_trade_duration', byName(item, { tradeDurationSeconds: 43_201, ...bad })],
      ['invalid_tradeurl', byName(item, { market_hash_name: 'Nothing (Field-Tested)', ...bad })],
      [
        'item_unavailable',
        byName(item, { itemId: item.itemId, assetId: 'x', market_hash_name: 'Nothing (Field-Tested)' }),
      ],
      ['asset_mismatch', byName(item, { itemId: item.itemId, assetId: 'x', maxPrice: 1 })],
      ['price_too_high', byName(item, { maxPrice: 1, externalId: 'used' })],
      ['duplicate_external_id', byName(dear, { externalId: 'used' })],
      ['insufficient_balance', byName(dear, { tradeUrl: blocked })],
      ['partner_blocked', byName(heldByBusy, { tradeUrl: blocked })],
      ['too_many_active_trades', byName(heldByBusy, { tradeUrl: fullOwner })],
    ];
    for (const [path, cases] of [
      ['/Items/Buy', buyCases],
      ['/Items/BuyByName', byNameCases],
    ] as const) {
      for (const [code, body] of cases) {
        const answer = await api.post<ErrorBody>(path, body);
        expect(answer.body.error, `${path} ${JSON.stringify(body)}`).toBe(code);
      }
    }
    // The owner limit (30) is checked before the holder limit (5): its own message.
    const both = await api.post<ErrorBody>('/Items/Buy', buyBody(heldByBusy, { tradeUrl: fullOwner }));
    expect(both.body.message).toContain('wait for existing offers');
    expect(await snapshot()).toEqual(before);
  });

  it('partner block: 9 strikes do not block, counters are no strike, strikes older than 24 h (clock) do not count', async () => {
    await admin.post(`/admin/merchants/${merchant.merchantId}/balance`, { type: 'ADMIN TOP UP', amount: 1_000_000 });
    const owner = tradeUrlFor(9100);
    const buyForOwner = async (): Promise<{ status: number; tradeId: string; error?: string }> => {
      const [item] = await listItems([{ price: 10 }]);
      const answer = await api.post<BuyResult & ErrorBody>('/Items/Buy', buyBody(item as Item, { tradeUrl: owner }));
      return { status: answer.status, tradeId: answer.body.tradeId, error: answer.body.error };
    };
    const decline = async (tradeId: string, errorCode = 504) => {
      await admin.transition(tradeId, { status: 'SENT' });
      await admin.transition(tradeId, { status: 'CANCELLED', errorCode });
    };
    for (let i = 0; i < 9; i++) await decline((await buyForOwner()).tradeId);
    // 9 declines within 24 h: not blocked.
    const tenth = await buyForOwner();
    expect(tenth.status).toBe(200);
    // A counter (506) is not a strike.
    await decline(tenth.tradeId, 506);
    const afterCounter = await buyForOwner();
    expect(afterCounter.status).toBe(200);

    // A day later the 9 strikes have left the window: one more decline makes 1, not 10.
    await admin.advance(24 * 3600 + 1);
    await decline(afterCounter.tradeId);
    const afterOld = await buyForOwner();
    expect(afterOld.status).toBe(200);
    // An expiry counts (2), then 8 more declines make 10 within 24 h: blocked.
    await admin.transition(afterOld.tradeId, { status: 'SENT' });
    await admin.advance(1801);
    expect(
      (await api.get<TradeHistoryPage>(`/Trades/History?tradeId=${afterOld.tradeId}`)).body.trades[0]?.status,
    ).toBe('EXPIRED');
    for (let i = 0; i < 7; i++) await decline((await buyForOwner()).tradeId);
    const ninth = await buyForOwner();
    expect(ninth.status).toBe(200);
    await decline(ninth.tradeId);
    const blocked = await buyForOwner();
    expect([blocked.status, blocked.error]).toEqual([403, 'partner_blocked']);
  });

  it('buys by name: cheapest match, phase filter, targeted item, maxPrice guard', async () => {
    const name = '★ Karambit | Doppler (Factory New)';
    const [p1cheap, p2, p1dear] = await listItems([
      { market_hash_name: name, phase: 'Phase 1', price: 90_000 },
      { market_hash_name: name, phase: 'Phase 2', price: 95_000 },
      { market_hash_name: name, phase: 'Phase 1', price: 99_000 },
    ]);
    await admin.post(`/admin/merchants/${merchant.merchantId}/balance`, { type: 'CRYPTO DEPOSIT', amount: 1_000_000 });

    const tooHigh = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: name,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 89_999,
    });
    expect([tooHigh.status, tooHigh.body.error]).toEqual([400, 'price_too_high']);

    const cheapest = await api.post<BuyResult>('/Items/BuyByName', {
      market_hash_name: name,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 100_000,
    });
    expect(cheapest.body).toMatchObject({ assetId: p1cheap?.assetId, price: 90_000, phase: 'Phase 1' });

    const phase2 = await api.post<BuyResult>('/Items/BuyByName', {
      market_hash_name: name,
      phase: 'Phase 2',
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 100_000,
    });
    expect(phase2.body).toMatchObject({ assetId: p2?.assetId, phase: 'Phase 2' });

    const targetedTooHigh = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: name,
      itemId: p1dear?.itemId,
      assetId: p1dear?.assetId,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 98_000,
    });
    expect(targetedTooHigh.body.error).toBe('price_too_high');
    const mismatch = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: name,
      itemId: p1dear?.itemId,
      assetId: 'nope',
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 100_000,
    });
    expect(mismatch.body.error).toBe('asset_mismatch');
    const onlyOne = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: name,
      itemId: p1dear?.itemId,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 1,
    });
    expect(onlyOne.body.error).toBe('invalid_request');
    const targeted = await api.post<BuyResult>('/Items/BuyByName', {
      market_hash_name: name,
      itemId: p1dear?.itemId,
      assetId: p1dear?.assetId,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 100_000,
      externalId: 'by-name-1',
    });
    expect(targeted.body).toMatchObject({ price: 99_000, externalId: 'by-name-1' });

    const none = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: name,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 100_000,
    });
    expect(none.body.error).toBe('item_unavailable');
    const zero = await api.post<ErrorBody>('/Items/BuyByName', {
      market_hash_name: name,
      tradeUrl: TEST_TRADE_URL,
      maxPrice: 0,
    });
    expect(zero.body.error).toBe('invalid_price');
  });
});
