import { afterEach, describe, expect, it } from 'vitest';
import { busyMerchantBehindProxy } from '../support/engineOnSandbox';
import type { FaultProxy } from '../support/faultProxy';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';

/**
 * The minute's read of the server's failed deliveries costs what the last 14 days hold, not the whole history: a
 * merchant a year in holds tens of thousands of old failures (docs/operations.md). Every failure is read at the
 * session's start and every hour; a status, and so a delivery, changes
 * within the window but for a late reversal. On the flowing fake clock: an hour passes in a couple of minutes.
 */

const WINDOW_MS = 14 * 24 * 3600_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  useRealClock();
});

/** The first pages of the desk's reads of failed deliveries the server answered: when, and their `from`. */
function failedReads(proxy: FaultProxy): { at: number; from: string | null }[] {
  return proxy.requests.flatMap((request) => {
    if (!request.path.startsWith('/Trades/History?') || request.status !== 200) return [];
    const params = new URLSearchParams(request.path.slice(request.path.indexOf('?') + 1));
    return params.get('webhookStatus') === 'failed' && params.get('page') === '1'
      ? [{ at: request.at, from: params.get('from') }]
      : [];
  });
}

describe('the failed deliveries asked every minute', () => {
  it('reads every failure first, then each minute only those of trades created in the last 14 days, and all again an hour on', async () => {
    useFlowingFakeClock();
    const s = await busyMerchantBehindProxy(
      'engine-webhook-window-',
      { items: 40, seed: 6, busyMerchant: { days: 20, tradesPerDay: 100, recipients: 200 } },
      cleanups,
    );
    const failedOnServer = (since: number) =>
      s.sb.core.db
        .prepare("SELECT count(*) FROM trades WHERE merchant_id = ? AND webhook_status = 'failed' AND created_at >= ?")
        .pluck()
        .get(s.merchant.merchantId, since) as number;
    const app = await s.launch();
    const started = Date.now();
    // Not vacuous: failures on both sides of the 14-day line.
    const all = failedOnServer(0);
    expect(all).toBeGreaterThan(failedOnServer(started - WINDOW_MS));
    expect(failedOnServer(started - WINDOW_MS)).toBeGreaterThan(0);

    const first = await reach(() => failedReads(s.proxy)[0], 3 * 60_000, 'the first read of failed deliveries');
    expect(first.from).toBeNull();
    await reach(
      async () => (await app.call('operations.webhookHealth')).failedTotal === all,
      60_000,
      'every failure held',
    );

    await reach(() => failedReads(s.proxy).length >= 3, 4 * 60_000, 'two more minutes’ reads');
    const minutes = failedReads(s.proxy).slice(1, 3);
    for (const read of minutes) {
      expect(read.from).not.toBeNull();
      // The window as the desk's clock saw it when it asked (the proxy stamps the request a moment later).
      const windowStart = read.at - WINDOW_MS - Date.parse(read.from as string);
      expect(windowStart).toBeGreaterThanOrEqual(0);
      expect(windowStart).toBeLessThan(60_000);
    }

    const full = await reach(
      () => failedReads(s.proxy).find((read, i) => i > 0 && read.from === null),
      75 * 60_000,
      'the hour’s read of every failure',
    );
    // An hour after the first read began (its request reached the proxy a moment after).
    expect(full.at - first.at).toBeGreaterThan(59 * 60_000);
    expect(failedReads(s.proxy).filter((read) => read.at < full.at && read.from === null)).toHaveLength(1);
  }, 300_000);
});
