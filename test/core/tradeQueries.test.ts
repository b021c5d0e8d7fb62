// Trades and ledger pages against a plain model: every filter the Trades and Wallet screens offer (statuses, active
// only, dates, order id / trade id prefixes, recipient, failed webhooks), alone and combined, at the first, a
// middle and the last page, past the end and across day boundaries; the roll-ups the pages read (kept by triggers)
// through status changes and a reopen; the id prefix's cap; bad input.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalStore } from '../../src/main/core/store';
import { PREFIX_COUNT_CAP, PREFIX_SORT_LIMIT } from '../../src/main/core/store/worker/recordsReader';
import {
  ACTIVE_TRADE_STATUSES,
  buildTradeUrl,
  type BalanceTransaction,
  type Trade,
  type TradeStatus,
} from '../../src/shared/api';
import type { LedgerQuery, TradeQuery } from '../../src/shared/ipc/contract';
import { trade } from '../renderer/fixtures';

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const DAY = 86_400_000;
const START = Date.parse('2026-03-01T00:00:00.000Z');
const STATUSES: TradeStatus[] = [
  'PENDING',
  'SENT',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REJECTED',
  'REVERSED',
];
/** Ids with the characters a prefix must take literally or fold: case, %, _, \, non-ASCII. */
const ID_HEADS = ['ab', 'AB', 'Ab', 'a%', 'a_', 'a\\', 'zz', 'é1', 'x'];

function makeTrades(count: number, seed: number): Trade[] {
  const rnd = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)] as T;
  return Array.from({ length: count }, (_, i) => {
    // Several days, bunched so that days, midnights and equal instants all occur.
    const at = new Date(
      START + Math.floor(rnd() * 9) * DAY + Math.floor(rnd() * 4) * 6 * 3_600_000 + Math.floor(rnd() * 3),
    ).toISOString();
    const partner = 1000 + Math.floor(rnd() * 7);
    return trade(`${pick(ID_HEADS)}${i.toString(36).padStart(4, '0')}`, pick(STATUSES), {
      externalId: rnd() < 0.1 ? null : `${pick(ID_HEADS)}-${Math.floor(rnd() * 50)}`,
      tradeUrl: rnd() < 0.05 ? 'not a trade url' : buildTradeUrl(partner, 'AbCdEfGh'),
      webhookStatus: rnd() < 0.2 ? 'failed' : rnd() < 0.5 ? 'sent' : null,
      createdAt: at,
      updatedAt: at,
    });
  });
}

/** What a trade query answers, from the trades as plain objects. */
function modelTrades(all: readonly Trade[], q: TradeQuery): { ids: string[]; total: number } {
  const starts = (id: string | null, prefix: string | undefined) =>
    !prefix ||
    (id !== null &&
      id.slice(0, prefix.length).replace(/[A-Z]/g, (c) => c.toLowerCase()) ===
        prefix.replace(/[A-Z]/g, (c) => c.toLowerCase()));
  const partnerOf = (url: string) =>
    /^https:\/\/steamcommunity\.com\/tradeoffer\/new\/\?partner=(\d+)&token=/.exec(url)?.[1];
  const matches = all
    .filter(
      (t) =>
        (!q.statuses?.length || q.statuses.includes(t.status)) &&
        (!q.activeOnly || (ACTIVE_TRADE_STATUSES as readonly string[]).includes(t.status)) &&
        (!q.from || t.createdAt >= q.from) &&
        (!q.to || t.createdAt <= q.to) &&
        starts(t.externalId, q.externalId) &&
        starts(t.tradeId, q.tradeId) &&
        (!q.partner || partnerOf(t.tradeUrl) === q.partner) &&
        (!q.webhookFailed || t.webhookStatus === 'failed'),
    )
    .sort((a, b) =>
      a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.tradeId < b.tradeId ? 1 : -1,
    );
  const offset = q.offset ?? 0;
  return { ids: matches.slice(offset, offset + (q.limit ?? 50)).map((t) => t.tradeId), total: matches.length };
}

const at = (day: number, hour = 0) => new Date(START + day * DAY + hour * 3_600_000).toISOString();

const TRADE_FILTERS: TradeQuery[] = [
  {},
  { statuses: ['COMPLETED'] },
  { statuses: ['EXPIRED', 'REJECTED', 'REVERSED'] },
  { activeOnly: true },
  { activeOnly: true, statuses: ['SENT', 'COMPLETED'] },
  { activeOnly: true, statuses: ['COMPLETED'] },
  { from: at(2, 6), to: at(5, 12) },
  { from: at(3) },
  { to: new Date(START + 4 * DAY - 1).toISOString() },
  { from: at(4), to: at(4) },
  { from: at(6), to: at(1) },
  { statuses: ['COMPLETED', 'FAILED'], from: at(1, 12), to: at(7, 18) },
  { tradeId: 'ab' },
  { tradeId: 'aB0' },
  { tradeId: 'a%' },
  { tradeId: 'a_' },
  { tradeId: 'a\\' },
  { tradeId: '%' },
  { tradeId: '_' },
  { tradeId: 'É' },
  { tradeId: 'é1' },
  { tradeId: 'zz00000000000000' },
  { externalId: 'AB-' },
  { externalId: 'a%-1' },
  { externalId: 'x-4' },
  { partner: '1003' },
  { partner: '1003', statuses: ['COMPLETED'], from: at(2) },
  { partner: '999' },
  { webhookFailed: true },
  { webhookFailed: true, activeOnly: true, to: at(6) },
  { tradeId: 'ab', partner: '1001', webhookFailed: true },
];

describe('trades and ledger pages answer as a plain model does', () => {
  let dir: string;
  let store: LocalStore;
  let trades: Trade[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trade-queries-'));
    store = await LocalStore.open({ file: join(dir, 'm.sqlite') });
    trades = makeTrades(700, 34);
    // Written in three batches, out of time order; then a third of them move on (the roll-up's update path).
    for (let i = 0; i < 3; i++)
      await store.upsertTrades(
        trades.filter((_, j) => j % 3 === i),
        'poll',
      );
    const rnd = random(35);
    const moved = trades.map((t) => {
      if (rnd() > 0.33 || (t.status !== 'PENDING' && t.status !== 'SENT')) return t;
      return { ...t, status: rnd() < 0.5 ? ('COMPLETED' as const) : ('EXPIRED' as const) };
    });
    await store.upsertTrades(moved, 'poll');
    trades = moved;
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const check = async (q: TradeQuery) => {
    const page = await store.queryTrades(q);
    const model = modelTrades(trades, q);
    expect({ q, total: page.total, ids: page.rows.map((t) => t.tradeId) }).toEqual({ q, ...model });
    return model.total;
  };

  it('every filter, at the first, a middle and the last page, past the end, with page sizes that cut days', async () => {
    for (const filter of TRADE_FILTERS) {
      for (const limit of [1, 7, 50]) {
        const total = await check({ ...filter, limit });
        for (const offset of new Set([
          0,
          Math.floor(total / 2),
          Math.max(0, total - limit),
          total - 1,
          total,
          total + 3,
        ]))
          if (offset >= 0) await check({ ...filter, offset, limit });
      }
    }
  });

  it('every page of the unfiltered list, in turn, is the model’s (each day boundary crossed)', async () => {
    for (let offset = 0; offset < trades.length + 20; offset += 20) await check({ offset, limit: 20 });
  });

  it('the same answers after a reopen, and after a status update of one trade (feed/webhook path)', async () => {
    await store.close();
    store = await LocalStore.open({ file: join(dir, 'm.sqlite') });
    const pending = trades.find((t) => t.status === 'PENDING') as Trade;
    const result = await store.applyTradeUpdate(
      {
        tradeId: pending.tradeId,
        externalId: null,
        status: 'COMPLETED',
        offerId: null,
        failReason: null,
        errorCode: null,
      },
      'feed',
    );
    expect(result).toMatchObject({ unknown: false, changed: true });
    trades = trades.map((t) => (t.tradeId === pending.tradeId ? { ...t, status: 'COMPLETED' } : t));
    for (const filter of [{}, { activeOnly: true }, { statuses: ['COMPLETED' as const] }])
      for (const offset of [0, 10, 200]) await check({ ...filter, offset, limit: 25 });
  });

  it('bad input gets a clear error and changes nothing', async () => {
    await expect(store.queryTrades({ partner: 'abc' })).rejects.toThrow(/number after partner= in their trade URL/);
    await expect(store.queryTrades({ partner: '0' })).rejects.toThrow(/number after partner=/);
    await expect(store.queryTrades({ partner: '4294967296' })).rejects.toThrow(/at most 4294967295/);
    await expect(store.queryTrades({ tradeId: 'a'.repeat(129) })).rejects.toThrow(/trade id filter is at most 128/);
    await expect(store.queryTrades({ externalId: 'a'.repeat(129) })).rejects.toThrow(/order id filter is at most 128/);
    await expect(store.queryLedger({ tradeId: 'a'.repeat(129) })).rejects.toThrow(/trade id filter is at most 128/);
    expect((await store.queryTrades({ partner: '4294967295' })).total).toBe(0);
    expect((await store.queryTrades({})).total).toBe(trades.length);
  });
});

describe('an id prefix many ids start with', () => {
  let dir: string;
  let store: LocalStore;
  let trades: Trade[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trade-prefix-cap-'));
    store = await LocalStore.open({ file: join(dir, 'm.sqlite') });
    // "wd_": more than PREFIX_SORT_LIMIT (read in page order); "mid-": past the cap, below it (sorted); "other-": few.
    trades = Array.from({ length: PREFIX_SORT_LIMIT + 6000 }, (_, i) => {
      const createdAt = new Date(START + Math.floor(i / 3) * 61_000).toISOString();
      const externalId = i % 1000 === 1 ? `other-${i}` : i % 8 === 0 ? `mid-${i}` : `wd_${i}`;
      return trade(`t${(i * 7919) % 100_003}-${i}`, 'COMPLETED', { externalId, createdAt, updatedAt: createdAt });
    });
    for (let i = 0; i < trades.length; i += 10_000) await store.upsertTrades(trades.slice(i, i + 10_000), 'poll');
  }, 180_000);

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a capped total ("2,000+") and pages the newest matches down to the cap, whichever way it reads them', async () => {
    for (const prefix of ['WD_', 'mid-']) {
      const model = modelTrades(trades, { externalId: prefix, limit: trades.length });
      expect(model.total).toBeGreaterThan(PREFIX_COUNT_CAP);
      expect(model.total > PREFIX_SORT_LIMIT).toBe(prefix === 'WD_');
      const first = await store.queryTrades({ externalId: prefix, limit: 50 });
      expect(first).toMatchObject({ total: PREFIX_COUNT_CAP, totalCapped: true });
      expect(first.rows.map((t) => t.tradeId)).toEqual(model.ids.slice(0, 50));
      const middle = await store.queryTrades({ externalId: prefix, offset: PREFIX_COUNT_CAP / 2, limit: 50 });
      expect(middle.rows.map((t) => t.tradeId)).toEqual(
        model.ids.slice(PREFIX_COUNT_CAP / 2, PREFIX_COUNT_CAP / 2 + 50),
      );
      const last = await store.queryTrades({ externalId: prefix, offset: PREFIX_COUNT_CAP - 30, limit: 50 });
      expect(last.rows.map((t) => t.tradeId)).toEqual(model.ids.slice(PREFIX_COUNT_CAP - 30, PREFIX_COUNT_CAP));
      expect((await store.queryTrades({ externalId: prefix, offset: PREFIX_COUNT_CAP, limit: 50 })).rows).toEqual([]);
    }
    // Below the cap the total is exact and not marked.
    const fewer = await store.queryTrades({ externalId: 'other-', offset: 20, limit: 5 });
    expect(fewer.totalCapped).toBeUndefined();
    const model = modelTrades(trades, { externalId: 'other-', offset: 20, limit: 5 });
    expect({ total: fewer.total, ids: fewer.rows.map((t) => t.tradeId) }).toEqual(model);
  });
});

// ---- the ledger and its balance chart

function makeLedger(count: number, seed: number, spanHours: number): BalanceTransaction[] {
  const rnd = random(seed);
  const types = ['FREEZE', 'BUY COMPLETED', 'BUY CANCELLED', 'TRADE ROLLBACK', 'ADMIN TOP UP'] as const;
  let balance = 1_000_000;
  return Array.from({ length: count }, (_, i) => {
    const amount = Math.floor(rnd() * 2000) - 1000;
    const entry: BalanceTransaction = {
      id: i + 1,
      type: types[Math.floor(rnd() * types.length)] as BalanceTransaction['type'],
      amount,
      balanceBefore: balance,
      balanceAfter: balance + amount,
      tradeId: rnd() < 0.9 ? `${['ab', 'AB', 'c%'][i % 3]}${Math.floor(rnd() * 300)}` : null,
      note: null,
      // Equal instants and entries whose ids run against their times both occur.
      createdAt: new Date(
        START + Math.floor(rnd() * spanHours) * 3_600_000 + Math.floor(rnd() * 4) * 1000,
      ).toISOString(),
      market_hash_name: null,
      phase: null,
    };
    balance += amount;
    return entry;
  });
}

const byTime = (a: BalanceTransaction, b: BalanceTransaction) =>
  a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? -1 : 1) : a.id - b.id;

function ledgerMatches(all: readonly BalanceTransaction[], q: LedgerQuery): BalanceTransaction[] {
  return all.filter(
    (e) =>
      (!q.types?.length || q.types.includes(e.type)) &&
      (!q.tradeId || (e.tradeId ?? '').toLowerCase().startsWith(q.tradeId.toLowerCase())) &&
      (!q.from || e.createdAt >= q.from) &&
      (!q.to || e.createdAt <= q.to),
  );
}

const MAX_POINTS = 2000;
function thinModel<T>(points: T[]): T[] {
  if (points.length <= MAX_POINTS) return points;
  const step = points.length / MAX_POINTS;
  return Array.from(
    { length: MAX_POINTS },
    (_, b) => points[Math.min(points.length - 1, Math.ceil((b + 1) * step) - 1)] as T,
  );
}

/** The chart from the full scan: every entry up to 2,000 matches; more: the last entry of each UTC hour, thinned. */
function seriesModel(all: readonly BalanceTransaction[], q: LedgerQuery): { at: string; balance: number }[] {
  const points = ledgerMatches(all, q)
    .sort(byTime)
    .map((e) => ({ at: e.createdAt, balance: e.balanceAfter }));
  if (points.length <= MAX_POINTS || q.tradeId) return thinModel(points);
  const hourly = new Map<string, { at: string; balance: number }>();
  for (const p of points) hourly.set(p.at.slice(0, 13), p);
  return thinModel([...hourly.values()]);
}

describe('the ledger’s pages and the balance chart from its roll-up', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-rollup-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [seed, count, spanHours] of [
    [1, 900, 300],
    [2, 6000, 500],
    [3, 7000, 2600],
    [4, 5000, 4],
  ] as const) {
    it(`seed ${seed}: ${count} entries over ${spanHours} h, written in batches out of order, again after a reopen`, async () => {
      const file = join(dir, `l${seed}.sqlite`);
      const entries = makeLedger(count, seed, spanHours);
      let store = await LocalStore.open({ file });
      try {
        const rnd = random(seed + 100);
        const shuffled = [...entries].sort(() => rnd() - 0.5);
        for (let i = 0; i < shuffled.length; i += 1500) await store.insertLedger(shuffled.slice(i, i + 1500));
        await store.insertLedger(entries.slice(0, 50)); // ignored: stored once by id
        const queries: LedgerQuery[] = [
          {},
          { types: ['FREEZE'] },
          { types: ['BUY COMPLETED', 'TRADE ROLLBACK'] },
          { tradeId: 'ab1' },
          { tradeId: 'C%' },
          { from: hour(3) + '', to: hour(Math.floor(spanHours / 2)) },
          {
            from: new Date(START + 3_600_000 + 1500).toISOString(),
            to: new Date(START + (spanHours - 2) * 3_600_000 + 2000).toISOString(),
          },
          { from: hour(1), to: new Date(START + 3_600_000 + 2500).toISOString() },
          { types: ['FREEZE', 'ADMIN TOP UP'], from: hour(2) },
        ];
        for (const round of ['written', 'reopened']) {
          for (const q of queries) {
            expect({ round, q, series: await store.balanceSeries(q) }).toEqual({
              round,
              q,
              series: seriesModel(entries, q),
            });
            const all = ledgerMatches(entries, q).sort((a, b) => -byTime(a, b));
            // A trade id prefix that more than the cap match pages that far, its total capped.
            const capped = q.tradeId !== undefined && all.length > PREFIX_COUNT_CAP;
            const matches = capped ? all.slice(0, PREFIX_COUNT_CAP) : all;
            for (const offset of new Set([
              0,
              Math.floor(matches.length / 2),
              Math.max(0, matches.length - 25),
              matches.length,
            ])) {
              const page = await store.queryLedger({ ...q, offset, limit: 25 });
              expect({
                q,
                offset,
                total: page.total,
                capped: page.totalCapped === true,
                ids: page.rows.map((e) => e.id),
              }).toEqual({
                q,
                offset,
                total: matches.length,
                capped,
                ids: matches.slice(offset, offset + 25).map((e) => e.id),
              });
            }
          }
          await store.close();
          store = await LocalStore.open({ file });
        }
      } finally {
        await store.close();
      }
    }, 120_000);
  }
});

describe('an account file from schema 22 (before the recipient column and the roll-ups)', () => {
  it('keeps every trade and entry, fills the recipients and roll-ups, and answers as the model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trade-queries-v22-'));
    const file = join(dir, 'old.sqlite');
    try {
      const trades = makeTrades(300, 22);
      const entries = makeLedger(3000, 22, 400);
      const store = await LocalStore.open({ file });
      await store.upsertTrades(trades, 'poll');
      await store.insertLedger(entries);
      await store.close();
      // What a schema-22 build left: no partner column, none of 23's indexes, triggers or roll-up tables.
      const db = new Database(file);
      for (const { type, name } of db
        .prepare<[], { type: string; name: string }>(
          "SELECT type, name FROM sqlite_master WHERE name IN ('trades_order', 'trades_external_nocase', 'trades_id_nocase', 'trades_partner', 'trades_webhook_failed', 'ledger_trade_nocase', 'ledger_type') OR type = 'trigger' OR name IN ('trade_days', 'ledger_days', 'ledger_hours')",
        )
        .all())
        db.exec(`DROP ${type.toUpperCase()} ${name}`);
      db.exec('ALTER TABLE trades DROP COLUMN partner; CREATE INDEX trades_created ON trades(createdAt, tradeId)');
      db.pragma('user_version = 22');
      db.close();

      const reopened = await LocalStore.open({ file });
      try {
        expect(reopened.migratedFrom).toBe(22);
        for (const q of [
          {},
          { partner: '1002' },
          { activeOnly: true },
          { statuses: ['COMPLETED' as const], from: at(3) },
        ])
          for (const offset of [0, 40, 150]) {
            const page = await reopened.queryTrades({ ...q, offset, limit: 30 });
            expect({ total: page.total, ids: page.rows.map((t) => t.tradeId) }).toEqual(
              modelTrades(trades, { ...q, offset, limit: 30 }),
            );
          }
        for (const q of [{}, { types: ['FREEZE' as const] }, { from: hour(5), to: hour(300) }])
          expect(await reopened.balanceSeries(q)).toEqual(seriesModel(entries, q));
        expect((await reopened.queryLedger({ limit: 1 })).total).toBe(entries.length);
        // Written after the upgrade: kept by the triggers.
        const later = trade('later-1', 'PENDING', {
          tradeUrl: buildTradeUrl(1002, 'AbCdEfGh'),
          createdAt: at(9),
          updatedAt: at(9),
        });
        await reopened.upsertTrades([later], 'poll');
        expect((await reopened.queryTrades({ partner: '1002', limit: 1 })).rows[0]?.tradeId).toBe('later-1');
        expect((await reopened.queryTrades({ limit: 1 })).total).toBe(trades.length + 1);
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

const hour = (h: number) => new Date(START + h * 3_600_000).toISOString();
