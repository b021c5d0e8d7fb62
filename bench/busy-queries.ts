/**
 * Trades and ledger queries at a busy merchant's volume: a store filled with 14 days at 10,000 trades a day
 * (140,000 trades over 5,000 recipients, their ledger) and with a year of it (3,650,000 trades), every filter the
 * Trades and Wallet screens offer × the first, middle and last page (50 rows, the default), and the balance chart.
 * Timed two ways, p95 over every call:
 *  - in the reader: RecordsReader on a read-only connection in this thread (what the reader worker runs);
 *  - end to end: the built web host (engine + bridge) on a copy of the store, the call made from a Chromium page
 *    over the web bridge's protocol (trades.query, wallet.ledger, wallet.balanceSeries): what the screen waits for.
 * Baseline, same run, same file: the queries as they were before schema 23 (LIMIT/OFFSET over whole rows, count(*),
 * LIKE for prefixes, no recipient column: LIKE on the trade URL; the new indexes kept out with `+column`), and the
 * chart from every ledger row.
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { BalancePoint } from '../src/shared/ipc';
import type { LedgerQuery, TradeQuery } from '../src/shared/ipc/contract';
import { RecordsReader } from '../src/main/core/store/worker/recordsReader';
import { LEDGER_FIELDS, TRADE_SELECT } from '../src/main/core/store/worker/recordRows';
import { BUSY_STORE_END_MS, busyAccount, busyStoreSpec, partnerOfRecipient } from './lib/busyStore';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, runCount, summaryLine, writeResult } from './lib/result';
import { scratchDir, startBenchSandbox } from './lib/sandbox';
import { median, percentile, round, summarize } from './lib/stats';
import { ensureFreshRenderer, FIRST_ROW, launchChromium, spawnWebHost } from './lib/webHost';
import { timeBridgeCalls } from './lib/bridgeTiming';

const machine = machineInfo();
const log = (line: string) => console.log(`[busy-queries] ${line}`);
const REPS = runCount(5, 2);
const BRIDGE_REPS = runCount(3, 1);
const LIMIT = 50;
/** The sandbox's catalog (the web host syncs it at start): small, the queries timed are the trades'. */
const CATALOG_ITEMS = 2_000;
const END_MS = BUSY_STORE_END_MS;
const SIZES: { label: string; days: number; targetMs: number }[] = [
  { label: '140k', days: 14, targetMs: 30 },
  ...(isQuick() ? [] : [{ label: 'year', days: 365, targetMs: 50 }]),
];

type Kind = 'trades' | 'ledger' | 'series';
interface Call {
  kind: Kind;
  filter: string;
  position: 'first' | 'middle' | 'last' | 'chart';
  query: TradeQuery | LedgerQuery;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Today's (schema 22) trade query: OFFSET over whole rows, count(*), LIKE. */
function oldWhere(q: TradeQuery): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => parts.push(sql) + params.push(...values);
  const like = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (q.statuses?.length) {
    parts.push(`status IN (${q.statuses.map(() => '?').join(', ')})`);
    params.push(...q.statuses);
  }
  if (q.activeOnly) parts.push("status IN ('PENDING', 'SENT', 'CREATING')");
  if (q.from) add('createdAt >= ?', q.from);
  if (q.to) add('createdAt <= ?', q.to);
  if (q.externalId) add("+externalId LIKE ? ESCAPE '\\'", like(q.externalId));
  if (q.tradeId) add("+tradeId LIKE ? ESCAPE '\\'", like(q.tradeId));
  if (q.partner) add('tradeUrl LIKE ?', `%?partner=${q.partner}&%`);
  if (q.webhookFailed) parts.push("+webhookStatus = 'failed'");
  return { where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

function oldLedgerWhere(q: LedgerQuery): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => parts.push(sql) + params.push(...values);
  if (q.types?.length) {
    parts.push(`+type IN (${q.types.map(() => '?').join(', ')})`);
    params.push(...q.types);
  }
  if (q.tradeId) add("+tradeId LIKE ? ESCAPE '\\'", `${q.tradeId.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (q.from) add('createdAt >= ?', q.from);
  if (q.to) add('createdAt <= ?', q.to);
  return { where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

function oldCall(db: Database.Database, call: Call): void {
  const q = call.query as TradeQuery & LedgerQuery;
  if (call.kind === 'trades') {
    const { where, params } = oldWhere(q);
    db.prepare(
      `SELECT ${TRADE_SELECT} FROM trades ${where} ORDER BY createdAt DESC, tradeId DESC LIMIT ? OFFSET ?`,
    ).all(...params, LIMIT, q.offset ?? 0);
    db.prepare(`SELECT count(*) FROM trades ${where}`)
      .pluck()
      .get(...params);
  } else if (call.kind === 'ledger') {
    const { where, params } = oldLedgerWhere(q);
    db.prepare(
      `SELECT ${LEDGER_FIELDS.join(', ')} FROM ledger ${where} ORDER BY createdAt DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...params, LIMIT, q.offset ?? 0);
    db.prepare(`SELECT count(*) FROM ledger ${where}`)
      .pluck()
      .get(...params);
  } else {
    const { where, params } = oldLedgerWhere(q);
    const points = db
      .prepare(`SELECT createdAt AS at, balanceAfter AS balance FROM ledger ${where} ORDER BY createdAt, id`)
      .all(...params) as BalancePoint[];
    const thinned: BalancePoint[] = [];
    const step = points.length / 2000;
    if (points.length > 2000)
      for (let b = 1; b <= 2000; b++)
        thinned.push(points[Math.min(points.length - 1, Math.ceil(b * step) - 1)] as BalancePoint);
  }
}

function newCall(reader: RecordsReader, call: Call): number {
  if (call.kind === 'trades') return reader.queryTrades(call.query as TradeQuery).rows.length;
  if (call.kind === 'ledger') return reader.queryLedger(call.query as LedgerQuery).rows.length;
  return reader.balanceSeries(call.query as LedgerQuery).length;
}

/** Every filter × first, middle and last page, and the chart's queries; offsets from each filter's total. */
function callsFor(reader: RecordsReader, db: Database.Database, days: number): Call[] {
  const startMs = END_MS - days * 86_400_000;
  const sample = db
    .prepare('SELECT tradeId, externalId FROM trades ORDER BY createdAt DESC LIMIT 1 OFFSET 1000')
    .get() as {
    tradeId: string;
    externalId: string;
  };
  const dates = {
    from: iso(startMs + Math.floor(days / 3) * 86_400_000 + 5 * 3_600_000),
    to: iso(END_MS - 3 * 86_400_000 - 7 * 3_600_000),
  };
  const trades: [string, TradeQuery][] = [
    ['none', {}],
    ['status completed', { statuses: ['COMPLETED'] }],
    ['status reversed', { statuses: ['REVERSED'] }],
    ['status expired+rejected', { statuses: ['EXPIRED', 'REJECTED'] }],
    ['active only', { activeOnly: true }],
    ['dates', dates],
    ['order id prefix (shared "wd_")', { externalId: 'wd_' }],
    ['order id prefix (8 chars)', { externalId: sample.externalId.slice(0, 8) }],
    ['trade id prefix (1 char)', { tradeId: sample.tradeId.slice(0, 1) }],
    ['trade id prefix (2 chars)', { tradeId: sample.tradeId.slice(0, 2) }],
    ['trade id prefix (8 chars, as shown)', { tradeId: sample.tradeId.slice(0, 8) }],
    ['recipient', { partner: String(partnerOfRecipient(42)) }],
    ['recipient + completed + dates', { partner: String(partnerOfRecipient(42)), statuses: ['COMPLETED'], ...dates }],
    ['webhook failed', { webhookFailed: true }],
    ['webhook failed + dates', { webhookFailed: true, ...dates }],
  ];
  const ledger: [string, LedgerQuery][] = [
    ['none', {}],
    ['type FREEZE', { types: ['FREEZE'] }],
    ['type TRADE ROLLBACK', { types: ['TRADE ROLLBACK'] }],
    ['trade id prefix (8 chars)', { tradeId: sample.tradeId.slice(0, 8) }],
    ['dates', dates],
  ];
  const positions = (total: number): [Call['position'], number][] => [
    ['first', 0],
    ['middle', Math.floor(total / 2 / LIMIT) * LIMIT],
    ['last', Math.max(0, Math.floor((total - 1) / LIMIT) * LIMIT)],
  ];
  const calls: Call[] = [];
  for (const [filter, q] of trades) {
    const total = reader.queryTrades({ ...q, limit: 1 }).total;
    for (const [position, offset] of positions(total))
      calls.push({ kind: 'trades', filter, position, query: { ...q, offset, limit: LIMIT } });
  }
  for (const [filter, q] of ledger) {
    const total = reader.queryLedger({ ...q, limit: 1 }).total;
    for (const [position, offset] of positions(total))
      calls.push({ kind: 'ledger', filter, position, query: { ...q, offset, limit: LIMIT } });
    calls.push({ kind: 'series', filter, position: 'chart', query: q });
  }
  return calls;
}

const YEAR_BASELINE = new Set([
  'trades none last',
  'trades status completed middle',
  'trades trade id prefix (8 chars, as shown) first',
  'trades recipient first',
  'ledger none last',
  'series none chart',
]);

const METHOD: Record<Kind, string> = {
  trades: 'trades.query',
  ledger: 'wallet.ledger',
  series: 'wallet.balanceSeries',
};

const metrics: Record<string, ReturnType<typeof summarize>> = {};
const perCall: Record<string, unknown>[] = [];
const checks: { text: string; metric: string; stat: 'p95'; op: '<='; value: number }[] = [];
const baselineAll: number[] = [];
const oursAll: number[] = [];

await ensureFreshRenderer(log);
for (const size of SIZES) {
  const spec = busyStoreSpec(size.days);
  const sandbox = await startBenchSandbox(CATALOG_ITEMS);
  const dataDir = scratchDir(`busy-queries-${size.label}`);
  try {
    const { merchant, file } = await busyAccount(sandbox.sb, dataDir, spec, log);

    // In the reader, and the baseline, on the same file (no other process on it yet).
    const db = new Database(file, { readonly: true });
    db.pragma('cache_size = -32768');
    const reader = new RecordsReader(db);
    const calls = callsFor(reader, db, size.days);
    const inReader: number[] = [];
    const byCall = calls.map(() => [] as number[]);
    for (const call of calls) newCall(reader, call);
    for (let rep = 0; rep < REPS; rep++)
      calls.forEach((call, i) => {
        const started = performance.now();
        newCall(reader, call);
        const ms = performance.now() - started;
        inReader.push(ms);
        byCall[i]?.push(ms);
      });
    const baseline: number[] = [];
    const baselineByCall: number[] = [];
    for (const call of calls) {
      // A year's baseline takes seconds a call: a few of the calls (the last page, a prefix, a recipient, the chart).
      if (size.days > 14 && !YEAR_BASELINE.has(`${call.kind} ${call.filter} ${call.position}`)) {
        baselineByCall.push(Number.NaN);
        continue;
      }
      const started = performance.now();
      oldCall(db, call);
      const ms = performance.now() - started;
      baseline.push(ms);
      baselineByCall.push(ms);
    }
    db.close();
    log(
      `${size.label}: in the reader p95 ${round(percentile(inReader, 95))} ms over ${inReader.length} calls; baseline p95 ${round(percentile(baseline, 95))} ms`,
    );

    // End to end: the built web host on this data dir, the calls from a Chromium page over its bridge.
    const browser = await launchChromium();
    const host = await spawnWebHost({ baseUrl: sandbox.sb.baseUrl, wsUrl: sandbox.sb.wsUrl, dataDir, merchant });
    const bridge: number[] = [];
    const bridgeByCall = calls.map(() => [] as number[]);
    try {
      const context = await browser.newContext();
      await context.addInitScript('window.__name = (fn) => fn;');
      const page = await context.newPage();
      await page.goto(host.url);
      await page.waitForSelector(FIRST_ROW, { timeout: 180_000 });
      // Past the start-up (catalog sync, the first reconcile): queries as a user pages, not the cold start's.
      await page.waitForTimeout(5000);
      const times = await timeBridgeCalls(
        page,
        calls.map((c) => ({ method: METHOD[c.kind], input: c.query })),
        BRIDGE_REPS,
      );
      times.forEach((list, i) => {
        bridge.push(...list);
        bridgeByCall[i]?.push(...list);
      });
    } finally {
      await host.stop();
      await browser.close();
    }
    log(`${size.label}: through the bridge p95 ${round(percentile(bridge, 95))} ms over ${bridge.length} calls`);

    const queries = (kinds: Kind[], list: number[][]) =>
      list.filter((_, i) => kinds.includes(calls[i]?.kind as Kind)).flat();
    metrics[`reader_${size.label}_ms`] = summarize(inReader, 'ms', { p95: true });
    metrics[`bridge_${size.label}_ms`] = summarize(queries(['trades', 'ledger'], bridgeByCall), 'ms', {
      p95: true,
      p99: true,
    });
    metrics[`chart_bridge_${size.label}_ms`] = summarize(queries(['series'], bridgeByCall), 'ms', { p95: true });
    metrics[`baseline_${size.label}_ms`] = summarize(baseline, 'ms', { p95: true });
    metrics[`chart_baseline_${size.label}_ms`] = summarize(
      baselineByCall.filter((ms, i) => calls[i]?.kind === 'series' && Number.isFinite(ms)),
      'ms',
      { p95: true },
    );
    checks.push({
      text: `p95 through the bridge, ${size.label} (pages)`,
      metric: `bridge_${size.label}_ms`,
      stat: 'p95',
      op: '<=',
      value: size.targetMs,
    });
    checks.push({
      text: `p95 through the bridge, ${size.label} (chart)`,
      metric: `chart_bridge_${size.label}_ms`,
      stat: 'p95',
      op: '<=',
      value: size.targetMs,
    });
    baselineAll.push(...baseline);
    oursAll.push(...inReader);
    calls.forEach((call, i) => {
      const row = {
        size: size.label,
        kind: call.kind,
        filter: call.filter,
        position: call.position,
        readerMedianMs: round(median(byCall[i] ?? [])),
        bridgeMedianMs: round(median(bridgeByCall[i] ?? [])),
        bridgeMaxMs: round(Math.max(...(bridgeByCall[i] ?? [0]))),
        baselineMs: round(baselineByCall[i] ?? Number.NaN),
      };
      perCall.push(row);
      log(
        `${size.label} ${call.kind.padEnd(6)} ${call.filter.padEnd(36)} ${call.position.padEnd(6)} reader ${String(row.readerMedianMs).padStart(7)} ms  bridge ${String(row.bridgeMedianMs).padStart(7)} ms  baseline ${String(row.baselineMs).padStart(8)} ms`,
      );
    });
  } finally {
    await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const result = buildResult({
  name: 'busy-queries',
  title:
    'trades and ledger pages (every filter, first/middle/last) and the balance chart, 140k trades and a year (3.65M)',
  machine,
  runs: REPS,
  metrics,
  baseline: {
    what: 'the same pages as schema 22 answered them (LIMIT/OFFSET over rows, count(*), LIKE), in the reader, same files',
    median: median(baselineAll),
    unit: 'ms',
  },
  ratio: percentile(oursAll, 95) / percentile(baselineAll, 95),
  ratioMeaning: 'p95 ours ÷ p95 baseline, in the reader',
  targetText: 'p95 ≤ 30 ms through the bridge at 140,000 trades, ≤ 50 ms at 3,650,000',
  checks,
  notes: [
    `${SIZES.map((s) => s.label).join(' and ')}: every filter × first, middle and last page of ${LIMIT} rows, and the chart of each ledger filter; ${REPS} reps in the reader after a warm-up pass, ${BRIDGE_REPS} through the bridge, the baseline once (at a year's volume only ${YEAR_BASELINE.size} of the calls: ${[...YEAR_BASELINE].join(', ')}).`,
    'The stores are filled straight into real store files (bench/lib/busyStore.ts: the writer’s rows, the schema’s triggers and roll-ups), 10,000 trades a day over 5,000 recipients.',
    'bridge_*: trades.query and wallet.ledger over the web bridge’s WebSocket from a Chromium page of the built web host on a copy of the store (WebSocket, validation, engine, reader worker, back); chart_bridge_*: wallet.balanceSeries likewise.',
    'An id prefix that more than 2,000 ids start with ("wd_", one or two characters of a trade id) answers a capped total ("2,000+") and pages that far.',
  ],
  details: { perCall },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
