import { describe, expect, it } from 'vitest';
import type { Balance, Item } from '../../../shared/api';
import type { AlertRule, AppSettings } from '../../../shared/ipc';
import { catalogFiltersSchema, type CatalogFiltersInput } from '../../../shared/ipc/contract';
import { DEFAULT_SETTINGS } from '../engine/appConfig';
import { AutoBuyGuard } from './guard';
import { compileRule, utcDayStart } from './rules';

const rule = (patch: Partial<AlertRule> = {}): AlertRule => ({
  id: 'r1',
  name: 'Cheap Redlines',
  enabled: true,
  filters: catalogFiltersSchema.parse({ search: 'redline' }),
  maxPrice: null,
  autoBuy: { enabled: false, recipientId: null, spendCap: 0, dailyCap: 0, spent: 0 },
  createdAt: '2026-11-21T00:00:00.000Z',
  ...patch,
});

const item = {
  itemId: 1,
  assetId: 'a1',
  market_hash_name: 'AK-47 | Redline (Field-Tested)',
  phase: null,
  float: 0.21,
  paintSeed: 661,
  price: 1500,
  stickers: [{ name: 'Sticker | Crown (Foil)' }],
  keyChains: [],
} as unknown as Item;
const matches = (filters: CatalogFiltersInput, patch: Partial<AlertRule> = {}, of: Item = item) =>
  compileRule(rule({ filters: catalogFiltersSchema.parse(filters), ...patch })).test(of, null);

describe('alert rules', () => {
  it('matches its filters and its maximum price, nothing else', () => {
    expect(matches({ search: 'redline' })).toBe(true);
    expect(matches({ search: 'vulcan' })).toBe(false);
    expect(matches({}, { maxPrice: 1500 })).toBe(true);
    expect(matches({}, { maxPrice: 1499 })).toBe(false);
    expect(matches({ priceMax: 2000 }, { maxPrice: 1499 })).toBe(false);
    expect(matches({ floatMin: 0.15, floatMax: 0.2 })).toBe(false);
    expect(matches({ floatMax: 0.25 })).toBe(true);
    expect(matches({ floatMax: 0.25 }, {}, { ...item, float: null })).toBe(false);
    expect(matches({ phase: 'Phase 2' })).toBe(false);
    expect(matches({ phase: 'Phase 2' }, {}, { ...item, phase: 'Phase 2' })).toBe(true);
    expect(matches({ stickerNames: ['crown', 'titan'] })).toBe(true);
    expect(
      matches({
        seeds: [
          [1, 25],
          [661, 661],
        ],
      }),
    ).toBe(true);
    expect(matches({ seeds: [[1, 25]] })).toBe(false);
    expect(matches({ hasCharm: true })).toBe(false);
    // The market standing is not known from the item alone: such a rule is decided by the store.
    expect(compileRule(rule({ filters: catalogFiltersSchema.parse({ discountMin: 10 }) })).needsStanding).toBe(true);
  });

  it('auto-buys only within both caps, the budget and the floor, with a maximum price and a recipient, and not while paused or stopped', () => {
    let settings: AppSettings = { ...DEFAULT_SETTINGS };
    let balance: Balance | null = { total_available: 10_000 } as Balance;
    const guard = new AutoBuyGuard(
      () => settings,
      () => balance,
      () => Promise.reject(new Error('offline')),
      () => {},
    );
    // The store held 4 000 bought by rule "spent" when the account opened.
    guard.open({
      day: utcDayStart(Date.now()),
      boughtToday: new Map(),
      boughtTotal: new Map([['spent', 4000]]),
      unresolved: [],
    });
    const on = (patch: Partial<AlertRule> = {}) =>
      rule({
        maxPrice: 2000,
        autoBuy: { enabled: true, recipientId: 'rc1', spendCap: 5000, dailyCap: 3000, spent: 0 },
        ...patch,
      });
    expect(guard.verdict(on(), 1500, false)).toEqual({ buy: true });
    expect(guard.verdict(on({ maxPrice: null }), 1500, false)).toMatchObject({
      buy: false,
      reason: 'no maximum price per item: auto-buy needs one',
    });
    expect(guard.verdict(on({ id: 'spent' }), 1500, false)).toMatchObject({
      buy: false,
      reason: 'the rule would exceed its spend cap',
    });
    expect(guard.verdict(on(), 1500, true)).toMatchObject({ buy: false, reason: 'alerts are paused' });
    expect(
      guard.verdict(
        rule({ maxPrice: 9, autoBuy: { enabled: true, recipientId: null, spendCap: 9, dailyCap: 9, spent: 0 } }),
        1,
        false,
      ),
    ).toMatchObject({ buy: false });
    guard.reserve({ externalId: 'auto-1', ruleId: 'r1', itemId: 1, price: 1500, at: new Date().toISOString() });
    expect(guard.verdict(on(), 1600, false)).toMatchObject({ buy: false, reason: "the rule would exceed today's cap" });
    settings = { ...settings, autoBuyDailyBudget: 2000 };
    expect(guard.verdict(on({ id: 'r2' }), 600, false)).toMatchObject({
      buy: false,
      reason: 'the daily auto-buy budget of $20.00 would be exceeded',
    });
    settings = { ...settings, autoBuyDailyBudget: null, autoBuyBalanceFloor: 8000 };
    // 10 000 available, 1 500 in flight: 8 500 before this buy.
    expect(guard.verdict(on({ id: 'r2' }), 500, false)).toEqual({ buy: true });
    expect(guard.verdict(on({ id: 'r2' }), 600, false)).toMatchObject({
      buy: false,
      reason: 'it would leave less than the balance floor of $80.00 available',
    });
    balance = null;
    expect(guard.verdict(on({ id: 'r2' }), 1, false)).toMatchObject({
      buy: false,
      reason: 'the balance is not known yet, so the balance floor cannot be checked',
    });
    settings = { ...settings, autoBuyStopped: true };
    expect(guard.verdict(on({ id: 'r2' }), 1, false)).toMatchObject({
      buy: false,
      reason: 'auto-buy is stopped (stop all)',
    });
  });

  it('counts an auto-buy in flight, unknown or bought, and the unresolved ones the store held, until it is known not to have bought', () => {
    const budget = { buy: false, reason: 'the daily auto-buy budget of $10.00 would be exceeded' };
    const guard = new AutoBuyGuard(
      () => ({ ...DEFAULT_SETTINGS, autoBuyDailyBudget: 1000 }),
      () => ({ total_available: 1_000_000 }) as Balance,
      () => Promise.reject(new Error('offline')),
      () => {},
    );
    const r = rule({
      maxPrice: 1000,
      autoBuy: { enabled: true, recipientId: 'rc1', spendCap: 10_000, dailyCap: 10_000, spent: 0 },
    });
    const day = utcDayStart(Date.now());
    // The store held 200 bought today and 300 whose outcome the app never learnt (in flight when it was killed).
    const now = new Date().toISOString();
    guard.open({
      day,
      boughtToday: new Map([[r.id, 200]]),
      boughtTotal: new Map([[r.id, 200]]),
      unresolved: [{ externalId: 'auto-killed', ruleId: r.id, itemId: 1, price: 300, at: now }],
    });
    expect(guard.today.spentTotal).toBe(500);
    expect(guard.holds('auto-killed')).toBe(true);
    const sent = guard.reserve({ externalId: 'auto-lost', ruleId: r.id, itemId: 2, price: 400, at: now });
    expect(guard.verdict(r, 101, false)).toEqual(budget);
    // Asked again right before its request is written, a buy leaves itself out of the sums.
    expect(guard.verdict(r, 400, false, sent)).toEqual({ buy: true });
    // Its answer was lost: still counted, and looked up with the other one.
    guard.settle(sent, 'unknown');
    expect(guard.today.spentTotal).toBe(900);
    const [killed, lost] = guard.unresolved();
    expect([killed?.externalId, lost?.externalId]).toEqual(['auto-killed', 'auto-lost']);
    if (!killed || !lost) throw new Error('unreachable');
    guard.settle(killed, 'bought');
    guard.settle(lost, 'not_bought');
    expect(guard.unresolved()).toEqual([]);
    expect([guard.holds('auto-killed'), guard.holds('auto-lost')]).toEqual([false, false]);
    expect(guard.today.spentTotal).toBe(500);
    expect(guard.verdict(r, 500, false)).toEqual({ buy: true });
    expect(guard.verdict(r, 501, false)).toEqual(budget);
    // Another account opens: nothing of this one counts, and a late answer of this one changes nothing.
    const late = guard.reserve({ externalId: 'auto-late', ruleId: r.id, itemId: 3, price: 100, at: now });
    guard.reset();
    guard.open({ day, boughtToday: new Map(), boughtTotal: new Map(), unresolved: [] });
    guard.settle(late, 'bought');
    expect(guard.today.spentTotal).toBe(0);
  });

  it('computes the UTC day start', () => {
    expect(utcDayStart(Date.UTC(2026, 10, 21, 23, 59))).toBe(Date.UTC(2026, 10, 21));
  });
});
