// The failures board's roll-up (trade_failure_days, kept by triggers) against a plain model of the stored rows, through
// random inserts and status updates, a reopen, and the migration that fills it from a schema-23 file's rows; the
// buy refusals' write, read and pruning.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalStore } from '../../src/main/core/store';
import { FAILURE_STATUSES } from '../../src/main/core/store/schema';
import type { FailedTradeCount } from '../../src/main/core/store/worker/failuresQuery';
import type { Trade, TradeStatus } from '../../src/shared/api';
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

const START = Date.parse('2026-03-01T00:00:00.000Z');
const OUTCOMES: { status: TradeStatus; errorCode: number | null }[] = [
  { status: 'PENDING', errorCode: null },
  { status: 'SENT', errorCode: null },
  { status: 'COMPLETED', errorCode: null },
  { status: 'EXPIRED', errorCode: 503 },
  { status: 'CANCELLED', errorCode: 504 },
  { status: 'CANCELLED', errorCode: 505 },
  { status: 'CANCELLED', errorCode: 506 },
  { status: 'FAILED', errorCode: 500 },
  { status: 'REJECTED', errorCode: null },
  { status: 'REVERSED', errorCode: 512 },
];

type Row = Pick<Trade, 'status' | 'errorCode' | 'price' | 'createdAt'>;

/** The board's counts computed plainly from the rows. */
function model(rows: Row[], length: 10 | 13, keep: (row: Row) => boolean = () => true): FailedTradeCount[] {
  const cells = new Map<string, FailedTradeCount>();
  for (const row of rows) {
    if (!(FAILURE_STATUSES as readonly string[]).includes(row.status) || !keep(row)) continue;
    const at = row.createdAt.slice(0, length);
    const errorCode = row.errorCode ?? 0;
    const key = `${at}|${row.status}|${errorCode}`;
    const cell = cells.get(key) ?? { at, status: row.status, errorCode, count: 0, value: 0 };
    cell.count += 1;
    cell.value += row.price;
    cells.set(key, cell);
  }
  return [...cells.values()].sort(
    (a, b) =>
      a.at.localeCompare(b.at) || (a.status < b.status ? -1 : a.status > b.status ? 1 : 0) || a.errorCode - b.errorCode,
  );
}

describe('failures roll-up', () => {
  let dir: string;
  let file: string;
  let store: LocalStore;
  const next = random(35);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'md-failures-'));
    file = join(dir, 'f.sqlite');
    store = await LocalStore.open({ file });
    const trades = Array.from({ length: 400 }, (_, i) => {
      const { status, errorCode } = pick(OUTCOMES);
      const createdAt = new Date(START + Math.floor(next() * 9 * 86_400_000)).toISOString();
      return trade(`t${i}`, status, {
        errorCode,
        price: 1 + Math.floor(next() * 50_000),
        createdAt,
        updatedAt: createdAt,
      });
    });
    await store.upsertTrades(trades, 'poll');
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const storedRows = (): Row[] => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare<[], Row>('SELECT status, errorCode, price, createdAt FROM trades').all();
    } finally {
      db.close();
    }
  };

  async function expectModel(): Promise<void> {
    await store.close();
    const rows = storedRows();
    store = await LocalStore.open({ file });
    const board = await store.failureRows({ fromDay: '2026-03-01', toDay: '2026-03-31', hoursDay: '2026-03-04' });
    expect(board.days).toEqual(model(rows, 10));
    expect(board.hours).toEqual(model(rows, 13, (row) => row.createdAt.startsWith('2026-03-04')));
    const some = await store.failureRows({ fromDay: '2026-03-03', toDay: '2026-03-05', hoursDay: '2026-03-04' });
    expect(some.days).toEqual(model(rows, 10, (row) => row.createdAt >= '2026-03-03' && row.createdAt < '2026-03-06'));
  }

  it('matches the rows after inserts', async () => {
    await expectModel();
    expect(
      (await store.failureRows({ fromDay: '2026-03-01', toDay: '2026-03-31', hoursDay: '2026-03-04' })).days.length,
    ).toBeGreaterThan(10);
  });

  it('matches the rows after random status updates (feed and poll paths) and a reopen', async () => {
    for (let i = 0; i < 300; i++) {
      const { status, errorCode } = pick(OUTCOMES);
      const tradeId = `t${Math.floor(next() * 400)}`;
      if (next() < 0.5) {
        await store.applyTradeUpdate(
          { tradeId, externalId: null, status, offerId: null, failReason: null, errorCode },
          'feed',
        );
      } else {
        const current = await store.getTrade(tradeId);
        if (current)
          await store.upsertTrades([{ ...current.trade, status, errorCode, price: current.trade.price + 1 }], 'poll');
      }
    }
    await expectModel();
  });

  it('a schema-23 file gets the roll-up from its rows, and the triggers keep it after', async () => {
    await store.close();
    const db = new Database(file);
    db.exec(
      "DROP TRIGGER trade_failure_days_insert; DROP TRIGGER trade_failure_days_update_old; DROP TRIGGER trade_failure_days_update_new; DROP TRIGGER trade_failure_days_delete; DROP INDEX trades_error; DROP TABLE buy_refusals; DELETE FROM trade_failure_days; INSERT INTO trade_failure_days VALUES ('2026-03-02', 'FAILED', 500, 99, 99)",
    );
    db.pragma('user_version = 23');
    db.close();
    store = await LocalStore.open({ file });
    expect(store.migratedFrom).toBe(23);
    await expectModel();
    await store.upsertTrades(
      [
        trade('late', 'FAILED', {
          errorCode: 500,
          createdAt: '2026-03-04T05:00:00.000Z',
          updatedAt: '2026-03-04T05:00:00.000Z',
        }),
      ],
      'poll',
    );
    await expectModel();
  });

  it('records buy refusals, lists them by code and time, and drops those past 400 days', async () => {
    const refusal = (at: string, code: string) => ({
      at,
      code,
      itemId: 7,
      market_hash_name: 'AK-47 | Redline (Field-Tested)',
      price: 1234,
      partner: 12345678,
      externalId: `md-${at}`,
      detail: 'Insufficient merchant balance',
    });
    await store.recordBuyRefusal(refusal('2025-01-01T00:00:00.000Z', 'insufficient_balance'));
    await store.recordBuyRefusal(refusal('2026-03-04T08:30:00.000Z', 'insufficient_balance'));
    await store.recordBuyRefusal(refusal('2026-03-04T09:10:00.000Z', 'partner_blocked'));
    const rows = await store.failureRows({ fromDay: '2024-01-01', toDay: '2026-03-31', hoursDay: '2026-03-04' });
    // The 2025-01-01 refusal is more than 400 days before the latest write: pruned.
    expect(rows.refusalDays).toEqual([
      { at: '2026-03-04', code: 'insufficient_balance', count: 1, value: 1234 },
      { at: '2026-03-04', code: 'partner_blocked', count: 1, value: 1234 },
    ]);
    expect(rows.refusalHours.map((r) => r.at)).toEqual(['2026-03-04T08', '2026-03-04T09']);
    const list = await store.buyRefusals({
      from: '2026-03-04T00:00:00.000Z',
      to: '2026-03-05T00:00:00.000Z',
      code: 'partner_blocked',
      limit: 10,
    });
    expect(list.map((r) => [r.code, r.partner, r.externalId])).toEqual([
      ['partner_blocked', 12345678, 'md-2026-03-04T09:10:00.000Z'],
    ]);
  });
});
