import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { balanceHistoryQuerySchema, tradeHistoryQuerySchema } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, at, merchantApi } from '../support/sandboxHttp';

const RUNS = 120;

/** Values that are not what any field of the buy bodies accepts at its place. */
const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double({ noNaN: false }),
  fc.string({ maxLength: 20 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);

describe('sandbox REST: malformed input always gets a 400 envelope and changes nothing', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let api: ReturnType<typeof merchantApi>;
  let item: Item;
  let calls = 0;

  /** Keeps the fuzzing under the 300/min limit by moving the test clock past the window. */
  async function paced<T>(call: () => Promise<T>): Promise<T> {
    if (++calls % 250 === 0) await admin.advance(61);
    return call();
  }

  async function state() {
    const core = sb.core;
    const count = (sql: string) => (core.db.prepare(sql).get() as { n: number }).n;
    return {
      trades: count('SELECT count(*) AS n FROM trades'),
      ledger: count('SELECT count(*) AS n FROM ledger'),
      onSale: count('SELECT count(*) AS n FROM items WHERE on_sale = 1'),
      balances: core.db.prepare('SELECT merchant_id, balance FROM merchants ORDER BY merchant_id').all(),
    };
  }

  function expectEnvelope(answer: { status: number; body: unknown }, context: unknown): void {
    expect(answer.status, JSON.stringify(context)).toBeLessThan(500);
    expect(answer.status, JSON.stringify(context)).toBeGreaterThanOrEqual(400);
    const body = answer.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expect(typeof body.error).toBe('string');
    expect(typeof body.message).toBe('string');
    expect(String(body.message)).not.toMatch(/\n\s+at /);
  }

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 44 });
    admin = adminApi(sb);
    const merchant: MerchantCredentials = await admin.createMerchant({ balance: 100_000 });
    api = merchantApi(sb, merchant);
    item = at((await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 1000 }] })).body.items);
  });
  afterAll(() => sb.close());

  it('Buy and BuyByName bodies with one field broken or missing', async () => {
    const before = await state();
    const buy = { itemId: item.itemId, assetId: item.assetId, price: 1000, tradeUrl: TEST_TRADE_URL };
    const byName = { market_hash_name: item.market_hash_name, tradeUrl: TEST_TRADE_URL, maxPrice: 1000 };
    const optional = ['tradeDurationSeconds', 'externalId'];
    const mutation = fc.boolean().chain((useName) =>
      fc.tuple(fc.constant(useName), fc.constantFrom(...Object.keys(useName ? byName : buy), ...optional), fc.option(junk, { nil: undefined })),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async ([useName, key, value]) => {
        // Leaving out an optional field, or giving it a valid value, is not malformed.
        fc.pre(!(optional.includes(key) && value === undefined));
        fc.pre(!(key === 'externalId' && (value === null || (typeof value === 'string' && value.length > 0 && value.length <= 128))));
        const base: Record<string, unknown> = Object.fromEntries(
          Object.entries({ ...(useName ? byName : buy), [key]: value }).filter(([, v]) => v !== undefined),
        );
        const answer = await paced(() => api.post(useName ? '/Items/BuyByName' : '/Items/Buy', base));
        expectEnvelope(answer, base);
      }),
      { numRuns: RUNS },
    );
    expect(await state()).toEqual(before);
  });

  it('arbitrary JSON and raw text on every POST endpoint', async () => {
    const before = await state();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/Items/Buy', '/Items/BuyByName', '/Items/SearchItems'),
        fc.oneof(fc.jsonValue().map((v) => JSON.stringify(v)), fc.string({ maxLength: 200 })),
        async (path, body) => {
          const answer = await paced(() => api.raw(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
          // SearchItems may legitimately succeed on a valid random body; everything else must be refused.
          if (answer.status === 200) {
            expect(path).toBe('/Items/SearchItems');
            return;
          }
          expectEnvelope(answer, { path, body });
        },
      ),
      { numRuns: RUNS },
    );
    expect(await state()).toEqual(before);
  });

  it('history queries: 200 exactly when the shared schema accepts them, else a 400 envelope', async () => {
    const keys = fc.constantFrom('tradeId', 'status', 'externalId', 'webhookStatus', 'isActive', 'from', 'to', 'limit', 'page', 'type', 'x');
    const values = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('true', 'false', 'SENT', 'sent', 'failed', 'BUY COMPLETED', '0', '1', '500', '501', '2026-11-01T00:00:00Z', '2026-13-01T00:00:00Z'),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.dictionary(keys, values, { maxKeys: 4 }), async (trades, query) => {
        const path = trades ? '/Trades/History' : '/Wallet/BalanceHistory';
        const schema = trades ? tradeHistoryQuerySchema : balanceHistoryQuerySchema;
        const answer = await paced(() => api.get(`${path}?${new URLSearchParams(query).toString()}`));
        if (schema.safeParse(query).success) expect(answer.status, JSON.stringify(query)).toBe(200);
        else expectEnvelope(answer, query);
      }),
      { numRuns: RUNS },
    );
  });

  it('credential headers of any printable shape get a 401 envelope', async () => {
    const printable = fc.string({ unit: fc.constantFrom(...'abcXYZ019_-.:/+= '.split('')), maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(printable, printable, async (key, merchantId) => {
        const response = await fetch(`${sb.baseUrl}/Wallet/GetBalance`, { headers: { 'x-api-key': key, 'x-merchant-id': merchantId } });
        expectEnvelope({ status: response.status, body: await response.json() }, { key, merchantId });
        expect(response.status).toBe(401);
      }),
      { numRuns: 60 },
    );
  });
});
