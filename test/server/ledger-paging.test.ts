/**
 * BalanceHistory pages read by key after the page before (domain/pageSeeks.ts) answer exactly what the plain
 * OFFSET query answers on the same ledger: random appends (buys, refunds, admin entries, some at the same instant)
 * interleaved with page reads of random filters, in order, out of order and past the end. The model is the plain
 * query, run on the sandbox's own SQLite file through a second connection.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BalanceHistoryPage, BuyResult, Item } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi, tradeUrlFor } from '../support/sandboxHttp';

const dir = mkdtempSync(join(tmpdir(), 'ledger-paging-'));

/** Deterministic random numbers (mulberry32), so a failure replays. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Question {
  type?: string;
  tradeId?: string;
  from?: string;
  to?: string;
  limit: number;
}

describe('BalanceHistory paging by key', () => {
  let sb: Sandbox;
  let model: Database.Database;
  let admin: ReturnType<typeof adminApi>;
  let alice: MerchantCredentials;
  let api: ReturnType<typeof merchantApi>;

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 36, dbFile: join(dir, 'sandbox.db'), rateLimitScale: 100 });
    admin = adminApi(sb);
    alice = await admin.createMerchant({ balance: 100_000_000 });
    api = merchantApi(sb, alice);
    // Bob's entries share the table and must never show in Alice's pages.
    await admin.createMerchant({ balance: 5_000 });
    model = new Database(join(dir, 'sandbox.db'), { readonly: true });
  });
  afterAll(async () => {
    model?.close();
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The plain query on the same rows: what every page must equal. */
  function expected(merchantId: string, q: Question, page: number): { ids: number[]; total: number } {
    const params = {
      merchantId,
      type: q.type ?? null,
      tradeId: q.tradeId ?? null,
      from: q.from === undefined ? null : Date.parse(q.from),
      to: q.to === undefined ? null : Date.parse(q.to),
    };
    // An absent filter is NULL and matches every row.
    const clause = `merchant_id = @merchantId AND (@type IS NULL OR type = @type)
      AND (@tradeId IS NULL OR trade_id = @tradeId)
      AND (@from IS NULL OR created_at >= @from) AND (@to IS NULL OR created_at <= @to)`;
    const total = model
      .prepare<typeof params, number>(`SELECT count(*) FROM ledger WHERE ${clause}`)
      .pluck()
      .get(params) as number;
    const ids = model
      .prepare<typeof params & { limit: number; offset: number }, number>(
        `SELECT id FROM ledger WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
      )
      .pluck()
      .all({ ...params, limit: q.limit, offset: (page - 1) * q.limit });
    return { ids, total };
  }

  async function check(
    merchant: ReturnType<typeof merchantApi>,
    merchantId: string,
    q: Question,
    page: number,
  ): Promise<void> {
    const search = new URLSearchParams({ limit: String(q.limit), page: String(page) });
    for (const key of ['type', 'tradeId', 'from', 'to'] as const) {
      const value = q[key];
      if (value !== undefined) search.set(key, value);
    }
    const answer = await merchant.get<BalanceHistoryPage>(`/Wallet/BalanceHistory?${search}`);
    expect(answer.status).toBe(200);
    const want = expected(merchantId, q, page);
    const got = { ids: answer.body.transactions.map((t) => t.id), total: answer.body.total };
    expect(got, `${search}`).toEqual(want);
    expect(answer.body.page).toBe(page);
    expect(answer.body.limit).toBe(q.limit);
  }

  it('answers every page as the OFFSET query does, across appends', async () => {
    const random = rng(36);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const tradeIds: string[] = [];
    const pending: string[] = [];
    const instants: string[] = [];

    async function append(): Promise<void> {
      const roll = random();
      if (roll < 0.45) {
        const [item] = (await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 700 }] })).body.items;
        const bought = await api.post<BuyResult>('/Items/Buy', {
          itemId: item?.itemId,
          assetId: item?.assetId,
          price: 700,
          // A partner per trade: refused trades count against their partner.
          tradeUrl: tradeUrlFor(20_000_000 + tradeIds.length),
        });
        expect(bought.status).toBe(200);
        tradeIds.push(bought.body.tradeId);
        pending.push(bought.body.tradeId);
      } else if (roll < 0.6 && pending.length > 0) {
        await admin.transition(pending.splice(Math.floor(random() * pending.length), 1)[0] as string, {
          status: 'FAILED',
        });
      } else {
        const type = pick(['ADMIN TOP UP', 'ADMIN DEDUCT', 'CRYPTO DEPOSIT'] as const);
        const posted = await admin.post(`/admin/merchants/${alice.merchantId}/balance`, { type, amount: 100 });
        expect(posted.status).toBe(201);
      }
      // Often several entries at one instant: the order then rests on the id.
      if (random() < 0.3) instants.push((await admin.advance(Math.floor(random() * 3600) + 1)).now);
    }

    function question(): Question {
      const q: Question = { limit: pick([1, 2, 3, 5, 8]) };
      if (random() < 0.25) q.type = pick(['FREEZE', 'BUY CANCELLED', 'ADMIN TOP UP', 'ADMIN DEDUCT', 'CRYPTO DEPOSIT']);
      if (random() < 0.1 && tradeIds.length > 0) q.tradeId = pick(tradeIds);
      if (random() < 0.25 && instants.length > 0) q.from = pick(instants);
      if (random() < 0.25 && instants.length > 0) {
        const to = pick(instants);
        if (q.from === undefined || q.from <= to) q.to = to;
      }
      return q;
    }

    for (let i = 0; i < 12; i++) await append();
    let keyPages = 0;
    for (let round = 0; round < 60; round++) {
      const appends = Math.floor(random() * 3);
      for (let i = 0; i < appends; i++) await append();
      const q = question();
      const pages = Math.max(1, Math.ceil(expected(alice.merchantId, q, 1).total / q.limit));
      // In order through every page and one past the end; then a few out of order, some twice.
      for (let page = 1; page <= pages + 1; page++) await check(api, alice.merchantId, q, page);
      keyPages += pages;
      for (let i = 0; i < 3; i++) await check(api, alice.merchantId, q, 1 + Math.floor(random() * (pages + 2)));
      // An append between two pages of the same question: the next page is the new state's.
      if (random() < 0.5) {
        await append();
        await check(api, alice.merchantId, q, Math.min(2, pages));
        await check(api, alice.merchantId, q, Math.min(3, pages + 1));
      }
    }
    expect(keyPages).toBeGreaterThan(200);
  }, 120_000);

  it('answers as the OFFSET query after a seeded history rewrote the ledger, ties included', async () => {
    const carol = await admin.createMerchant({ balance: 10_000 });
    const carolApi = merchantApi(sb, carol);
    for (let i = 0; i < 6; i++) {
      const posted = await admin.post(`/admin/merchants/${carol.merchantId}/balance`, {
        type: 'CRYPTO DEPOSIT',
        amount: 100 + i,
      });
      expect(posted.status).toBe(201);
    }
    const questions: Question[] = [{ limit: 2 }, { limit: 1 }, { limit: 3, type: 'CRYPTO DEPOSIT' }];
    // Every page read once, so each question's keys and total are remembered before the seed.
    for (const q of questions) for (let page = 1; page <= 8; page++) await check(carolApi, carol.merchantId, q, page);
    const seeded = await admin.post<{ ledgerEntries: number }>(`/admin/merchants/${carol.merchantId}/history`, {
      days: 1,
      tradesPerDay: 40,
      recipients: 40,
      seed: 3,
    });
    expect(seeded.status).toBe(201);
    // The seed moved the entries written before it to one instant, before the history: their order is by id.
    const ties = model
      .prepare<[string], number>(
        'SELECT max(n) FROM (SELECT count(*) AS n FROM ledger WHERE merchant_id = ? GROUP BY created_at)',
      )
      .pluck()
      .get(carol.merchantId) as number;
    expect(ties).toBeGreaterThanOrEqual(7);
    for (const q of [...questions, { limit: 4 }, { limit: 5, type: 'BUY CANCELLED' }]) {
      const pages = Math.ceil(expected(carol.merchantId, q, 1).total / q.limit);
      if (q.type === undefined) expect(pages).toBeGreaterThan(10);
      for (let page = 1; page <= pages + 1; page++) await check(carolApi, carol.merchantId, q, page);
      for (let page = pages; page >= 1; page -= 2) await check(carolApi, carol.merchantId, q, page);
    }
  }, 120_000);

  // Last: a reset removes every merchant.
  it('forgets every page after a reset, also of a merchant id that comes back', async () => {
    const dave = await admin.createMerchant({ merchantId: 'dave', balance: 1_000 });
    for (let i = 0; i < 4; i++)
      await admin.post('/admin/merchants/dave/balance', { type: 'ADMIN TOP UP', amount: 10 + i });
    const q: Question = { limit: 1 };
    for (let page = 1; page <= 6; page++) await check(merchantApi(sb, dave), 'dave', q, page);
    expect((await admin.post('/admin/reset')).status).toBe(200);
    // Back with no entry at all (no starting balance): nothing it read before the reset may answer.
    const again = await admin.createMerchant({ merchantId: 'dave' });
    expect(expected('dave', q, 1).total).toBe(0);
    for (let page = 1; page <= 3; page++) await check(merchantApi(sb, again), 'dave', q, page);
  });
});
