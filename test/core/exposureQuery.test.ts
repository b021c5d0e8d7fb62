/**
 * Operations → Reversals' reads on a real SQLite file: the recipients who reversed (as the buyer) come most such
 * reversals first, the view asks for the first ones and gets their total (at a year thousands of recipients: rows the
 * bridge should not carry), and the rows equal a plain count over the trades; a seller's rollback makes no reverser.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareSchema } from '../../src/main/core/store/schema';
import { type Prepare, statementCache } from '../../src/main/core/store/worker/open';
import { exposureRows } from '../../src/main/core/store/worker/exposureQuery';

describe('reversal exposure reads on a real SQLite file', () => {
  let dir: string;
  let db: Database.Database;
  /**
   * Reversals by the buyer by partner: partner 2000 + i reversed (i % 4) + 1 times and had one delivered trade, and
   * every third one a reversal by the seller too; partners 3000 + i had only a seller's (or an unknown) reversal.
   */
  const reversals = new Map<number, number>();
  const sellerReversals = new Map<number, number>();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'exposure-'));
    const file = join(dir, 'store.db');
    db = new Database(file);
    prepareSchema(db, file);
    const insert = db.prepare(
      `INSERT INTO trades (tradeId, status, status_rank, price, itemId, assetId, tradeUrl, market_hash_name,
         createdAt, updatedAt, stage, updated_at, partner, failReason)
         VALUES (?, ?, 2, 100, 1, '1', 'https://x.invalid', 'AK', ?, ?, 2, 0, ?, ?)`,
    );
    reversals.clear();
    sellerReversals.clear();
    let n = 0;
    for (let i = 0; i < 150; i++) {
      const partner = 2000 + i;
      const at = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
      insert.run(`d-${i}`, 'COMPLETED', at, at, partner, null);
      for (let r = 0; r <= i % 4; r++)
        insert.run(`r-${n++}`, 'REVERSED', at, at, partner, 'Buyer reversed trade on Steam');
      reversals.set(partner, (i % 4) + 1);
      if (i % 3 === 0) insert.run(`r-${n++}`, 'REVERSED', at, at, partner, 'Seller reversed trade on Steam');
      sellerReversals.set(partner, i % 3 === 0 ? 1 : 0);
    }
    for (let i = 0; i < 20; i++) {
      const at = new Date(Date.UTC(2026, 10, 2) + i * 60_000).toISOString();
      insert.run(`s-${i}`, 'REVERSED', at, at, 3000 + i, i % 2 === 0 ? 'Seller reversed trade on Steam' : null);
    }
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the first recipients who reversed, most first, with how many there are in all', () => {
    const rows = exposureRows(statementCache(db), {
      now: '2026-11-29T00:00:00.000Z',
      reversedOffset: 0,
      reversedLimit: 10,
      reversersLimit: 100,
    });
    const expected = [...reversals]
      .sort(([pa, a], [pb, b]) => b - a || pa - pb)
      .slice(0, 100)
      .map(([partner, buyerReversed]) => {
        const reversed = buyerReversed + (sellerReversals.get(partner) ?? 0);
        return { partner, buyerReversed, reversed, delivered: 1, trades: reversed + 1 };
      });
    expect(rows.reversers).toEqual(expected);
    expect(rows.reversersTotal).toBe(150);
    const sum = (counts: Map<number, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
    expect(rows.reversedTotal).toBe(sum(reversals) + sum(sellerReversals) + 20);
    expect(rows.reversed).toHaveLength(10);
  });

  it('releases the reversible trades by UTC day of endProtection after now, as a plain grouping does', () => {
    const insert = db.prepare(
      `INSERT INTO trades (tradeId, status, status_rank, price, itemId, assetId, tradeUrl, market_hash_name,
         createdAt, updatedAt, stage, endProtection, updated_at, partner) VALUES (?, ?, 2, ?, 1, '1', 'https://x.invalid', 'AK', ?, ?, ?, ?, 0, 7)`,
    );
    const now = '2026-11-29T10:15:00.000Z';
    const day = (d: number, time: string) =>
      `2026-${d > 30 ? '12' : '11'}-${String(d > 30 ? d - 30 : d).padStart(2, '0')}T${time}Z`;
    // Exact midnights, the instant `now` itself, past ends, stage 2, other statuses and no end at all.
    const ends = [
      now,
      '2026-11-29T10:14:59.999Z',
      '2026-11-29T10:15:00.001Z',
      day(29, '23:59:59.999'),
      day(30, '00:00:00.000'),
    ];
    for (let d = 27; d <= 37; d++) ends.push(day(d, '00:00:00.000'), day(d, '12:30:00.000'), day(d, '23:59:59.999'));
    const rows: { status: string; stage: number; end: string | null; price: number }[] = [];
    let n = 0;
    for (const end of [...ends, null]) {
      for (const [status, stage] of [
        ['COMPLETED', 1],
        ['COMPLETED', 2],
        ['REVERSED', 1],
      ] as const) {
        const price = 100 + (n % 7) * 13;
        rows.push({ status, stage, end, price });
        insert.run(`p-${n++}`, status, price, now, now, stage, end);
      }
    }
    const expected = new Map<string, { day: string; count: number; value: number }>();
    for (const row of rows) {
      if (row.status !== 'COMPLETED' || row.stage !== 1 || row.end === null || row.end <= now) continue;
      const key = row.end.slice(0, 10);
      const entry = expected.get(key) ?? { day: key, count: 0, value: 0 };
      entry.count++;
      entry.value += row.price;
      expected.set(key, entry);
    }
    const { schedule } = exposureRows(statementCache(db), {
      now,
      reversedOffset: 0,
      reversedLimit: 1,
      reversersLimit: 1,
    });
    expect(schedule).toEqual([...expected.values()].sort((a, b) => (a.day < b.day ? -1 : 1)));
    expect(schedule.length).toBe(9);
  });

  it("finds each reversed trade's TRADE ROLLBACK by its trade id, not by walking every rollback", () => {
    // A ledger as a busy store's: each trade's FREEZE and end, a rollback per tenth.
    const add = db.prepare(
      `INSERT INTO ledger (type, amount, balanceBefore, balanceAfter, tradeId, createdAt) VALUES (?, 100, 0, 100, ?, ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < 5_000; i++) {
        const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
        add.run('FREEZE', `l-${i}`, at);
        add.run(i % 10 === 0 ? 'TRADE ROLLBACK' : 'BUY COMPLETED', `l-${i}`, at);
      }
    })();
    const rollbackPlan = () => {
      const ran: string[] = [];
      const cache = statementCache(db);
      const recording = ((sql: string) => {
        ran.push(sql);
        return cache(sql);
      }) as Prepare;
      exposureRows(recording, {
        now: '2026-11-29T00:00:00.000Z',
        reversedOffset: 0,
        reversedLimit: 50,
        reversersLimit: 25,
      });
      const rollback = ran.find((sql) => /FROM ledger/.test(sql));
      return (db.prepare(`EXPLAIN QUERY PLAN ${rollback}`).all('l-10') as { detail: string }[])
        .map((row) => row.detail)
        .join('\n');
    };
    // Without statistics (a store `optimize` has not analysed yet) and with them.
    for (const analysed of [false, true]) {
      if (analysed) db.exec('ANALYZE');
      expect(rollbackPlan(), `analysed: ${analysed}`).toMatch(/ledger_trade \(tradeId=\?\)/);
      expect(rollbackPlan(), `analysed: ${analysed}`).not.toMatch(/ledger_type/);
    }
  });

  it('pages the reversed trades newest first, each page where the last ended, each with its TRADE ROLLBACK', () => {
    const addRollback = db.prepare(
      `INSERT INTO ledger (type, amount, balanceBefore, balanceAfter, tradeId, createdAt) VALUES ('TRADE ROLLBACK', 100, 0, 100, ?, ?)`,
    );
    const reversedIds = db
      .prepare("SELECT tradeId, createdAt FROM trades WHERE status = 'REVERSED' ORDER BY createdAt DESC, tradeId DESC")
      .all() as { tradeId: string; createdAt: string }[];
    for (const { tradeId, createdAt } of reversedIds) addRollback.run(tradeId, createdAt);
    const page = (offset: number) =>
      exposureRows(statementCache(db), {
        now: '2026-11-29T00:00:00.000Z',
        reversedOffset: offset,
        reversedLimit: 50,
        reversersLimit: 25,
      });
    const pages = Array.from({ length: Math.ceil(reversedIds.length / 50) + 1 }, (_, i) => page(i * 50));
    const listed = pages.flatMap((rows) => rows.reversed);
    expect(listed.map((row) => row.trade.tradeId)).toEqual(reversedIds.map((row) => row.tradeId));
    expect(listed.every((row) => row.rollback?.tradeId === row.trade.tradeId)).toBe(true);
    expect(pages.at(-1)?.reversed).toEqual([]);
    expect(pages[0]?.reversers).toHaveLength(25);
    expect(pages[0]?.reversersTotal).toBe(150);
  });
});
