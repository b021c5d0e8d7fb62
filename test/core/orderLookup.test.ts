import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lookupKeys } from '../../src/main/core/operations/lookup';
import { partnerOf, prepareSchema, SCHEMA_VERSION } from '../../src/main/core/store/schema';
import { type Prepare, statementCache } from '../../src/main/core/store/worker/open';
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
         createdAt, updatedAt, stage, updated_at, partner) VALUES (?, ?, 'COMPLETED', 2, 100, ?, ?, ?, ?, ?, ?, ?, 2, 0, ?)`,
    );
    const add = (i: number, externalId: string | null, name: string, partner = 1000 + i) => {
      const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
      const url = `https://steamcommunity.com/tradeoffer/new/?partner=${partner}&token=AbCd1234`;
      // The recipient column as every write path fills it (the writer, and the migration for older files).
      insert.run(`t-${i}`, externalId, i, String(i), `offer-${i}`, url, name, at, at, partnerOf(url));
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

  /** The plans of the statements a look-up ran on the trades, with the values it bound. */
  function plansOf(text: string): string[] {
    const ran: { sql: string; params: unknown[] }[] = [];
    const cache = statementCache(db);
    const recording = ((sql: string) => {
      const statement = cache(sql);
      return {
        all: (...params: unknown[]) => {
          ran.push({ sql, params });
          return statement.all(...params);
        },
      };
    }) as unknown as Prepare;
    lookupTrades(recording, lookupKeys(text), 50);
    return ran.flatMap(({ sql, params }) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail),
    );
  }

  it('finds by partner and offer id through their indexes, never a scan of the trades', () => {
    expect(look('offer-103').hits.map((h) => [h.trade.externalId, h.matchedBy])).toEqual([['ORDER-2', 'offerId']]);
    expect(look('1104').hits.map((h) => [h.trade.externalId, h.matchedBy])).toEqual([['ORDERX#2', 'partner']]);
    const url = 'https://steamcommunity.com/tradeoffer/new/?partner=1105&token=AbCd1234';
    expect(look(url).hits.map((h) => [h.trade.externalId, h.matchedBy])).toEqual([['50%_off', 'partner']]);
    for (const text of ['1104', url, 'https://steamcommunity.com/tradeoffer/103/']) {
      const plans = plansOf(text);
      expect(plans.length, text).toBeGreaterThan(0);
      expect(
        plans.filter((detail) => /\bSCAN\b/.test(detail)),
        text,
      ).toEqual([]);
    }
    expect(plansOf('1104').join('\n')).toMatch(/trades_partner/);
    expect(plansOf('1104').join('\n')).toMatch(/trades_offer/);
  });

  it("finds a player's trades by their 17-digit steam id or profile URL (the partner is its account id)", () => {
    const partnerOf777 = (text: string) => look(text).hits.filter((h) => h.matchedBy === 'partner').length;
    expect(partnerOf777('76561197960266505')).toBe(50);
    expect(partnerOf777('https://steamcommunity.com/profiles/76561197960266505/')).toBe(50);
    expect(lookupKeys('https://steamcommunity.com/profiles/76561197960266505')).toMatchObject({
      partner: '777',
      tradeId: null,
      name: null,
    });
    // 17 digits that are no account's steam id (below the base) stay ids and a name: nothing is made up.
    expect(lookupKeys('12345678901234567')).toMatchObject({ partner: null, externalId: '12345678901234567' });
    expect(partnerOf777('76561197960266506')).toBe(0);
  });

  /** What a part of a name finds, read plainly: every trade's name, the newest 50 (51 to tell there are more). */
  const plainByName = (part: string) =>
    db
      .prepare(
        `SELECT tradeId FROM trades NOT INDEXED WHERE market_hash_name LIKE ? ESCAPE '\\'
         ORDER BY createdAt DESC, tradeId DESC LIMIT 51`,
      )
      .pluck()
      .all(`%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as string[];

  it('finds by a part of a name the newest trades across every matching name, never a scan of the trades', () => {
    // 20 names, their trades interleaved in time (and some at the same instant), and one name renamed later.
    const insert = db.prepare(
      `INSERT INTO trades (tradeId, status, status_rank, price, itemId, assetId, tradeUrl, market_hash_name,
         createdAt, updatedAt, stage, updated_at, partner) VALUES (?, 'COMPLETED', 2, 100, 1, '1', 'x', ?, ?, ?, 2, 0, NULL)`,
    );
    for (let i = 0; i < 400; i++) {
      const at = new Date(Date.UTC(2026, 1, 1) + Math.floor(i / 3) * 60_000).toISOString();
      insert.run(`n-${i}`, `Sticker | Team ${(i * 7) % 20} (Foil)`, at, at);
    }
    db.prepare("UPDATE trades SET market_hash_name = 'Sticker | Team Late (Foil)' WHERE tradeId = 'n-10'").run();
    for (const part of ['team', 'Team 1', '(foil)', 'Team Late', 'field-tested', '100%', 'nothing like it']) {
      const found = look(part);
      const plain = plainByName(part);
      expect(
        found.hits.map((h) => h.trade.tradeId),
        part,
      ).toEqual(plain.slice(0, 50));
      expect(found.truncated, part).toBe(plain.length > 50);
      expect(found.hits.every((h) => h.matchedBy === 'name')).toBe(true);
      const plans = plansOf(part);
      expect(plans.join('\n'), part).toMatch(/trade_names/);
      expect(
        plans.filter((detail) => /\bSCAN trades\b/.test(detail)),
        part,
      ).toEqual([]);
    }
  });

  it('a schema-26 file gets the traded names from its rows', () => {
    const file = join(dir, 'old26.db');
    const old = new Database(file);
    prepareSchema(old, file);
    old.exec(`DROP TRIGGER trade_names_insert; DROP TRIGGER trade_names_update; DROP INDEX trades_name;
      DROP TABLE trade_names;
      INSERT INTO trades (tradeId, status, status_rank, price, itemId, assetId, tradeUrl, market_hash_name, createdAt,
        updatedAt, stage, updated_at) VALUES
        ('a', 'COMPLETED', 2, 1, 1, '1', 'x', 'AWP | Old (Field-Tested)', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 2, 0),
        ('b', 'COMPLETED', 2, 1, 1, '1', 'x', 'AWP | Old (Field-Tested)', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 2, 0)`);
    old.pragma('user_version = 26');
    old.close();
    const reopened = new Database(file);
    expect(prepareSchema(reopened, file)).toBe(26);
    expect(reopened.prepare('SELECT name, lastAt FROM trade_names').all()).toEqual([
      { name: 'AWP | Old (Field-Tested)', lastAt: '2026-01-02T00:00:00.000Z' },
    ]);
    expect(
      lookupTrades(statementCache(reopened), lookupKeys('awp | old'), 50).hits.map((h) => h.trade.tradeId),
    ).toEqual(['b', 'a']);
    reopened.close();
  });

  it('a schema-24 file gets the offer id index and the refusal columns, its refusals kept', () => {
    const file = join(dir, 'old.db');
    const old = new Database(file);
    prepareSchema(old, file);
    old.exec(`DROP INDEX trades_offer; DROP INDEX buy_refusals_chain;
      ALTER TABLE buy_refusals DROP COLUMN phase; ALTER TABLE buy_refusals DROP COLUMN tradeUrl;
      ALTER TABLE buy_refusals DROP COLUMN byName;
      INSERT INTO buy_refusals (at, code, itemId, market_hash_name, price, partner, externalId, detail)
        VALUES ('2026-11-01T00:00:00.000Z', 'item_unavailable', NULL, 'AK-47 | Old (Field-Tested)', 500, 7, 'OLD', 'gone')`);
    old.pragma('user_version = 24');
    old.close();
    const reopened = new Database(file);
    expect(prepareSchema(reopened, file)).toBe(24);
    expect(reopened.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const indexes = reopened.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all();
    expect(indexes).toEqual(expect.arrayContaining(['trades_offer', 'buy_refusals_chain']));
    expect(reopened.prepare('SELECT externalId, code, phase, tradeUrl, byName FROM buy_refusals').all()).toEqual([
      { externalId: 'OLD', code: 'item_unavailable', phase: null, tradeUrl: null, byName: 0 },
    ]);
    reopened.close();
  });
});
