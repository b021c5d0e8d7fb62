/**
 * Child process of event-loop-lag: the real Engine as a host runs it (feed,
 * reconcile, history back-fill, batcher) signed in to the sandbox in the parent.
 * The engine starts a full catalog sync by itself (empty cache); the host
 * thread's event-loop delay is recorded from engine start until that sync is
 * committed and the catalog index is ready. Then, on the parent's 'go' (after it
 * changed 2% of prices), a manual refresh re-syncs, recorded the same way.
 *
 * env: BENCH_BASE_URL, BENCH_WS_URL, BENCH_MERCHANT (JSON)
 */
import { rmSync } from 'node:fs';
import { childMain, toParent } from './child';
import { LagMonitor } from './lag';
import { peakRssMB } from './rss';
import { scratchDir, startEngine, waitFor, type MerchantCredentials } from './sandbox';

childMain(async () => {
  const dataDir = scratchDir('engine');
  let syncs = 0;
  const onLog = (line: string) => {
    if (line.startsWith('catalog sync (')) syncs++;
    if (/sync.*(fail|error)/i.test(line)) console.error(`[engine] ${line}`);
  };
  const lag = new LagMonitor().start();
  const started = performance.now();
  const running = await startEngine({
    dataDir,
    baseUrl: process.env['BENCH_BASE_URL'] as string,
    wsUrl: process.env['BENCH_WS_URL'] as string,
    merchant: JSON.parse(process.env['BENCH_MERCHANT'] as string) as MerchantCredentials,
    log: onLog,
  });
  try {
    const session = () => {
      const s = running.engine.accountSession;
      if (!s) throw new Error('no session');
      return s;
    };
    await waitFor(() => syncs >= 1, 300_000, 'the first catalog sync', 5);
    await session().store.queryCatalog({ limit: 1 });
    const full = { ...lag.stop(), totalMs: Math.round(performance.now() - started) };
    await toParent({ type: 'synced', full });
    await new Promise<void>((resolve) => process.once('message', () => resolve()));
    const lag2 = new LagMonitor().start();
    const started2 = performance.now();
    await running.engine.handle('catalog.refresh', {} as never);
    await waitFor(() => syncs >= 2, 300_000, 'the re-sync', 5);
    await session().store.queryCatalog({ limit: 1 });
    const resync = { ...lag2.stop(), totalMs: Math.round(performance.now() - started2) };
    return {
      full,
      resync,
      peakRssMB: peakRssMB(),
      syncLines: running.logs.filter((l) => l.startsWith('catalog sync')),
    };
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
