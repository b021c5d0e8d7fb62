/**
 * Sandbox schema migrations on a file written by an earlier version: what they repair is repaired,
 * through the real open path and the real API.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SANDBOX_MIGRATIONS } from '../../src/server/db/migrations';
import { startSandbox } from '../../src/server/sandbox';
import { adminApi } from '../support/sandboxHttp';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sandbox migrations 4 to 6', () => {
  it('writes prices that an earlier repricing left as `67.0` in the item JSON back as integers, and nothing else; adds ledger_by_type and the trades’ status indexes', async () => {
    const dbFile = join(dir, 'sandbox.db');
    const first = await startSandbox({ items: 50, seed: 4, dbFile });
    await first.close();
    // What an earlier version left behind: two items' JSON with a REAL price, no ledger_by_type nor the trades'
    // status indexes, schema version 3.
    const file = new Database(dbFile);
    file.exec('DROP INDEX ledger_by_type; DROP INDEX trades_by_status; DROP INDEX trades_by_webhook_status');
    const [one, two] = file
      .prepare<[], { item_id: number; price: number }>('SELECT item_id, price FROM items ORDER BY item_id LIMIT 2')
      .all();
    const setReal = file.prepare<[string, number]>(
      "UPDATE items SET json = replace(json, '\"price\":' || price || ',', '\"price\":' || ? || '.0,') WHERE item_id = ?",
    );
    setReal.run(String(one?.price), one?.item_id ?? 0);
    setReal.run(String(two?.price), two?.item_id ?? 0);
    // Every other item as it was (but for the image URLs' port, which each start rewrites).
    const withoutPort = (text: string | undefined) => text?.replace(/127\.0\.0\.1:\d+/g, 'host');
    const untouched = file
      .prepare<[], string>(
        'SELECT group_concat(json, char(10)) FROM (SELECT json FROM items ORDER BY item_id LIMIT -1 OFFSET 2)',
      )
      .pluck()
      .get();
    expect(
      file.prepare<[], number>("SELECT count(*) FROM items WHERE json_type(json, '$.price') = 'real'").pluck().get(),
    ).toBe(2);
    file.pragma('user_version = 3');
    file.close();

    const again = await startSandbox({ items: 50, seed: 4, dbFile });
    try {
      const merchant = await adminApi(again).createMerchant();
      const text = await (
        await fetch(`${again.baseUrl}/Items/GetAllItemsOnSale`, {
          headers: { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId },
        })
      ).text();
      expect(text).not.toMatch(/"price":\d+\.0[,}]/);
      expect(text).toContain(`"itemId":${one?.item_id},`);
      expect(text).toContain(`"price":${one?.price},`);
    } finally {
      await again.close();
    }
    const after = new Database(dbFile, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(SANDBOX_MIGRATIONS.length);
    expect(
      after.prepare<[], number>("SELECT count(*) FROM items WHERE json_type(json, '$.price') = 'real'").pluck().get(),
    ).toBe(0);
    expect(
      after
        .prepare<[], string>(
          'SELECT group_concat(json, char(10)) FROM (SELECT json FROM items ORDER BY item_id LIMIT -1 OFFSET 2)',
        )
        .pluck()
        .get(),
    ).toSatisfy((text: string) => withoutPort(text) === withoutPort(untouched));
    expect(
      after
        .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger'")
        .pluck()
        .all(),
    ).toEqual(expect.arrayContaining(['ledger_by_merchant', 'ledger_by_type']));
    expect(
      after
        .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'trades'")
        .pluck()
        .all(),
    ).toEqual(expect.arrayContaining(['trades_by_status', 'trades_by_webhook_status']));
    after.close();
  });
});
