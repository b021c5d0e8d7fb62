import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Balance, BalanceHistoryPage, CatalogEnvelope, Item, TradeHistoryPage } from '../../src/shared/api';
import { RATE_LIMIT_WINDOW_MS } from '../../src/shared/api';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { seededRandom } from '../support/random';
import { adminApi, tradeUrlFor, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * The sandbox under 20 merchants at once: 20 concurrent clients, ~100 mixed
 * requests each (history, balance, ledger, search, buys by id and by name that
 * compete for the same items). Zero 5xx; each merchant sees only its own
 * trades and ledger; the accounting is exactly-once (one trade and one FREEZE
 * per successful buy, no item sold twice, every balance equal to its ledger's
 * sum and to the starting balance minus what was bought); and the limits are
 * per merchant: each merchant's 301st request in the window is a 429 while a
 * merchant below its limit is still served.
 */

const MERCHANTS = 20;
const REQUESTS_PER_MERCHANT = 100;
const START_BALANCE = 200_000;
const NAMES = 8;
const ITEMS_PER_NAME = 40;

interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  at: number;
}

interface Client extends MerchantCredentials {
  index: number;
  /** Every answer this merchant got, in order. */
  answers: Answer[];
  bought: { tradeId: string; price: number; itemId: number; externalId: string }[];
}

describe('load: 20 merchants at once', () => {
  let sb: Sandbox;
  let clients: Client[];
  let names: string[];
  let poolIds: number[];
  const prices = new Map<number, number>();

  async function send<T>(client: Client, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<T>> {
    const response = await fetch(`${sb.baseUrl}${path}`, {
      method,
      headers: {
        'x-merchant-id': client.merchantId,
        'x-api-key': client.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const answer: Answer<T> = {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : null) as T,
      at: Date.now(),
    };
    client.answers.push(answer);
    return answer;
  }

  beforeAll(async () => {
    sb = await startSandbox({ items: 20_000, seed: 51 });
    const admin = adminApi(sb);
    // Cheap items under a few shared names: buys by name and by id compete for them.
    names = (
      sb.core.db
        .prepare('SELECT DISTINCT market_hash_name FROM items WHERE on_sale = 1 LIMIT ?')
        .pluck()
        .all(NAMES) as string[]
    ).map((name) => `${name} [load]`);
    const created = await admin.post<{ items: Item[] }>('/admin/items', {
      items: names.flatMap((name, n) =>
        Array.from({ length: ITEMS_PER_NAME }, (_, i) => ({ market_hash_name: name, price: 100 + n * 10 + i })),
      ),
    });
    expect(created.status).toBe(200);
    poolIds = created.body.items.map((item) => item.itemId);
    for (const item of created.body.items) prices.set(item.itemId, item.price);
    clients = [];
    for (let index = 0; index < MERCHANTS; index++) {
      const merchant = await admin.createMerchant({
        merchantId: `load-${String(index).padStart(2, '0')}`,
        balance: START_BALANCE,
      });
      clients.push({ ...merchant, index, answers: [], bought: [] });
    }
  }, 60_000);

  afterAll(async () => {
    await sb?.close();
  });

  /** One merchant's ~100 requests, in a seeded random order, one at a time (a client's own pace). */
  async function runClient(client: Client): Promise<void> {
    const random = seededRandom(1000 + client.index);
    const kinds = [
      ...Array<string>(28).fill('history'),
      ...Array<string>(22).fill('balance'),
      ...Array<string>(10).fill('ledger'),
      ...Array<string>(20).fill('search'),
      ...Array<string>(10).fill('buyByName'),
      ...Array<string>(10).fill('buyById'),
    ].sort(() => random() - 0.5);
    expect(kinds).toHaveLength(REQUESTS_PER_MERCHANT);
    let serial = 0;
    for (const kind of kinds) {
      const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
      switch (kind) {
        case 'history':
          await send(
            client,
            'GET',
            pick([
              '/Trades/History?limit=100',
              '/Trades/History?isActive=true',
              '/Trades/History?status=PENDING&limit=20',
            ]),
          );
          break;
        case 'balance':
          await send(client, 'GET', '/Wallet/GetBalance');
          break;
        case 'ledger':
          await send(client, 'GET', '/Wallet/BalanceHistory?limit=100');
          break;
        case 'search':
          if (random() < 0.5) await send(client, 'POST', '/Items/SearchItems', { market_hash_name: [pick(names)] });
          else
            await send(client, 'POST', '/Items/SearchItems', { itemId: [pick(poolIds), pick(poolIds), pick(poolIds)] });
          break;
        case 'buyByName':
        case 'buyById': {
          const externalId = `${client.merchantId}-order-${serial++}`;
          const common = { tradeUrl: tradeUrlFor(70_000_000 + client.index), externalId };
          const answer =
            kind === 'buyByName'
              ? await send<{ tradeId: string; price: number }>(client, 'POST', '/Items/BuyByName', {
                  market_hash_name: pick(names),
                  maxPrice: 1000,
                  ...common,
                })
              : await (async () => {
                  const itemId = pick(poolIds);
                  const item = sb.core.catalog.find(itemId);
                  return send<{ tradeId: string; price: number }>(client, 'POST', '/Items/Buy', {
                    itemId,
                    assetId: item?.assetId ?? '0',
                    price: prices.get(itemId),
                    ...common,
                  });
                })();
          if (answer.status === 200) {
            const trade = answer.body;
            const itemId =
              (sb.core.db
                .prepare('SELECT item_id FROM trades WHERE trade_id = ?')
                .pluck()
                .get(trade.tradeId) as number) ?? -1;
            client.bought.push({ tradeId: trade.tradeId, price: trade.price, itemId, externalId });
          }
          break;
        }
      }
    }
  }

  it('serves 2,000 mixed requests from 20 concurrent merchants: no 5xx, isolated, exactly-once accounting', async () => {
    const started = Date.now();
    // Meanwhile a 21st merchant streams the whole on-sale list five times: each envelope must agree with itself.
    const reader: Client = {
      ...(await adminApi(sb).createMerchant({ balance: 0 })),
      index: 99,
      answers: [],
      bought: [],
    };
    const streams = (async () => {
      for (let i = 0; i < 5; i++) {
        const answer = await send<CatalogEnvelope>(reader, 'GET', '/Items/GetAllItemsOnSale');
        expect(answer.status).toBe(200);
        expect(answer.body.items).toHaveLength(answer.body.totalItems);
        expect(answer.body.items.reduce((sum, item) => sum + item.price, 0)).toBe(answer.body.totalValue);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    await Promise.all([...clients.map((client) => runClient(client)), streams]);
    const loadMs = Date.now() - started;
    const all = clients.flatMap((c) => c.answers);
    expect(all).toHaveLength(MERCHANTS * REQUESTS_PER_MERCHANT);
    const statuses = new Map<number, number>();
    for (const answer of all) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    expect(all.filter((a) => a.status >= 500).map((a) => a.status)).toEqual([]);
    // 100 requests each, far below 300 a minute: no merchant was limited.
    expect(statuses.get(429) ?? 0).toBe(0);

    // No item was sold twice, across all merchants and both buy endpoints.
    const boughtItems = clients.flatMap((c) => c.bought.map((b) => b.itemId));
    expect(new Set(boughtItems).size).toBe(boughtItems.length);
    const buys = clients.reduce((sum, c) => sum + c.bought.length, 0);
    expect(buys).toBeGreaterThan(MERCHANTS * 5);

    for (const client of clients) {
      // Isolation: the merchant's history is exactly its own successful buys.
      const history = await send<TradeHistoryPage>(client, 'GET', '/Trades/History?limit=500');
      expect(history.status).toBe(200);
      const own = new Set(client.bought.map((b) => b.tradeId));
      expect(history.body.trades.map((t) => t.tradeId).sort()).toEqual([...own].sort());
      expect(history.body.trades.every((t) => t.externalId?.startsWith(`${client.merchantId}-order-`))).toBe(true);
      // Exactly-once: one FREEZE per trade, the balance is the ledger's sum and the start minus what was bought.
      const ledger = await send<BalanceHistoryPage>(client, 'GET', '/Wallet/BalanceHistory?limit=500');
      const balance = await send<Balance>(client, 'GET', '/Wallet/GetBalance');
      const entries = ledger.body.transactions;
      expect(ledger.body.total).toBe(entries.length);
      const freezes = entries.filter((e) => e.type === 'FREEZE');
      expect(freezes.map((e) => e.tradeId).sort()).toEqual([...own].sort());
      const spent = client.bought.reduce((sum, b) => sum + b.price, 0);
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(balance.body.balance);
      expect(balance.body.balance).toBe(START_BALANCE - spent);
      for (const e of entries) expect(e.balanceAfter).toBe(e.balanceBefore + e.amount);
    }
    const codes = new Map<string, number>();
    for (const answer of all) {
      if (answer.status === 200) continue;
      const code = `${answer.status} ${(answer.body as { error?: string } | null)?.error ?? '?'}`;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    const byStatus = [...codes]
      .sort()
      .map(([code, count]) => `${code}×${count}`)
      .join(', ');
    process.stdout.write(
      `load: ${all.length} requests from ${MERCHANTS} merchants in ${loadMs} ms (${statuses.get(200)} × 200; refusals ${byStatus}) plus 5 catalog streams; ${buys} buys, ${boughtItems.length} distinct items\n`,
    );
  }, 60_000);

  it("holds the limit per merchant: each one's 301st request in the window is a 429, the others are still served", async () => {
    // The sandbox's test clock: moved one window past every earlier request, then held still for this test, so
    // each merchant's window holds exactly what this test sends however slowly the machine sends it (a window
    // that slid during a slow run would admit a 301st request; the count is never skipped).
    const frozenAt = sb.core.clock.now() + RATE_LIMIT_WINDOW_MS + 1_000;
    const clock = vi.spyOn(sb.core.clock, 'now').mockReturnValue(frozenAt);
    try {
      const limited: string[] = [];
      /** What each merchant's window holds so far: its neighbour's check below lands in it too. */
      const admitted = new Map<string, Answer[]>(clients.map((c) => [c.merchantId, []]));
      for (const [i, client] of clients.entries()) {
        const sent = admitted.get(client.merchantId) ?? [];
        const own = sent.length;
        // Refusals count too: a malformed query (400) and a buy of an item that does not exist (4xx).
        sent.push(await send(client, 'GET', '/Trades/History?limit=not-a-number'));
        sent.push(
          await send(client, 'POST', '/Items/Buy', {
            itemId: 999_999_999,
            assetId: 'x',
            price: 1,
            tradeUrl: tradeUrlFor(90_000_000 + i),
          }),
        );
        expect(sent.slice(own).map((a) => a.status >= 400 && a.status < 500 && a.status !== 429)).toEqual([true, true]);
        let refused: Answer<{ error: string }> | null = null;
        while (refused === null && sent.length < 400) {
          const batch = await Promise.all(
            Array.from({ length: 50 }, () => send<{ error: string }>(client, 'GET', '/Wallet/GetBalance')),
          );
          for (const answer of batch) {
            if (answer.status === 429) refused ??= answer;
            else if (refused === null) sent.push(answer);
            else throw new Error(`a request after the 429 was admitted: ${answer.status}`);
          }
        }
        if (!refused) throw new Error(`${client.merchantId}: no 429 after ${sent.length} requests`);
        // Exactly 300 admitted in the window (the 4xx among them), then the 429 with Retry-After.
        expect(sent).toHaveLength(300);
        expect(sent.filter((a) => a.status === 200)).toHaveLength(298);
        expect(Number(sent.at(-1)?.headers.get('x-ratelimit-remaining'))).toBe(0);
        expect(refused.body.error).toBe('rate_limited');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        limited.push(client.merchantId);
        // The next merchant is unaffected; the ones already limited stay limited.
        const next = clients[i + 1];
        if (next) {
          const served = await send(next, 'GET', '/Wallet/GetBalance');
          expect(served.status).toBe(200);
          admitted.get(next.merchantId)?.push(served);
        }
        expect((await send(client, 'GET', '/Trades/History?limit=1')).status).toBe(429);
      }
      expect(limited).toHaveLength(MERCHANTS);
      // A window later every merchant is served again.
      clock.mockReturnValue(frozenAt + RATE_LIMIT_WINDOW_MS + 1);
      expect((await send(clients[0] as Client, 'GET', '/Wallet/GetBalance')).status).toBe(200);
      process.stdout.write(
        `load: all ${MERCHANTS} merchants refused at their 301st request (test clock held still); neighbours served meanwhile\n`,
      );
    } finally {
      clock.mockRestore();
    }
  }, 60_000);

  it('closes promptly while a client holds a connection that never sent a request', async () => {
    const small = await startSandbox({ items: 20, seed: 52 });
    const socket = connect(Number(new URL(small.baseUrl).port), '127.0.0.1');
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const started = Date.now();
    await small.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    socket.destroy();
  }, 20_000);
});
