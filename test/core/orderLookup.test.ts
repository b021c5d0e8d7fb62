import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lookupKeys } from '../../src/main/core/operations/lookup';
import { prepareSchema } from '../../src/main/core/store/schema';
import { statementCache } from '../../src/main/core/store/worker/open';
import { lookupTrades, orderChainTrades } from '../../src/main/core/store/worker/orderLookup';

describe('order look-up and order chains on a real SQLite file', () => {
  let dir: string;
  let db: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'order-lookup-'));
    const file = join(dir, 'store.db');
    db = new Database(file);
    prepareSchema(db, file);
    const insert = db.prepare(
      `INSERT INTO trades (tradeId, externalId, status, status_rank, price, itemId, assetId, offerId, tradeUrl, market_hash_name,
         createdAt, updatedAt, stage, updated_at) VALUES (?, ?, 'COMPLETED', 2, 100, ?, ?, NULL, ?, ?, ?, ?, 2, 0)`,
    );
    const add = (i: number, externalId: string | null, name: string, partner = 1000 + i) => {
      const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
      const url = `https://steamcommunity.com/tradeoffer/new/?partner=${partner}&token=AbCd1234`;
      insert.run(`t-${i}`, externalId, i, String(i), url, name, at, at);
    };
    for (let i = 0; i < 60; i++) add(i, `bulk-${i}`, 'AK-47 | Many (Field-Tested)', 777);
    add(100, 'ORDER', 'M4A4 | One (Field-Tested)');
    add(101, 'ORDER#2', 'M4A4 | One (Field-Tested)');
    add(102, 'ORDER#10', 'M4A4 | One (Field-Tested)');
    add(103, 'ORDER-2', 'M4A4 | One (Field-Tested)');
    add(104, 'ORDERX#2', 'M4A4 | One (Field-Tested)');
    add(105, '50%_off', 'Glock-18 | 100% (Field-Tested)');
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const look = (text: string) => lookupTrades(statementCache(db), lookupKeys(text), 50);

  it('an order chain is the order id and its #n attempts only', () => {
    expect(orderChainTrades(statementCache(db), 'ORDER').map((t) => t.externalId)).toEqual([
      'ORDER',
      'ORDER#2',
      'ORDER#10',
    ]);
    expect(look('ORDER').hits.map((h) => [h.trade.externalId, h.matchedBy])).toEqual([
      ['ORDER#10', 'chain'],
      ['ORDER#2', 'chain'],
      ['ORDER', 'externalId'],
    ]);
  });

  it('shows the newest 50 of more matches and says there are more; LIKE wildcards in the text are literal', () => {
    const many = look('777');
    expect(many.hits).toHaveLength(50);
    expect(many.truncated).toBe(true);
    expect(many.hits[0]?.trade.externalId).toBe('bulk-59');
    expect(many.hits.every((h) => h.matchedBy === 'partner')).toBe(true);
    expect(look('many (field').hits).toHaveLength(50);
    expect(look('100%').hits.map((h) => [h.trade.externalId, h.matchedBy])).toEqual([['50%_off', 'name']]);
    expect(look('0%_').hits.map((h) => h.trade.externalId)).toEqual([]);
  });
});
