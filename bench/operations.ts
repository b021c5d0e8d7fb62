/**
 * The Operations screen's first screens at a busy merchant's volume: a store filled with a year at 10,000 trades a day
 * (3,650,000 trades over 5,000 recipients, their ledger; `--quick`: 14 days), and each view's first read timed end to
 * end: the built web host (engine + bridge) on a copy of the store, the call made from a Chromium page over the web
 * bridge's protocol, p95 over every call. Views: Recipients (its first page, "needs attention", by value, by last
 * trade), Reversals, Webhook health and the balance runway.
 * Baseline, same file: the Recipients page as one GROUP BY partner over every trade (what the roll-up replaces).
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { busyAccount, type BusyStoreSpec } from './lib/busyStore';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, runCount, summaryLine, writeResult } from './lib/result';
import { scratchDir, startBenchSandbox } from './lib/sandbox';
import { median, percentile, round, summarize } from './lib/stats';
import { ensureFreshRenderer, FIRST_ROW, launchChromium, spawnWebHost } from './lib/webHost';
import { timeBridgeCalls } from './lib/bridgeTiming';

const machine = machineInfo();
const log = (line: string) => console.log(`[operations] ${line}`);
const REPS = runCount(20, 5);
const BASELINE_REPS = runCount(3, 1);
const CATALOG_ITEMS = 2_000;
const END_MS = Date.parse('2026-11-29T00:00:00.000Z');
const TARGET_MS = 50;
const DAYS = isQuick() ? 14 : 365;

const CALLS: { view: string; method: string; input: Record<string, unknown> }[] = [
  { view: 'recipients first page', method: 'operations.recipients', input: {} },
  { view: 'recipients needing attention', method: 'operations.recipients', input: { only: 'attention' } },
  { view: 'recipients by value', method: 'operations.recipients', input: { sort: 'value' } },
  { view: 'recipients by last trade', method: 'operations.recipients', input: { sort: 'lastAt' } },
  { view: 'reversals', method: 'operations.reversals', input: {} },
  { view: 'webhook health', method: 'operations.webhookHealth', input: {} },
  { view: 'runway', method: 'operations.runway', input: {} },
];

/** The Recipients page without the roll-up: every trade grouped by partner. */
const NAIVE = `SELECT partner, count(*) AS trades, sum(status IN ('PENDING', 'SENT', 'CREATING')) AS active,
  sum(status = 'COMPLETED') AS delivered, sum(status IN ('CANCELLED', 'EXPIRED', 'FAILED', 'REJECTED')) AS cancelled,
  sum(status = 'REVERSED') AS reversed, sum(iif(status = 'COMPLETED', price, 0)) AS value
  FROM trades WHERE partner IS NOT NULL GROUP BY partner ORDER BY active DESC, partner DESC LIMIT 50`;

await ensureFreshRenderer(log);
const spec: BusyStoreSpec = { days: DAYS, tradesPerDay: 10_000, recipients: 5_000, endMs: END_MS };
const sandbox = await startBenchSandbox(CATALOG_ITEMS);
const dataDir = scratchDir('operations');
const byCall = CALLS.map(() => [] as number[]);
const baseline: number[] = [];
try {
  const { merchant, file } = await busyAccount(sandbox.sb, dataDir, spec, log);

  const db = new Database(file, { readonly: true });
  db.pragma('cache_size = -32768');
  for (let rep = 0; rep < BASELINE_REPS; rep++) {
    const started = performance.now();
    db.prepare(NAIVE).all();
    baseline.push(performance.now() - started);
  }
  db.close();
  log(`baseline (GROUP BY partner over ${DAYS} days) median ${round(median(baseline))} ms`);

  const browser = await launchChromium();
  const host = await spawnWebHost({ baseUrl: sandbox.sb.baseUrl, wsUrl: sandbox.sb.wsUrl, dataDir, merchant });
  try {
    const context = await browser.newContext();
    await context.addInitScript('window.__name = (fn) => fn;');
    const page = await context.newPage();
    await page.goto(host.url);
    await page.waitForSelector(FIRST_ROW, { timeout: 180_000 });
    // Past the start-up (catalog sync, the first reconcile): the views as an operator opens them.
    await page.waitForTimeout(5000);
    // The first open of each view is timed too: it is what the operator waits for.
    const times = await timeBridgeCalls(page, CALLS, REPS, false);
    times.forEach((list, i) => byCall[i]?.push(...list));
  } finally {
    await host.stop();
    await browser.close();
  }
} finally {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const all = byCall.flat();
const recipients = byCall.filter((_, i) => CALLS[i]?.method === 'operations.recipients').flat();
const label = DAYS === 365 ? 'year' : `${DAYS}d`;
const perView = CALLS.map((c, i) => ({
  view: c.view,
  method: c.method,
  p95Ms: round(percentile(byCall[i] ?? [], 95)),
  medianMs: round(median(byCall[i] ?? [])),
  firstMs: round(byCall[i]?.[0] ?? Number.NaN),
}));
for (const row of perView)
  log(
    `${row.view.padEnd(30)} p95 ${String(row.p95Ms).padStart(7)} ms  median ${row.medianMs} ms  first ${row.firstMs} ms`,
  );

const result = buildResult({
  name: 'operations',
  title: `the Operations views' first screens through the web bridge, ${DAYS === 365 ? 'a year (3.65M trades)' : `${DAYS} days`}`,
  machine,
  runs: REPS,
  metrics: {
    [`bridge_${label}_ms`]: summarize(all, 'ms', { p95: true, p99: true }),
    [`recipients_bridge_${label}_ms`]: summarize(recipients, 'ms', { p95: true }),
    [`baseline_${label}_ms`]: summarize(baseline, 'ms', { p95: true }),
  },
  baseline: {
    what: 'the Recipients page as one GROUP BY partner over every trade, read-only connection, same file',
    median: median(baseline),
    unit: 'ms',
  },
  ratio: percentile(recipients, 95) / median(baseline),
  ratioMeaning: 'p95 of the Recipients calls through the bridge ÷ median of the baseline in-process',
  targetText: `each view's first screen p95 ≤ ${TARGET_MS} ms through the bridge`,
  checks: [
    {
      text: 'p95 through the bridge, every view',
      metric: `bridge_${label}_ms`,
      stat: 'p95',
      op: '<=',
      value: TARGET_MS,
    },
  ],
  notes: [
    `${CALLS.length} calls (${CALLS.map((c) => c.view).join(', ')}) × ${REPS} reps from a Chromium page over the built web host's bridge, the first of each included.`,
    'The store is filled straight into a real store file (bench/lib/busyStore.ts: the writer’s rows, the schema’s triggers and roll-ups, recipient_totals among them), 10,000 trades a day over 5,000 recipients.',
  ],
  details: { perView },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
