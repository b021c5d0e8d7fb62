import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../src/shared/api';
import { DEFAULT_BULK_SHARE_PERCENT } from '../../src/shared/requestBudget';
import { busyMerchantBehindProxy } from '../support/engineOnSandbox';
import type { SeenRequest } from '../support/faultProxy';
import { startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';

/**
 * The benchmarks' raised limits on the desk's side (EngineOptions.testRateLimitScale, the web host's
 * `--test-rate-limit-scale`): against a sandbox raised alike, the first back-fill pages past the default bulk share
 * within one window (at the spec's limits it waits for the window after 150), and the server never answers 429.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SCALE = 2;
const DEFAULT_SHARE = Math.floor((RATE_LIMITS.default * DEFAULT_BULK_SHARE_PERCENT) / 100);

/** The back-fill's and the ledger sync's pages (bulk work). */
const paging = (r: SeenRequest) =>
  (r.path.startsWith('/Trades/History?') && !r.path.includes('tradeId=')) ||
  r.path.startsWith('/Wallet/BalanceHistory');

describe('the engine with a test rate-limit scale', () => {
  it('pages more than the default share in one window, without a 429', async () => {
    // 28,000 trades ending 15 days ago (none in the isActive window): 56 history pages and ~112 ledger pages.
    const { proxy, launch } = await busyMerchantBehindProxy(
      'engine-rate-scale-',
      {
        items: 100,
        seed: 34,
        rateLimitScale: SCALE,
        busyMerchant: {
          days: 8,
          tradesPerDay: 3_500,
          recipients: 400,
          endAt: new Date(Date.now() - 15 * 24 * 3600_000).toISOString(),
        },
      },
      cleanups,
    );
    const app = await launch({ testRateLimitScale: SCALE });
    expect((await app.call('app.snapshot')).rateLimit.defaultLimit).toBe(RATE_LIMITS.default * SCALE);

    const pages = () => proxy.requests.filter(paging);
    // Well inside one window from the first page: at the spec's limits the 151st page waits for the window to slide.
    await waitFor(() => pages().length > DEFAULT_SHARE, 45_000, `more than ${DEFAULT_SHARE} pages`);
    const seen = pages();
    const first = seen[0] as SeenRequest;
    const inFirstWindow = seen.filter((r) => r.at - first.at < 60_000);
    expect(inFirstWindow.length).toBeGreaterThan(DEFAULT_SHARE);
    expect(proxy.requests.filter((r) => r.status === 429)).toEqual([]);
  }, 90_000);

  it('refuses a scale that is not a whole number from 1 to 1000', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engine-rate-scale-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const account = { baseUrl: 'http://127.0.0.1:9', wsUrl: 'ws://127.0.0.1:9/ws', merchantId: 'm', apiKey: 'k' };
    for (const scale of [0, 2.5]) {
      await expect(startEngine(dataDir, account, { start: false, testRateLimitScale: scale })).rejects.toThrow(
        `The test rate-limit scale must be a whole number from 1 to 1000, got ${scale}`,
      );
    }
  });
});
