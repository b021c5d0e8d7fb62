/**
 * A records answer built from several statements (a page and its total, a trade and its timeline) reads one committed
 * state: a write the writer commits between two of its statements is in all of them or in none. The writer and the
 * reader run in this thread, so the write lands exactly after the answer's first statement.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/main/core/store/worker/open';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import type { StoredNotification } from '../../src/shared/ipc';
import { trade } from '../renderer/fixtures';
import { tempDirs } from '../support/tempDirs';

const temp = tempDirs();
const open: { close(): void }[] = [];
afterEach(() => {
  for (const service of open.splice(0).reverse()) service.close();
});

type Read = (...args: unknown[]) => unknown;

/** The writer's file with a reader on it; `between(sqlStart, write)` commits `write` right after that statement's first read. */
function storeWithReader() {
  const writer = new WriterService(join(temp('records-read-once-'), 'm1.sqlite'));
  open.push(writer);
  let hook: { sqlStart: string; write: () => void } | null = null;
  const reader = new ReaderService(writer.file);
  open.push(reader);
  const readerDb = (reader as unknown as { db: Db }).db;
  const own = readerDb.prepare.bind(readerDb) as Db['prepare'];
  readerDb.prepare = ((sql: string) => {
    const statement = own(sql);
    for (const method of ['get', 'all'] as const) {
      const read = (statement[method] as Read).bind(statement);
      (statement as unknown as Record<string, Read>)[method] = (...args) => {
        const result = read(...args);
        if (hook && sql.trimStart().startsWith(hook.sqlStart)) {
          const { write } = hook;
          hook = null;
          write();
        }
        return result;
      };
    }
    return statement;
  }) as Db['prepare'];
  return {
    writer: writer.records,
    reader,
    between(sqlStart: string, write: () => void) {
      hook = { sqlStart, write };
    },
    fired: () => hook === null,
  };
}

const at = (minute: number) => new Date(Date.UTC(2026, 10, 29, 10, minute)).toISOString();
const tradeAt = (n: number, extra: Parameters<typeof trade>[2] = {}) =>
  trade(`t-${n}`, 'PENDING', { createdAt: at(n), updatedAt: at(n), itemId: n, assetId: `a${n}`, ...extra });

function note(id: string, minute: number): StoredNotification {
  const body = { kind: 'trade', category: 'trade', severity: 'success', title: id, body: 'b', target: null } as const;
  return { id, ...body, at: at(minute), readAt: null };
}

describe('records answers read one committed state', () => {
  it('a trade page counted by its filter holds the rows its total counts', () => {
    const s = storeWithReader();
    s.writer.upsertTrades(
      [1, 2, 3].map((n) => tradeAt(n, { webhookStatus: 'failed' })),
      'reconcile',
    );
    s.between('SELECT count(*)', () => s.writer.upsertTrades([tradeAt(4, { webhookStatus: 'failed' })], 'feed'));
    const page = s.reader.queryTrades({ webhookFailed: true, limit: 50 });
    expect(s.fired()).toBe(true);
    expect(page.rows.length).toBe(page.total);
  });

  it('a trade page planned from the day roll-up holds the rows its plan counts', () => {
    const s = storeWithReader();
    s.writer.upsertTrades(
      [1, 2, 3].map((n) => tradeAt(n)),
      'reconcile',
    );
    s.between('SELECT day, sum(n)', () => s.writer.upsertTrades([tradeAt(4)], 'feed'));
    const page = s.reader.queryTrades({ limit: 50 });
    expect(s.fired()).toBe(true);
    expect(page.rows.length).toBe(page.total);
  });

  it("a trade's timeline is the one of the trade read", () => {
    const s = storeWithReader();
    s.writer.upsertTrades([tradeAt(1)], 'reconcile');
    s.between('SELECT tradeId', () =>
      s.writer.applyTradeUpdate(
        { tradeId: 't-1', status: 'SENT' } as Parameters<typeof s.writer.applyTradeUpdate>[0],
        'feed',
      ),
    );
    const detail = s.reader.getTrade('t-1');
    expect(s.fired()).toBe(true);
    expect(detail?.timeline.at(-1)?.status).toBe(detail?.trade.status);
  });

  it('a notification page holds the rows its total counts, and its unread count agrees', () => {
    const s = storeWithReader();
    s.writer.insertNotifications([note('a', 1), note('b', 2)]);
    s.between('SELECT count(*)', () => s.writer.insertNotifications([note('c', 3)]));
    const page = s.reader.listNotifications({ limit: 50 });
    expect(s.fired()).toBe(true);
    expect(page.rows.length).toBe(page.total);
    expect(page.unread).toBe(page.rows.filter((n) => n.readAt === null).length);
  });

  it('a recipients page holds the rows its total counts', () => {
    const s = storeWithReader();
    s.writer.upsertTrades([tradeAt(1, { status: 'COMPLETED' })], 'reconcile');
    const other = 'https://steamcommunity.com/tradeoffer/new/?partner=87654321&token=XyZxYzXy';
    s.between('SELECT count(*)', () =>
      s.writer.upsertTrades([tradeAt(2, { status: 'COMPLETED', tradeUrl: other })], 'feed'),
    );
    const page = s.reader.recipientRows({
      sort: 'trades',
      descending: true,
      strikesSince: at(0),
      strikesCreatedFrom: at(0),
      partners: null,
      only: 'all',
      attention: { strikes: 1, active: 1, blocked: [] },
      offset: 0,
      limit: 50,
    });
    expect(s.fired()).toBe(true);
    expect(page.rows.length).toBe(page.total);
  });
});
