/**
 * Child process of sandbox-history: the sandbox with one merchant holding BENCH_TRADES trades created over the last
 * 14 days (written straight into its database, test/support/historyRows.ts), and a few merchants for the cheap
 * requests sent meanwhile (each merchant has 300 requests a minute).
 *
 * On {type:'baseline'} it builds the same answer the way the sandbox did before it was streamed (the whole JSON
 * text, then gzip, in one synchronous call: TradeHistory.historyBody) and reports how long that took: the time its
 * event loop was blocked.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { insertHistoryRows } from '../../test/support/historyRows';
import { childMain, parentStop, toParent, type ChildMessage } from './child';
import { scratchDir } from './sandbox';

const TRADES = Number(process.env['BENCH_TRADES'] ?? 140_000);
const PINGERS = 8;

/**
 * Paged answers (limit 500, as a back-fill asks) built in this process, in ms: the first page of a new question
 * (its count, then the page), the last page asked at once (OFFSET past every row before it), and the last page
 * right after the one before it (read from where that one ended; the count is remembered).
 */
function paging(sb: Sandbox, merchantId: string): Record<string, number> {
  const history = sb.core.trades.history;
  const time = (page: number) => {
    const t0 = performance.now();
    history.listJson(merchantId, { limit: 500, page });
    return performance.now() - t0;
  };
  const last = Math.ceil(TRADES / 500);
  const firstPageMs = time(1);
  const lastPageJumpMs = time(last);
  time(last - 1);
  const lastPageNextMs = time(last);
  return { firstPageMs, lastPageJumpMs, lastPageNextMs };
}

childMain(async () => {
  const dir = scratchDir('history');
  const sb = await startSandbox({ items: 200, seed: 3, dbFile: join(dir, 'sandbox.db') });
  try {
    const merchant = sb.core.merchants.create({ balance: 1_000_000 });
    const started = performance.now();
    insertHistoryRows(sb, merchant.merchantId, TRADES);
    const insertSeconds = (performance.now() - started) / 1000;
    sb.core.db.pragma('wal_checkpoint(TRUNCATE)');
    const pingers = Array.from({ length: PINGERS }, () => sb.core.merchants.create({}));
    process.on('message', (message: ChildMessage) => {
      if (message.type === 'paging') {
        void toParent({ type: 'paging-done', ...paging(sb, merchant.merchantId) });
        return;
      }
      if (message.type !== 'baseline') return;
      const t0 = performance.now();
      const body = sb.core.trades.history.historyBody(merchant.merchantId, { isActive: true }, true);
      void toParent({ type: 'baseline-done', blockedMs: performance.now() - t0, gzipBytes: body.length });
    });
    await toParent({
      type: 'ready',
      baseUrl: sb.baseUrl,
      merchant: { merchantId: merchant.merchantId, apiKey: merchant.apiKey },
      pingers: pingers.map((m) => ({ merchantId: m.merchantId, apiKey: m.apiKey })),
      insertSeconds,
    });
    await parentStop();
  } finally {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {};
});
