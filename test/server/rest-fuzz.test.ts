import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import {
  balanceHistoryQuerySchema,
  balanceSchema,
  buyByNameRequestSchema,
  buyRequestSchema,
  catalogEnvelopeSchema,
  tradeHistoryQuerySchema,
} from '../../src/shared/api';
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

/** Printable header text (what fetch lets through). */
const headerText = (maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'abcXYZ019 _-.,;:/=+*?()<>@"\'[]{}'.split('')), maxLength });

/** A media type that is not JSON: fastify's JSON parser must not take it, so the answer is a 400. */
const notJson = (contentType: string) => !/^\s*application\/json\s*(;|$)/i.test(contentType);

type Answer = { status: number; body: unknown };

describe('sandbox REST: malformed input always gets a 400 envelope and changes nothing', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;
  let api: ReturnType<typeof merchantApi>;
  let item: Item;
  let calls = 0;
  let catalogCalls = 0;
  let buyBody: Record<string, unknown>;
  let byNameBody: Record<string, unknown>;

  /** Keeps the fuzzing under the 300/min limit by moving the test clock past the window. */
  async function paced<T>(call: () => Promise<T>): Promise<T> {
    if (++calls % 250 === 0) await admin.advance(61);
    return call();
  }

  /** The same for GetAllItemsOnSale (10/min). */
  async function pacedCatalog<T>(call: () => Promise<T>): Promise<T> {
    if (++catalogCalls % 9 === 0) await admin.advance(61);
    return call();
  }

  /** Everything a request could change: balances, ledger, trades, the on-sale list and its prices. */
  function state() {
    const db = sb.core.db;
    const row = (sql: string) => db.prepare(sql).get();
    return {
      trades: row('SELECT count(*) AS n, coalesce(max(seq), 0) AS last FROM trades'),
      ledger: row('SELECT count(*) AS n, coalesce(sum(amount), 0) AS sum, coalesce(max(id), 0) AS last FROM ledger'),
      catalog: row(
        'SELECT count(*) AS n, total(price) AS value, total(item_id * price) AS weighted, total(item_id) AS ids FROM items WHERE on_sale = 1',
      ),
      items: row('SELECT count(*) AS n FROM items'),
      merchants: db.prepare('SELECT merchant_id, balance, credit_limit FROM merchants ORDER BY merchant_id').all(),
      strikes: row('SELECT count(*) AS n FROM partner_strikes'),
    };
  }

  /** Exactly the spec's 400: `invalid_request`-style envelope with both fields, no stack. */
  function expect400(answer: Answer, context: unknown): void {
    expect(answer.status, JSON.stringify(context)).toBe(400);
    expectEnvelope(answer.body, context);
  }

  function expectEnvelope(body: unknown, context: unknown): void {
    const envelope = body as Record<string, unknown>;
    expect(Object.keys(envelope).sort(), JSON.stringify(context)).toEqual(['error', 'message']);
    expect(typeof envelope.error).toBe('string');
    expect(typeof envelope.message).toBe('string');
    expect(String(envelope.message)).not.toMatch(/\n\s+at /);
  }

  /** A raw POST (fetch would refuse or rewrite some of these headers). */
  function rawPost(path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${sb.baseUrl}${path}`,
        { method: 'POST', headers: { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId, ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // left as text: the assertion shows it
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 44 });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 100_000 });
    api = merchantApi(sb, merchant);
    item = at((await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 1000 }] })).body.items);
    buyBody = { itemId: item.itemId, assetId: item.assetId, price: 1000, tradeUrl: TEST_TRADE_URL };
    byNameBody = { market_hash_name: item.market_hash_name, tradeUrl: TEST_TRADE_URL, maxPrice: 1000 };
  });
  afterAll(() => sb.close());

  it('Buy and BuyByName bodies with one field broken or missing', async () => {
    const before = state();
    const optional = ['tradeDurationSeconds', 'externalId'];
    expect(buyRequestSchema.safeParse(buyBody).success && buyByNameRequestSchema.safeParse(byNameBody).success).toBe(
      true,
    );
    const mutation = fc
      .boolean()
      .chain((useName) =>
        fc.tuple(
          fc.constant(useName),
          fc.constantFrom(...Object.keys(useName ? byNameBody : buyBody), ...optional),
          fc.option(junk, { nil: undefined }),
        ),
      );
    await fc.assert(
      fc.asyncProperty(mutation, async ([useName, key, value]) => {
        const body: Record<string, unknown> = Object.fromEntries(
          Object.entries({ ...(useName ? byNameBody : buyBody), [key]: value }).filter(([, v]) => v !== undefined),
        );
        // Only malformed bodies: leaving out an optional field, or a junk value that happens to be valid
        // (a whole-number double as maxPrice or tradeDurationSeconds, a short string as externalId), is a real buy.
        // Judged as sent: JSON turns ±Infinity into null, which is a valid externalId.
        const sent: unknown = JSON.parse(JSON.stringify(body));
        fc.pre(!(useName ? buyByNameRequestSchema : buyRequestSchema).safeParse(sent).success);
        expect400(await paced(() => api.post(useName ? '/Items/BuyByName' : '/Items/Buy', body)), body);
      }),
      { numRuns: RUNS },
    );
    expect(state()).toEqual(before);
  });

  it('arbitrary JSON and raw text on every POST endpoint', async () => {
    const before = state();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/Items/Buy', '/Items/BuyByName', '/Items/SearchItems'),
        fc.oneof(
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 200 }),
        ),
        async (path, body) => {
          const answer = await paced(() =>
            api.raw(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
          );
          // SearchItems may legitimately succeed on a valid random body; everything else must be refused.
          if (answer.status === 200) {
            expect(path).toBe('/Items/SearchItems');
            return;
          }
          expect400(answer, { path, body });
        },
      ),
      { numRuns: RUNS },
    );
    expect(state()).toEqual(before);
  });

  it('history queries: 200 exactly when the shared schema accepts them, else a 400 envelope', async () => {
    const before = state();
    const keys = fc.constantFrom(
      'tradeId',
      'status',
      'externalId',
      'webhookStatus',
      'isActive',
      'from',
      'to',
      'limit',
      'page',
      'type',
      'x',
    );
    const values = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        'true',
        'false',
        'SENT',
        'sent',
        'failed',
        'BUY COMPLETED',
        '0',
        '1',
        '500',
        '501',
        '2026-11-01T00:00:00Z',
        '2026-13-01T00:00:00Z',
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.dictionary(keys, values, { maxKeys: 4 }), async (trades, query) => {
        const path = trades ? '/Trades/History' : '/Wallet/BalanceHistory';
        const schema = trades ? tradeHistoryQuerySchema : balanceHistoryQuerySchema;
        const answer = await paced(() => api.get(`${path}?${new URLSearchParams(query).toString()}`));
        if (schema.safeParse(query).success) expect(answer.status, JSON.stringify(query)).toBe(200);
        else expect400(answer, query);
      }),
      { numRuns: RUNS },
    );
    expect(state()).toEqual(before);
  });

  it('GetAllItemsOnSale and GetBalance take no parameters: any query is a 400', async () => {
    const before = state();
    const query = fc.oneof(
      fc
        .dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }), { minKeys: 1, maxKeys: 3 })
        .map((q) => new URLSearchParams(q).toString()),
      fc.constantFrom(
        'x',
        'x=',
        '=x',
        'limit=10',
        'page=1',
        'isActive=true',
        'a=1&a=2',
        '__proto__=1',
        'constructor=x',
        'toString=1',
        '%00=1',
        'a[b]=c',
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), query, async (catalog, search) => {
        const answer = catalog
          ? await pacedCatalog(() => api.get(`/Items/GetAllItemsOnSale?${search}`))
          : await paced(() => api.get(`/Wallet/GetBalance?${search}`));
        expect400(answer, search);
        expect((answer.body as { error: string }).error).toBe('invalid_request');
      }),
      { numRuns: 60 },
    );
    expect(state()).toEqual(before);
  });

  it('GetAllItemsOnSale and GetBalance ignore junk headers other than the credentials', async () => {
    const before = state();
    const seen = state().catalog as { n: number };
    const names = fc.constantFrom(
      'x-foo',
      'accept',
      'accept-language',
      'accept-encoding',
      'content-type',
      'cookie',
      'authorization',
      'if-none-match',
      'range',
      'x-forwarded-for',
      'x-real-ip',
      'user-agent',
      'x-no-compression',
      'cache-control',
      'x-api-keys',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.dictionary(names, headerText(30), { minKeys: 1, maxKeys: 4 }),
        async (catalog, headers) => {
          const init = { headers };
          if (catalog) {
            const answer = await pacedCatalog(() => api.raw('/Items/GetAllItemsOnSale', init));
            expect(answer.status, JSON.stringify(headers)).toBe(200);
            expect(catalogEnvelopeSchema.parse(answer.body).totalItems).toBe(seen.n);
          } else {
            const answer = await paced(() => api.raw('/Wallet/GetBalance', init));
            expect(answer.status, JSON.stringify(headers)).toBe(200);
            expect(balanceSchema.parse(answer.body)).toEqual({
              balance: 100_000,
              credit_limit: 0,
              total_available: 100_000,
            });
          }
        },
      ),
      { numRuns: 60 },
    );
    expect(state()).toEqual(before);
  });

  it('a valid buy body with a Content-Type other than JSON is a 400 and buys nothing', async () => {
    const before = state();
    const contentType = fc.oneof(
      fc.constantFrom(
        'text/plain',
        'text/json',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
        'application/jsonx',
        'application/problem+json',
        'application/*',
        '*/*',
        'json',
        ';',
      ),
      headerText(40).filter(notJson),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/Items/Buy', '/Items/BuyByName', '/Items/SearchItems'),
        contentType,
        async (path, type) => {
          const body =
            path === '/Items/Buy' ? buyBody : path === '/Items/BuyByName' ? byNameBody : { itemId: [item.itemId] };
          const headers: Record<string, string> = type === '' ? {} : { 'content-type': type };
          const answer = await paced(() => rawPost(path, headers, Buffer.from(JSON.stringify(body))));
          expect400(answer, { path, type });
          expect((answer.body as { message: string }).message).toBe('Content-Type must be application/json');
        },
      ),
      { numRuns: RUNS },
    );
    expect(state()).toEqual(before);
  });

  it('a Content-Encoding that is unknown, or does not match the body, is a 400 and buys nothing', async () => {
    const before = state();
    const encoding = fc.oneof(
      // Declared but not applied: the body is plain JSON.
      fc.constantFrom('gzip', 'deflate', 'br').map((name) => ({ name, known: true })),
      fc
        .oneof(
          fc.constantFrom('x-junk', 'GZIP', 'gzip, gzip', 'compress', 'zstd', 'identity, gzip', '*'),
          headerText(20),
        )
        .filter((name) => !['', 'identity', 'gzip', 'deflate', 'br'].includes(name.trim()))
        .map((name) => ({ name, known: false })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/Items/Buy', '/Items/BuyByName'), encoding, async (path, { name, known }) => {
        const body = Buffer.from(JSON.stringify(path === '/Items/Buy' ? buyBody : byNameBody));
        const answer = await paced(() =>
          rawPost(path, { 'content-type': 'application/json', 'content-encoding': name }, body),
        );
        expect400(answer, { path, name });
        expect((answer.body as { message: string }).message).toMatch(
          known ? /could not be decompressed/ : /^Unsupported Content-Encoding: /,
        );
      }),
      { numRuns: 60 },
    );
    expect(state()).toEqual(before);
  });

  it.each(['/Items/Buy', '/Items/BuyByName'])(
    'refuses an oversized body on %s with a 413 envelope, also gzipped',
    async (path) => {
      const before = state();
      const base = path === '/Items/Buy' ? buyBody : byNameBody;
      const huge = Buffer.from(JSON.stringify({ ...base, externalId: 'x'.repeat(2 * 1024 * 1024) }));
      const expected = { error: 'payload_too_large', message: 'Request body exceeds 1048576 bytes' };
      const plain = await paced(() => rawPost(path, { 'content-type': 'application/json' }, huge));
      expect(plain).toEqual({ status: 413, body: expected });
      // Small on the wire, too large once inflated.
      const bomb = gzipSync(huge);
      expect(bomb.length).toBeLessThan(10_000);
      const inflated = await paced(() =>
        rawPost(path, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, bomb),
      );
      expect(inflated).toEqual({ status: 413, body: expected });
      expect(state()).toEqual(before);
    },
  );

  it('credential headers of any printable shape get a 401 envelope', async () => {
    const printable = fc.string({ unit: fc.constantFrom(...'abcXYZ019_-.:/+= '.split('')), maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(printable, printable, async (key, merchantId) => {
        const response = await fetch(`${sb.baseUrl}/Wallet/GetBalance`, {
          headers: { 'x-api-key': key, 'x-merchant-id': merchantId },
        });
        expect(response.status).toBe(401);
        expectEnvelope(await response.json(), { key, merchantId });
      }),
      { numRuns: 60 },
    );
  });

  it('a well-formed gzip request body is accepted (the encodings above are refused for being wrong, not for being compressed)', async () => {
    const answer = await paced(() =>
      rawPost(
        '/Items/SearchItems',
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        gzipSync(JSON.stringify({ itemId: [item.itemId] })),
      ),
    );
    expect(answer.status).toBe(200);
    expect(catalogEnvelopeSchema.parse(answer.body).items.map((i) => i.itemId)).toEqual([item.itemId]);
  });
});
