/**
 * Export all trades to CSV with a year of a busy merchant cached: the operations benchmarks' year store (3.65M
 * trades, 10,000 a day over 5,000 recipients; filled once into bench/.cache, ~25 minutes, then copied) opened by a new
 * web host. One export through the page's bridge, `trades.query` round trips made meanwhile, the host's RSS sampled.
 * The issue's target at a year is that it completes (busy-export measures the rate at 140,000 trades).
 *
 * Baseline, same run, same file: the time to read every trade of the file in the export's order (createdAt, tradeId)
 * on a read-only connection in this process, nothing formatted or written: what no export can beat.
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { busyAccount, busyStoreSpec } from './lib/busyStore';
import { exportsInPage, openExportPage } from './lib/exportProbe';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, summaryLine, writeResult } from './lib/result';
import { sampleRss } from './lib/rss';
import { scratchDir, startBenchSandbox } from './lib/sandbox';
import { max, round, summarize } from './lib/stats';
import { ensureFreshRenderer, launchChromium, spawnWebHost } from './lib/webHost';

const DAYS = isQuick() ? 14 : 365;
const ITEMS = 2000;
const machine = machineInfo();
const log = (line: string) => console.log(`[busy-export-year] ${line}`);

await ensureFreshRenderer(log);
const sandbox = await startBenchSandbox(ITEMS);
const dataDir = scratchDir('busy-export-year');
const browser = await launchChromium();
let trades = 0;
let baselineMs = Number.NaN;
let peakRssMB = Number.NaN;
let exported: Awaited<ReturnType<typeof exportsInPage>>['out'][number] | undefined;
let fileMB = Number.NaN;
try {
  const { merchant, file } = await busyAccount(sandbox.sb, dataDir, busyStoreSpec(DAYS), log);
  const db = new Database(file, { readonly: true });
  try {
    trades = db.prepare('SELECT count(*) FROM trades').pluck().get() as number;
    const started = performance.now();
    let read = 0;
    for (const _row of db.prepare('SELECT * FROM trades ORDER BY createdAt, tradeId').raw().iterate()) read++;
    baselineMs = performance.now() - started;
    log(`baseline: ${read.toLocaleString('en-US')} trades read in export order in ${round(baselineMs / 1000, 1)} s`);
  } finally {
    db.close();
  }
  const host = await spawnWebHost({ baseUrl: sandbox.sb.baseUrl, wsUrl: sandbox.sb.wsUrl, dataDir, merchant });
  const rss = sampleRss(host.child.pid as number);
  try {
    const page = await openExportPage(browser, host.url);
    [exported] = (await exportsInPage(page, 1, true, 20)).out;
  } finally {
    peakRssMB = rss.stop().peakMB;
    await host.stop();
  }
  if (!exported) throw new Error('the export gave no result');
  fileMB = statSync(join(dataDir, 'exports', exported.filename)).size / 1e6;
  log(
    `export: ${exported.rows.toLocaleString('en-US')} of ${trades.toLocaleString('en-US')} trades in ${round(exported.ms / 1000, 1)} s (${round(fileMB)} MB); ${exported.calls.length} queries meanwhile, max ${round(max(exported.calls))} ms; largest frame ${exported.largestFrame} bytes; host peak RSS ${round(peakRssMB)} MB`,
  );
} finally {
  await browser.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const result = buildResult({
  name: 'busy-export-year',
  title: `export every trade to CSV through the bridge with ${DAYS === 365 ? 'a year (3.65M trades)' : `${DAYS} days`} cached`,
  machine,
  runs: 1,
  metrics: {
    export_s: summarize([exported.ms / 1000], 's'),
    export_rows_per_s: summarize([exported.rows / (exported.ms / 1000)], 'rows/s'),
    rows_not_exported: summarize([trades - exported.rows], 'rows'),
    query_during_export_ms: summarize(exported.calls, 'ms', { p95: true, p99: true }),
    largest_frame_bytes: summarize([exported.largestFrame], 'bytes'),
    peak_rss_mb: summarize([peakRssMB], 'MB'),
    baseline_read_s: summarize([baselineMs / 1000], 's'),
  },
  baseline: {
    what: "every trade of the same file read in the export's order on a read-only connection in-process, nothing formatted or written",
    median: baselineMs / 1000,
    unit: 's',
  },
  ratio: exported.ms / baselineMs,
  ratioMeaning: 'export time through the bridge ÷ the bare read of the same rows in the same order',
  targetText: 'a year (3.65M trades): the export completes with every trade; no bridge frame over 1 MB',
  checks: [
    { text: 'every trade exported', metric: 'rows_not_exported', stat: 'max', op: '<=', value: 0 },
    { text: 'largest bridge frame', metric: 'largest_frame_bytes', stat: 'max', op: '<=', value: 1_000_000 },
  ],
  notes: [
    `A copy of the year store the operations benchmarks use (${trades.toLocaleString('en-US')} trades), opened by the built web host (out/main/web.js) with a ${ITEMS}-item sandbox; one export of every trade, the file ${round(fileMB)} MB.`,
    "export_s: from sending trades.exportCsv over the page's bridge socket to the exports event saying done (the file written and renamed). query_during_export_ms: trades.query (offset 100, limit 50) round trips made one after another from the same page while it ran.",
    'peak_rss_mb: the host process (its store threads inside it), sampled every 50 ms from its spawn to its stop.',
  ],
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
