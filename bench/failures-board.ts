/**
 * The failures board's first screen (Operations → Failures) at a busy merchant's volume: a store with 14 days at
 * 10,000 trades a day (140,000) and with a year of it (3,650,000), the same stores busy-queries fills
 * (bench/lib/busyStore.ts). Timed two ways, p95 over every call:
 *  - in the reader: failureRows (the day roll-up over the range, the last day's hours from the index range);
 *  - end to end: operations.failures (the last 30 days, and the whole year) over the built web host's bridge from a
 *    Chromium page: what the section waits for.
 * Baseline, same file: the same counts grouped from the trades themselves (what the board costs without its roll-up).
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { FAILURE_STATUSES } from '../src/main/core/store/schema';
import { failureRows } from '../src/main/core/store/worker/failuresQuery';
import { RecordsReader } from '../src/main/core/store/worker/recordsReader';
import { BUSY_STORE_END_MS, busyAccount, busyStoreSpec } from './lib/busyStore';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, runCount, summaryLine, writeResult } from './lib/result';
import { scratchDir, startBenchSandbox } from './lib/sandbox';
import { median, percentile, round, summarize } from './lib/stats';
import { ensureFreshRenderer, FIRST_ROW, launchChromium, spawnWebHost } from './lib/webHost';
import { timeBridgeCalls } from './lib/bridgeTiming';

const machine = machineInfo();
const log = (line: string) => console.log(`[failures-board] ${line}`);
const REPS = runCount(20, 5);
const BRIDGE_REPS = runCount(20, 5);
const CATALOG_ITEMS = 2_000;
const END_MS = BUSY_STORE_END_MS;
const DAY_MS = 86_400_000;
const SIZES: { label: string; days: number }[] = [
  { label: '140k', days: 14 },
  ...(isQuick() ? [] : [{ label: 'year', days: 365 }]),
];
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const LAST_DAY = day(END_MS - 1);
const RANGES: { label: string; from: string; to: string }[] = [
  { label: 'last 30 days', from: day(END_MS - 30 * DAY_MS), to: LAST_DAY },
  { label: 'a year', from: day(END_MS - 365 * DAY_MS), to: LAST_DAY },
];

/** The same counts from the trades themselves (no roll-up). */
function baselineRows(db: Database.Database, from: string, to: string): unknown[] {
  return db
    .prepare(
      `SELECT substr(createdAt, 1, 10) AS at, status, coalesce(errorCode, 0) AS errorCode, count(*), sum(price)
       FROM trades WHERE status IN (${FAILURE_STATUSES.map(() => '?').join(', ')}) AND createdAt >= ? AND createdAt < ?
       GROUP BY 1, 2, 3`,
    )
    .all(...FAILURE_STATUSES, from, `${to}U`);
}

const metrics: Record<string, ReturnType<typeof summarize>> = {};
const checks: { text: string; metric: string; stat: 'p95'; op: '<='; value: number }[] = [];
const perCall: Record<string, unknown>[] = [];
const baselineAll: number[] = [];
const oursAll: number[] = [];

await ensureFreshRenderer(log);
for (const size of SIZES) {
  const spec = busyStoreSpec(size.days);
  const sandbox = await startBenchSandbox(CATALOG_ITEMS);
  const dataDir = scratchDir(`failures-board-${size.label}`);
  try {
    const { merchant, file } = await busyAccount(sandbox.sb, dataDir, spec, log);

    const db = new Database(file, { readonly: true });
    db.pragma('cache_size = -32768');
    const reader = new RecordsReader(db);
    const inReader: number[] = [];
    const baseline: number[] = [];
    for (const range of RANGES) {
      const ask = () => failureRows(reader.prepare, { fromDay: range.from, toDay: range.to, hoursDay: LAST_DAY });
      ask();
      const times: number[] = [];
      for (let rep = 0; rep < REPS; rep++) {
        const started = performance.now();
        ask();
        times.push(performance.now() - started);
      }
      const started = performance.now();
      baselineRows(db, range.from, range.to);
      const baselineMs = performance.now() - started;
      inReader.push(...times);
      baseline.push(baselineMs);
      perCall.push({
        size: size.label,
        range: range.label,
        readerMedianMs: round(median(times)),
        baselineMs: round(baselineMs),
      });
    }
    db.close();

    const browser = await launchChromium();
    const host = await spawnWebHost({ baseUrl: sandbox.sb.baseUrl, wsUrl: sandbox.sb.wsUrl, dataDir, merchant });
    const bridge: number[] = [];
    try {
      const context = await browser.newContext();
      await context.addInitScript('window.__name = (fn) => fn;');
      const page = await context.newPage();
      await page.goto(host.url);
      await page.waitForSelector(FIRST_ROW, { timeout: 180_000 });
      await page.waitForTimeout(5000);
      const times = await timeBridgeCalls(
        page,
        RANGES.map((r) => ({ method: 'operations.failures', input: { from: r.from, to: r.to } })),
        BRIDGE_REPS,
      );
      times.forEach((list, i) => {
        bridge.push(...list);
        const row = perCall.find((p) => p.size === size.label && p.range === RANGES[i]?.label);
        if (row) row.bridgeMedianMs = round(median(list));
      });
    } finally {
      await host.stop();
      await browser.close();
    }
    log(
      `${size.label}: reader p95 ${round(percentile(inReader, 95))} ms, bridge p95 ${round(percentile(bridge, 95))} ms, baseline ${baseline.map(round).join(' / ')} ms`,
    );
    metrics[`reader_${size.label}_ms`] = summarize(inReader, 'ms', { p95: true });
    metrics[`bridge_${size.label}_ms`] = summarize(bridge, 'ms', { p95: true, p99: true });
    metrics[`baseline_${size.label}_ms`] = summarize(baseline, 'ms', { p95: true });
    checks.push({
      text: `p95 through the bridge, ${size.label}`,
      metric: `bridge_${size.label}_ms`,
      stat: 'p95',
      op: '<=',
      value: 50,
    });
    baselineAll.push(...baseline);
    oursAll.push(...inReader);
  } finally {
    await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const result = buildResult({
  name: 'failures-board',
  title: 'Operations → Failures first screen (30 days and a year), 140k trades and a year (3.65M)',
  machine,
  runs: REPS,
  metrics,
  baseline: {
    what: 'the same counts grouped from the trades (no roll-up), in the reader, same files',
    median: median(baselineAll),
    unit: 'ms',
  },
  ratio: percentile(oursAll, 95) / percentile(baselineAll, 95),
  ratioMeaning: 'p95 ours ÷ p95 baseline, in the reader',
  targetText: 'p95 ≤ 50 ms through the bridge with a year of trades',
  checks,
  notes: [
    `${RANGES.map((r) => r.label).join(' and ')}; ${REPS} reps in the reader after a warm-up, ${BRIDGE_REPS} through the bridge, the baseline once per range.`,
    'bridge_*: operations.failures over the web bridge’s WebSocket from a Chromium page of the built web host on a copy of the store (validation, engine, reader worker, back). Its "today" is the real day, so its hours come from an empty index range; the reader timing asks the store’s last (full) day.',
  ],
  details: { perCall },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
