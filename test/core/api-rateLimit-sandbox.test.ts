import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { MerchantApiClient } from '../../src/main/core/api/client';
import { ApiRequestError } from '../../src/main/core/api/errors';
import { ClientRateLimiter, type LimiterTimers } from '../../src/main/core/api/rateLimiter';
import type { TimerHandle } from '../../src/server/clock';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { FaultProxy } from '../support/faultProxy';
import { adminApi, merchantApi, TEST_TRADE_URL, type MerchantCredentials } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

/**
 * The client against the sandbox's real 300-a-minute window, without minutes of real time: the app's
 * limiter reads the sandbox's test clock and sets its timers on it, so `POST /admin/clock/advance` moves
 * both sides' windows together, and a request that waits on the way (a held proxy) waits in clock time.
 */
describe('the client never trips the 300/min limit (sandbox, test clock)', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;

  beforeAll(async () => {
    sb = await startSandbox({ items: 50 });
    admin = adminApi(sb);
  });
  afterAll(async () => {
    await sb.close();
  });

  function limiterOnSandboxClock(): ClientRateLimiter {
    const clock = sb.core.clock;
    const timers: LimiterTimers = {
      setTimeout: (callback, ms) => clock.scheduleIn(ms, 'app rate limiter', callback),
      clearTimeout: (handle) => (handle as TimerHandle).cancel(),
    };
    return new ClientRateLimiter({ now: () => clock.now(), timers });
  }

  /** Every call's outcome: 'ok', or the status of its ApiRequestError. */
  function outcomes(calls: Promise<unknown>[]): { done: () => boolean; results: (string | number)[] } {
    const results: (string | number)[] = [];
    for (const call of calls) {
      call.then(
        () => results.push('ok'),
        (error: unknown) =>
          results.push(error instanceof ApiRequestError ? (error.status ?? error.code) : String(error)),
      );
    }
    return { done: () => results.length === calls.length, results };
  }

  /** Moves the sandbox clock on, `stepSeconds` at a time, until every call of the burst has its answer. */
  async function advanceUntilAnswered(
    burst: ReturnType<typeof outcomes>,
    stepSeconds = 5,
    maxSeconds = 180,
  ): Promise<void> {
    for (let moved = 0; !burst.done(); moved += stepSeconds) {
      if (moved > maxSeconds)
        throw new Error(`burst still waiting after ${maxSeconds} s of clock time: ${burst.results.length} answered`);
      await admin.advance(stepSeconds);
      await waitFor(() => burst.done(), 300).catch(() => undefined);
    }
  }

  it('two minutes of 300-request bursts 60 s apart, with every socket busy for 30 s: zero 429s', async () => {
    const merchant: MerchantCredentials = await admin.createMerchant({ balance: 1_000 });
    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    try {
      const client = new MerchantApiClient(
        { baseUrl: proxy.baseUrl, ...merchant },
        { limiter: limiterOnSandboxClock() },
      );

      // Burst 1: all 300 granted at once; 16 sockets' worth reach the proxy, which holds them for 30 s of
      // clock time, so the other 284 wait for a socket.
      proxy.holdRequests();
      const first = outcomes(Array.from({ length: 300 }, () => client.getBalance()));
      await waitFor(() => proxy.count('/Wallet/GetBalance') >= 16);
      await admin.advance(30);
      proxy.releaseRequests();
      await waitFor(() => first.done());
      expect(first.results.filter((result) => result !== 'ok')).toEqual([]);

      // Burst 2, 60 s (and a margin) after burst 1 was granted: the server still counts burst 1 (it saw it
      // 30 s late), so the client must wait for the server's window, not its own grant times.
      await admin.advance(30.5);
      const second = outcomes(Array.from({ length: 300 }, () => client.getBalance()));
      await advanceUntilAnswered(second);
      expect(second.results.filter((result) => result !== 'ok')).toEqual([]);

      // Burst 3, two minutes after the first.
      await admin.advance(Math.max(0, 120 - 61));
      const third = outcomes(Array.from({ length: 300 }, () => client.getBalance()));
      await advanceUntilAnswered(third);
      expect(third.results.filter((result) => result !== 'ok')).toEqual([]);
      expect(proxy.count('/Wallet/GetBalance')).toBe(900);
    } finally {
      await proxy.close();
    }
  });

  it("follows the server's X-RateLimit-Remaining: another program's 250 requests leave this app 50, not 300", async () => {
    const merchant: MerchantCredentials = await admin.createMerchant({ balance: 1_000 });
    const elsewhere = merchantApi(sb, merchant);
    const foreign = await Promise.all(Array.from({ length: 250 }, () => elsewhere.get('/Wallet/GetBalance')));
    expect(foreign.every((answer) => answer.status === 200)).toBe(true);

    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    try {
      const client = new MerchantApiClient(
        { baseUrl: proxy.baseUrl, ...merchant },
        { limiter: limiterOnSandboxClock() },
      );
      await client.getBalance(); // its answer says 49 remain
      const burst = outcomes(Array.from({ length: 100 }, () => client.getBalance()));
      await waitFor(() => burst.results.length >= 49);
      expect(burst.results).toEqual(Array.from({ length: 49 }, () => 'ok'));
      expect(client.limiter.status().defaultRemaining).toBe(0);
      await advanceUntilAnswered(burst);
      expect(burst.results.filter((result) => result !== 'ok')).toEqual([]);
      expect(proxy.count('/Wallet/GetBalance')).toBe(101);
    } finally {
      await proxy.close();
    }
  });
  it('holds bulk pages to half the window less a live reserve (at a proxy); a live read and a buy go out past them', async () => {
    const merchant: MerchantCredentials = await admin.createMerchant({ balance: 100_000 });
    const listed = await admin.post<{ items: Item[] }>('/admin/items', {
      items: [{ itemId: 9_100_001, market_hash_name: 'P250 | Sand Dune (Field-Tested)', price: 25 }],
    });
    const item = listed.body.items[0];
    if (!item) throw new Error(`no item listed: ${JSON.stringify(listed.body)}`);
    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    try {
      const client = new MerchantApiClient(
        { baseUrl: proxy.baseUrl, ...merchant },
        { limiter: limiterOnSandboxClock() },
      );
      const pages = outcomes(
        Array.from({ length: 200 }, (_, i) => client.tradeHistory({ page: i + 1, limit: 10 }, { slot: 'bulk' })),
      );
      await waitFor(() => pages.results.length >= 135);
      expect(proxy.count('/Trades/History')).toBe(135);
      expect(client.limiter.queued('default')).toBe(65);
      // A read a feed frame asks for takes the reserve at once.
      await client.tradeHistory({ page: 1, limit: 10 }, { slot: 'live' });
      expect(proxy.count('/Trades/History')).toBe(136);

      const bought = await client.buy({
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: TEST_TRADE_URL,
        externalId: 'BULK-PRIORITY-1',
      });
      expect(bought.tradeId).toEqual(expect.any(String));
      // The buy went out while the bulk pages still waited for the window: it never queued behind them.
      expect(client.limiter.queued('default')).toBe(65);
      expect(proxy.count('/Trades/History')).toBe(136);

      await advanceUntilAnswered(pages);
      expect(pages.results.filter((result) => result !== 'ok')).toEqual([]);
      expect(proxy.count('/Trades/History')).toBe(201);
    } finally {
      await proxy.close();
    }
  });
});
