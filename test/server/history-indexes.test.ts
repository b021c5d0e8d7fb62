/**
 * Trades/History by status or by webhookStatus walks only the matching trades: each statement the sandbox ran for
 * such a question, explained by SQLite with the values it was given, searches an index that starts with that column.
 * Without it, a webhookStatus count read every row of the merchant (docs/sandbox.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TradeHistoryPage } from '../../src/shared/api';
import type { SqliteDatabase } from '../../src/server/db/database';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { merchantApi } from '../support/sandboxHttp';

const DAY_MS = 24 * 3600_000;

/** Records the SQL the sandbox prepares from now on, and the values each run was given. */
function recordStatements(db: SqliteDatabase): { sql: string; params: unknown[] }[] {
  const ran: { sql: string; params: unknown[] }[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    for (const method of ['all', 'get'] as const) {
      const run = statement[method].bind(statement) as (...params: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...params: unknown[]) => {
        ran.push({ sql, params });
        return run(...params);
      };
    }
    return statement;
  }) as typeof db.prepare;
  return ran;
}

describe('sandbox: Trades/History by status or webhookStatus reads its own index', () => {
  let sb: Sandbox;
  let ran: { sql: string; params: unknown[] }[];

  beforeAll(async () => {
    sb = await startSandbox({ items: 40, seed: 6, busyMerchant: { days: 20, tradesPerDay: 100, recipients: 200 } });
    ran = recordStatements(sb.core.db);
  });
  afterAll(() => sb.close());

  it('counts and pages failed deliveries and each status from an index on that column, with the right totals', async () => {
    const busy = sb.busy as NonNullable<Sandbox['busy']>;
    const api = merchantApi(sb, busy);
    const from = new Date(Date.now() - 14 * DAY_MS).toISOString();
    const questions = [
      { query: 'webhookStatus=failed', where: "webhook_status = 'failed'" },
      {
        query: `webhookStatus=failed&from=${from}`,
        where: `webhook_status = 'failed' AND created_at >= ${Date.parse(from)}`,
      },
      { query: 'webhookStatus=sent&limit=1', where: "webhook_status = 'sent'" },
      { query: 'status=COMPLETED&limit=100&page=3', where: "status = 'COMPLETED'" },
      { query: 'status=SENT', where: "status = 'SENT'" },
      { query: `status=REVERSED&from=${from}`, where: `status = 'REVERSED' AND created_at >= ${Date.parse(from)}` },
    ];
    const count = (where: string) =>
      sb.core.db
        .prepare(`SELECT count(*) FROM trades WHERE merchant_id = ? AND ${where}`)
        .pluck()
        .get(busy.merchantId) as number;
    // Not vacuous: the history has failed deliveries, on both sides of the 14-day line.
    expect(count("webhook_status = 'failed'")).toBeGreaterThan(count(questions[1]?.where as string));
    expect(count(questions[1]?.where as string)).toBeGreaterThan(0);

    ran.length = 0;
    for (const { query, where } of questions) {
      const answer = await api.get<TradeHistoryPage>(`/Trades/History?${query}`);
      expect(answer.status, query).toBe(200);
      expect(answer.body.total, query).toBe(count(where));
    }

    const trades = ran.filter(({ sql }) => /\bFROM trades\b/.test(sql) && /\b(webhook_status|status) = @/.test(sql));
    expect(trades.length).toBeGreaterThanOrEqual(questions.length * 2);
    for (const { sql, params } of trades) {
      const plan = (sb.core.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((row) => row.detail)
        .join('; ');
      const index = /webhook_status = @/.test(sql) ? 'trades_by_webhook_status' : 'trades_by_status';
      expect(plan, sql).toMatch(new RegExp(`^SEARCH trades USING (COVERING )?INDEX ${index} \\(merchant_id=\\? AND`));
    }
  });
});
