import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalStore } from '../../src/main/core/store';
import { RECIPIENT_BUYER_REVERSED_FROM_ROWS, RECIPIENT_TOTALS_FROM_ROWS } from '../../src/main/core/store/schema';
import type { RecipientRowsQuery } from '../../src/main/core/store/worker/recipientsQuery';
import { tradeUrlFor } from '../support/sandboxHttp';
import { type Trade, type TradeStatus, whoReversed } from '../../src/shared/api';
import { trade } from '../renderer/fixtures';

/** mulberry32: the same writes for the same seed. */
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

const PARTNERS = [101, 202, 303, 404];
const ENDINGS: [TradeStatus, number | null][] = [
  ['COMPLETED', null],
  ['CANCELLED', 504],
  ['EXPIRED', 503],
  ['FAILED', 500],
  ['CANCELLED', 505],
  ['REJECTED', null],
];
const NOW = Date.UTC(2026, 10, 29, 12);
/** A reversal's failReason: the spec's, the sandbox's, other cases, none, junk (whoReversed decides in the model). */
const REVERSAL_REASONS = [
  'Buyer reversed trade on Platform',
  'Seller reversed trade on Platform',
  'Buyer reversed trade on Steam',
  'Seller reversed trade on Steam',
  'BUYER reversed trade on Buyer',
  '  buyer reversed',
  'Buyers reversed trade',
  'Reversed by the buyer',
  '',
  null,
];

interface Totals {
  trades: number;
  active: number;
  delivered: number;
  cancelled: number;
  reversed: number;
  buyerReversed: number;
  value: number;
  strikes: number;
}

/** The plain model: every stored trade's share, summed in JS. */
function modelOf(trades: Trade[], since: string): Map<number, Totals> {
  const totals = new Map<number, Totals>();
  for (const t of trades) {
    const partner = Number(/partner=(\d+)/.exec(t.tradeUrl)?.[1] ?? NaN);
    if (!Number.isFinite(partner)) continue;
    const row = totals.get(partner) ?? {
      trades: 0,
      active: 0,
      delivered: 0,
      cancelled: 0,
      reversed: 0,
      buyerReversed: 0,
      value: 0,
      strikes: 0,
    };
    row.trades += 1;
    if (['PENDING', 'SENT'].includes(t.status)) row.active += 1;
    if (t.status === 'COMPLETED') {
      row.delivered += 1;
      row.value += t.price;
    }
    if (['CANCELLED', 'EXPIRED', 'FAILED', 'REJECTED'].includes(t.status)) row.cancelled += 1;
    if (t.status === 'REVERSED') row.reversed += 1;
    if (whoReversed(t) === 'buyer') row.buyerReversed += 1;
    const strike = (t.status === 'CANCELLED' && t.errorCode === 504) || (t.status === 'EXPIRED' && t.errorCode === 503);
    if (strike && t.updatedAt >= since) row.strikes += 1;
    totals.set(partner, row);
  }
  return totals;
}

describe('recipient_totals, kept on write, against a plain model', () => {
  let dir: string;
  let file: string;
  let store: LocalStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recipient-totals-'));
    file = join(dir, 'm.sqlite');
    store = await LocalStore.open({ file });
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('matches the model through inserts, status moves (feed updates and server pages) and reversals by either side', async () => {
    const rnd = random(35);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
    const held: Trade[] = [];
    for (let i = 0; i < 400; i++) {
      const createdAt = new Date(NOW - Math.floor(rnd() * 3 * 24 * 3600_000)).toISOString();
      const tradeUrl = rnd() < 0.05 ? 'not a trade url' : tradeUrlFor(pick(PARTNERS));
      held.push(
        trade(`t-${String(i).padStart(4, '0')}`, 'PENDING', {
          tradeUrl,
          price: 100 + Math.floor(rnd() * 5000),
          createdAt,
          updatedAt: createdAt,
        }),
      );
    }
    // Written in batches as pages arrive, then moved: to SENT, to an ending, some completed ones reversed.
    for (let i = 0; i < held.length; i += 50) await store.upsertTrades(held.slice(i, i + 50), 'poll');
    for (const [index, t] of held.entries()) {
      const roll = rnd();
      if (roll < 0.15) continue;
      const sent = {
        ...t,
        status: 'SENT' as const,
        updatedAt: new Date(Date.parse(t.createdAt) + 60_000).toISOString(),
      };
      held[index] = sent;
      if (roll < 0.3) {
        await store.upsertTrades([sent], 'poll');
        continue;
      }
      const [status, errorCode] = pick(ENDINGS);
      const ended = {
        ...sent,
        status,
        errorCode,
        updatedAt: new Date(Date.parse(t.createdAt) + 3600_000).toISOString(),
      };
      held[index] = ended;
      // Half through the feed's update path, half as a history page.
      if (rnd() < 0.5) {
        await store.applyTradeUpdate(
          { tradeId: t.tradeId, status: 'SENT', externalId: null, offerId: null, failReason: null, errorCode: null },
          'feed',
        );
        await store.applyTradeUpdate(
          { tradeId: t.tradeId, status, externalId: null, offerId: null, failReason: null, errorCode },
          'feed',
        );
      } else await store.upsertTrades([ended], 'poll');
      if (status === 'COMPLETED' && rnd() < 0.4) {
        const failReason = pick(REVERSAL_REASONS);
        const reversed: Trade = { ...ended, status: 'REVERSED', stage: 2, errorCode: 512, failReason };
        held[index] = reversed;
        const way = rnd();
        if (way < 0.4) await store.upsertTrades([reversed], 'poll');
        else {
          await store.applyTradeUpdate(
            { tradeId: t.tradeId, status: 'REVERSED', externalId: null, offerId: null, failReason, errorCode: 512 },
            'feed',
          );
          // Told later who reversed: a history page with another failReason, the status unchanged.
          if (way > 0.7) {
            held[index] = { ...reversed, failReason: pick(REVERSAL_REASONS) };
            await store.upsertTrades([held[index] as Trade], 'poll');
          }
        }
      }
    }

    // The model sums what the store holds (the feed path sets its own status times).
    const stored = (await store.queryTrades({ limit: 1000 })).rows;
    expect(stored).toHaveLength(held.length);
    const since = new Date(NOW - 24 * 3600_000).toISOString();
    const model = modelOf(stored, since);
    const query: RecipientRowsQuery = {
      sort: 'partner',
      descending: false,
      strikesSince: since,
      // Every trade's creation: the feed path stamps its own status times, days after some of these creations.
      strikesCreatedFrom: '2000-01-01T00:00:00.000Z',
      partners: null,
      only: 'all',
      attention: { strikes: 7, active: 27, blocked: [] },
      offset: 0,
      limit: 100,
    };
    const read = await store.recipientRows(query);
    const asModel = (rows: typeof read.rows) =>
      new Map(rows.map(({ partner, lastStatus: _s, lastErrorCode: _e, lastAt: _a, ...rest }) => [partner, rest]));
    expect(read.total).toBe(model.size);
    expect(asModel(read.rows)).toEqual(model);

    // The migration's fill from the rows gives the same totals as the triggers kept.
    await store.close();
    const db = new Database(file);
    const kept = db.prepare('SELECT * FROM recipient_totals ORDER BY partner').all();
    db.exec(RECIPIENT_TOTALS_FROM_ROWS);
    expect(db.prepare('SELECT * FROM recipient_totals ORDER BY partner').all()).toEqual(kept);
    db.close();
    store = await LocalStore.open({ file });

    // By last trade: the newest creation of each recipient's trades, as the model has it.
    const newest = new Map<number, string>();
    for (const t of stored) {
      const partner = Number(/partner=(\d+)/.exec(t.tradeUrl)?.[1] ?? NaN);
      if (Number.isFinite(partner) && t.createdAt > (newest.get(partner) ?? '')) newest.set(partner, t.createdAt);
    }
    const byLast = [...newest].sort(([pa, a], [pb, b]) => (a === b ? pb - pa : a < b ? 1 : -1)).map(([p]) => p);
    const sorted = await store.recipientRows({ ...query, sort: 'lastAt', descending: true });
    expect(sorted.rows.map((row) => row.partner)).toEqual(byLast);
  });

  it("a file from before 28 gets each recipient's newest trade, and its triggers keep it from then on", async () => {
    const partner = 505;
    const at = (hours: number) => new Date(NOW - hours * 3600_000).toISOString();
    await store.upsertTrades(
      [
        trade('m-1', 'COMPLETED', { tradeUrl: tradeUrlFor(partner), createdAt: at(30), updatedAt: at(29) }),
        trade('m-2', 'PENDING', { tradeUrl: tradeUrlFor(partner), createdAt: at(10), updatedAt: at(10) }),
      ],
      'poll',
    );
    await store.close();
    // As schema 27 left it: no column, triggers that do not write one.
    const db = new Database(file);
    db.exec(`DROP TRIGGER recipient_totals_insert; DROP TRIGGER recipient_totals_update;
      ALTER TABLE recipient_totals DROP COLUMN lastCreatedAt; PRAGMA user_version = 27;`);
    db.close();
    store = await LocalStore.open({ file });
    await store.upsertTrades(
      [trade('m-3', 'PENDING', { tradeUrl: tradeUrlFor(606), createdAt: at(5), updatedAt: at(5) })],
      'poll',
    );
    await store.close();
    const reopened = new Database(file, { readonly: true });
    expect(reopened.prepare('SELECT partner, lastCreatedAt FROM recipient_totals ORDER BY partner').all()).toEqual([
      { partner, lastCreatedAt: at(10) },
      { partner: 606, lastCreatedAt: at(5) },
    ]);
    reopened.close();
    store = await LocalStore.open({ file });
  });
  it("a file of 28 gets each recipient's reversals by the buyer from its REVERSED trades, and its triggers keep them", async () => {
    const at = (hours: number) => new Date(NOW - hours * 3600_000).toISOString();
    const reversed = (id: string, partner: number, failReason: string | null) =>
      trade(id, 'REVERSED', { tradeUrl: tradeUrlFor(partner), errorCode: 512, failReason, createdAt: at(30) });
    await store.upsertTrades(
      [
        reversed('v-1', 707, 'Buyer reversed trade on Steam'),
        reversed('v-2', 707, 'Seller reversed trade on Steam'),
        reversed('v-3', 707, 'buyer reversed trade on Platform'),
        reversed('v-4', 808, 'Seller reversed trade on Steam'),
        reversed('v-5', 808, null),
        trade('v-6', 'COMPLETED', { tradeUrl: tradeUrlFor(909), createdAt: at(20) }),
        trade('v-7', 'CANCELLED', { tradeUrl: tradeUrlFor(909), failReason: 'Buyer declined', errorCode: 504 }),
      ],
      'poll',
    );
    await store.close();
    // As schema 28 left it: no column, and triggers that do not write one (the delete one stands for them all).
    const db = new Database(file);
    db.exec(`DROP TRIGGER recipient_totals_insert; DROP TRIGGER recipient_totals_update; DROP TRIGGER recipient_totals_delete;
      ALTER TABLE recipient_totals DROP COLUMN buyerReversed;
      CREATE TRIGGER recipient_totals_delete AFTER DELETE ON trades WHEN old.partner IS NOT NULL BEGIN
        UPDATE recipient_totals SET trades = trades - 1, reversed = reversed - (old.status = 'REVERSED') WHERE partner = old.partner;
      END;
      PRAGMA user_version = 28;`);
    db.close();
    store = await LocalStore.open({ file });
    const buyerReversed = async () => {
      const { rows } = await store.recipientRows({
        sort: 'partner',
        descending: false,
        strikesSince: at(24),
        strikesCreatedFrom: at(48),
        partners: null,
        only: 'all',
        attention: { strikes: 7, active: 27, blocked: [] },
        offset: 0,
        limit: 10,
      });
      return rows.map((row) => [row.partner, row.reversed, row.buyerReversed]);
    };
    expect(await buyerReversed()).toEqual([
      [707, 3, 2],
      [808, 2, 0],
      [909, 0, 0],
    ]);
    // The fill reads the REVERSED trades through the status index, not every trade.
    const readOnly = new Database(file, { readonly: true });
    const plan = readOnly.prepare(`EXPLAIN QUERY PLAN ${RECIPIENT_BUYER_REVERSED_FROM_ROWS}`).all() as {
      detail: string;
    }[];
    readOnly.close();
    expect(plan.map((row) => row.detail).join('\n')).toMatch(
      /SEARCH trades USING (COVERING )?INDEX trades_status \(status=\?\)/,
    );
    // From then on the triggers keep it: a failReason told later, a new reversal, a deleted one.
    await store.upsertTrades(
      [reversed('v-5', 808, 'Buyer reversed trade on Steam'), reversed('v-8', 909, 'Buyer reversed trade on Steam')],
      'poll',
    );
    expect(await buyerReversed()).toEqual([
      [707, 3, 2],
      [808, 2, 1],
      [909, 1, 1],
    ]);
    await store.close();
    const raw = new Database(file);
    raw.prepare("DELETE FROM trades WHERE tradeId = 'v-1'").run();
    raw.close();
    store = await LocalStore.open({ file });
    expect((await buyerReversed())[0]).toEqual([707, 2, 1]);
  });
});
