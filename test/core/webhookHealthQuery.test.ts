/**
 * Operations → Webhook health's reads on a real SQLite file: the answers equal a plain count over the rows, and every
 * statement reads the failed deliveries through their partial index (a year holds 3.65M trades, ~1 % failed; the
 * counts by status once took trades_status and read every trade: 38 s).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareSchema } from '../../src/main/core/store/schema';
import { type Prepare, statementCache } from '../../src/main/core/store/worker/open';
import { newestFailed, replayCandidates, webhookHealthRows } from '../../src/main/core/store/worker/webhookHealthQuery';

interface Row {
  tradeId: string;
  status: string;
  webhookStatus: string;
  createdAt: string;
  updatedAt: string;
}

const STATUSES = ['COMPLETED', 'EXPIRED', 'REJECTED', 'SENT'];

describe('webhook health reads on a real SQLite file', () => {
  let dir: string;
  let db: Database.Database;
  const rows: Row[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-health-'));
    const file = join(dir, 'store.db');
    db = new Database(file);
    prepareSchema(db, file);
    const insert = db.prepare(
      `INSERT INTO trades (tradeId, status, status_rank, price, itemId, assetId, tradeUrl, market_hash_name, webhookStatus,
         createdAt, updatedAt, stage, updated_at) VALUES (?, ?, 2, 100, ?, ?, 'https://x.invalid', 'AK', ?, ?, ?, 2, 0)`,
    );
    rows.length = 0;
    // 600 trades over 50 hours; every seventh delivery failed, and all after number 500.
    for (let i = 0; i < 600; i++) {
      const created = Date.UTC(2026, 10, 27) + i * 5 * 60_000;
      const row: Row = {
        tradeId: `t-${String(i).padStart(4, '0')}`,
        status: STATUSES[i % STATUSES.length] as string,
        webhookStatus: i % 7 === 0 || i > 500 ? 'failed' : 'sent',
        createdAt: new Date(created).toISOString(),
        updatedAt: new Date(created + (i % 13) * 60_000).toISOString(),
      };
      rows.push(row);
      insert.run(row.tradeId, row.status, i, String(i), row.webhookStatus, row.createdAt, row.updatedAt);
    }
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The plans of the statements run, with the values they were given. */
  function recordingPrepare(): { prepare: Prepare; plans: () => string[] } {
    const ran: { sql: string; params: unknown[] }[] = [];
    const cache = statementCache(db);
    const prepare = ((sql: string) => {
      const statement = cache(sql);
      const recorded = new Proxy(statement, {
        get(target, key, receiver) {
          if (key === 'all' || key === 'get')
            return (...params: unknown[]) => {
              ran.push({ sql, params });
              return key === 'all' ? target.all(...params) : target.get(...params);
            };
          if (key === 'pluck') return () => (target.pluck(), recorded);
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      return recorded;
    }) as unknown as Prepare;
    const plans = () =>
      ran.flatMap(({ sql, params }) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail),
      );
    return { prepare, plans };
  }

  it('counts, lists and bounds as a plain count over the rows does', () => {
    const hoursFrom = '2026-11-28T12';
    const got = webhookHealthRows(statementCache(db), { hoursFrom, daysFrom: '2026-11-27', listLimit: 5 });
    const failed = rows.filter((r) => r.webhookStatus === 'failed');
    const countBy = (key: (r: Row) => string, list: Row[]) => {
      const counts = new Map<string, number>();
      for (const r of list) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
      return counts;
    };
    expect(new Map(got.byStatus.map((s) => [s.status, s.count]))).toEqual(countBy((r) => r.status, failed));
    expect(got.byHour).toEqual(
      [
        ...countBy(
          (r) => r.updatedAt.slice(0, 13),
          failed.filter((r) => r.updatedAt >= hoursFrom),
        ),
      ]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([at, count]) => ({ at, count })),
    );
    expect(got.byDay.reduce((n, d) => n + d.count, 0)).toBe(failed.length);
    const lastSent = rows.filter((r) => r.webhookStatus === 'sent').at(-1) as Row;
    expect(got.lastDeliveredCreatedAt).toBe(lastSent.createdAt);
    const unanswered = failed.filter((r) => r.updatedAt > lastSent.createdAt);
    expect(got.unanswered).toEqual({
      count: unanswered.length,
      since: unanswered.map((r) => r.updatedAt).sort()[0] ?? null,
    });
    const newest = [...failed].sort((a, b) =>
      a.updatedAt === b.updatedAt ? (a.tradeId < b.tradeId ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1,
    );
    expect(got.failed.map((t) => t.tradeId)).toEqual(newest.slice(0, 5).map((r) => r.tradeId));
    expect(newestFailed(statementCache(db), 7)).toEqual(
      newest.slice(0, 7).map((r) => ({ tradeId: r.tradeId, createdAt: r.createdAt })),
    );
    expect(got.history).toEqual({
      from: rows[0]?.createdAt,
      to: rows.map((r) => r.updatedAt).reduce((a, b) => (a > b ? a : b)),
    });
    const range = replayCandidates(statementCache(db), { from: hoursFrom, to: '2026-11-29T00', limit: 1000 });
    expect(range.trades.map((t) => t.tradeId)).toEqual(
      [...failed]
        .filter((r) => r.updatedAt >= hoursFrom && r.updatedAt <= '2026-11-29T00')
        .sort((a, b) =>
          a.updatedAt === b.updatedAt ? (a.tradeId < b.tradeId ? -1 : 1) : a.updatedAt < b.updatedAt ? -1 : 1,
        )
        .map((r) => r.tradeId),
    );
  });

  it('reads the failed deliveries through their index: no statement walks every trade', () => {
    const { prepare, plans } = recordingPrepare();
    webhookHealthRows(prepare, { hoursFrom: '2026-11-28T12', daysFrom: '2026-11-27', listLimit: 50 });
    replayCandidates(prepare, { from: '2026-11-28', to: '2026-11-29', limit: 100 });
    newestFailed(prepare, 500);
    const details = plans();
    expect(details.length).toBeGreaterThan(0);
    expect(details.filter((d) => /\bSCAN trades\b/.test(d) && !/INDEX trades_webhook_failed_at\b/.test(d))).toEqual([]);
    expect(details.filter((d) => /trades_status/.test(d))).toEqual([]);
  });
});
