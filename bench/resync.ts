/**
 * Re-sync of a 500k catalog with 2% of the prices changed on the server.
 *
 * One child process holds the store: a first full sync (not counted), then per
 * run the parent reprices 10,000 random on-sale items directly in the sandbox's
 * database (`sb.core.catalog.reprice`: the admin PATCH would take minutes for
 * 10k items) and the child re-syncs: request → committed and searchable.
 *
 * Baseline, same run, same server state: the naive approach, "parse it all,
 * upsert every row" (lib/floor-child.ts, mode upsert: one JSON.parse of the
 * body, INSERT … ON CONFLICT DO UPDATE of all 500k rows in one transaction into
 * a table that already holds the catalog).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchChild, runChild, type ChildMessage } from './lib/child';
import { machineInfo } from './lib/machine';
import { threadCpu } from './lib/threadCpu';
import { buildResult, runCount, summaryLine, writeResult } from './lib/result';
import { catalogUrl, createMerchant, merchantHeaders, startBenchSandbox } from './lib/sandbox';
import { median, round, summarize } from './lib/stats';

const ITEMS = 500_000;
const CHANGED = Math.round(ITEMS * 0.02);
const runs = runCount(5, 2);
const machine = machineInfo();
const log = (line: string) => console.log(`[resync] ${line}`);

interface SyncRun {
  committedMs: number;
  searchableMs: number;
  indexedMs: number;
  applyMs: number;
  updated: number;
  added: number;
  removed: number;
  lag: { p99: number; max: number };
}

/** One full download of the list (discarded): the server's gzip segments are built by it. */
async function warmServerList(url: string, headers: Record<string, string>): Promise<void> {
  const answer = await fetch(url, { headers: { ...headers, 'accept-encoding': 'gzip' } });
  await answer.arrayBuffer();
}

const bench = await startBenchSandbox(ITEMS);
const url = catalogUrl(bench.sb.baseUrl);
const scratch = mkdtempSync(join(tmpdir(), 'md-bench-resync-'));
const ours: SyncRun[] = [];
const naive: number[] = [];
let peakRssMB = 0;
try {
  const onSale = (
    bench.sb.core.db.prepare('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id').pluck().all() as number[]
  ).slice();
  const ourMerchant = createMerchant(bench.sb);
  const naiveMerchant = createMerchant(bench.sb);
  const naiveDb = join(scratch, 'naive.sqlite');
  const naiveOnce = () =>
    runChild<ChildMessage & { committedMs: number; count: number }>('lib/floor-child.ts', [], {
      env: {
        BENCH_URL: url,
        BENCH_HEADERS: JSON.stringify(merchantHeaders(naiveMerchant)),
        BENCH_FLOOR_MODE: 'upsert',
        BENCH_FLOOR_DB: naiveDb,
      },
      nodeArgs: ['--max-old-space-size=16384'],
    });

  const child = new BenchChild('lib/sync-child.ts', [], {
    env: {
      BENCH_URL: url,
      BENCH_HEADERS: JSON.stringify(merchantHeaders(ourMerchant)),
      BENCH_SYNCS: String(runs + 1),
      BENCH_STORE: join(scratch, 'store.sqlite'),
    },
  });
  const first = await child.next<ChildMessage & { run: SyncRun }>('synced');
  log(`first full sync ${(first.run.searchableMs / 1000).toFixed(2)} s (not counted)`);
  const warm = await naiveOnce();
  log(`naive table filled: ${warm.count} rows in ${(warm.committedMs / 1000).toFixed(2)} s (not counted)`);

  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < runs; i++) {
    // 2% of the items, chosen at random, get a new price (±1–8%, never the same).
    const picked = new Set<number>();
    while (picked.size < CHANGED) picked.add(onSale[Math.floor(random() * onSale.length)] as number);
    const prices = new Map(
      (
        bench.sb.core.db
          .prepare(`SELECT item_id, price FROM items WHERE item_id IN (${[...picked].join(',')})`)
          .all() as { item_id: number; price: number }[]
      ).map((row) => [row.item_id, row.price]),
    );
    const changes = [...picked].map((itemId) => {
      const price = prices.get(itemId) as number;
      const moved = Math.max(1, Math.round(price * (1 + (random() < 0.5 ? -1 : 1) * (0.01 + random() * 0.07))));
      return { itemId, price: moved === price ? price + 1 : moved };
    });
    const applied = bench.sb.core.catalog.reprice(changes).length;
    // The marketplace serves a list it rebuilt beforehand (every ~5 min); the sandbox gzips its list
    // lazily, per 2,048-item segment, and 2% random changes touch every segment: one untimed fetch
    // rebuilds them, so both sides below download the same prebuilt list.
    await warmServerList(url, merchantHeaders(createMerchant(bench.sb)));
    const startedUs = process.hrtime.bigint() / 1000n;
    const childCpu = threadCpu(child.pid);
    const serverCpu = threadCpu(process.pid);
    child.send({ type: 'go' });
    const synced = await child.next<ChildMessage & { run: SyncRun }>('synced');
    // The re-sync's span in the CPU profiles' clock (BENCH_CPU_PROF, bench/lib/profile-summary.ts --window).
    if (process.env['BENCH_THREADS'])
      log(`CPU ms per thread: store ${JSON.stringify(childCpu())}; sandbox ${JSON.stringify(serverCpu())}`);
    if (process.env['BENCH_CPU_PROF'])
      log(`re-sync ${i + 1} in the profiles' clock: --window ${startedUs}:${process.hrtime.bigint() / 1000n}`);
    ours.push(synced.run);
    const baseline = await naiveOnce();
    naive.push(baseline.committedMs);
    log(
      `run ${i + 1}/${runs}: ${applied} prices changed; re-sync searchable ${(synced.run.searchableMs / 1000).toFixed(2)} s ` +
        `(committed ${(synced.run.committedMs / 1000).toFixed(2)} s, apply ${(synced.run.applyMs / 1000).toFixed(2)} s, updated ${synced.run.updated}, ` +
        `indexed ${(synced.run.indexedMs / 1000).toFixed(2)} s, host lag p99 ${synced.run.lag.p99} ms) | naive ${(baseline.committedMs / 1000).toFixed(2)} s`,
    );
  }
  const final = await child.next<ChildMessage & { peakRssMB: number }>('result');
  peakRssMB = final.peakRssMB;
  await child.exited;
} finally {
  await bench.close();
  rmSync(scratch, { recursive: true, force: true });
}

const ratios = ours.map((run, i) => run.searchableMs / (naive[i] as number));
const result = buildResult({
  name: 'resync',
  title: 're-sync of 500k items with 2% of prices changed',
  machine,
  runs,
  metrics: {
    resync_s: summarize(
      ours.map((r) => r.searchableMs / 1000),
      's',
    ),
    committed_s: summarize(
      ours.map((r) => r.committedMs / 1000),
      's',
    ),
    apply_s: summarize(
      ours.map((r) => r.applyMs / 1000),
      's',
    ),
    indexed_s: summarize(
      ours.map((r) => r.indexedMs / 1000),
      's',
    ),
    naive_s: summarize(
      naive.map((ms) => ms / 1000),
      's',
    ),
    host_lag_p99_ms: summarize(
      ours.map((r) => r.lag.p99),
      'ms',
    ),
    peak_rss_mb: { median: round(peakRssMB), min: round(peakRssMB), max: round(peakRssMB), unit: 'MB' },
  },
  baseline: {
    what: 'naive: same GET, one JSON.parse of the body, upsert all 500k rows in one transaction',
    median: median(naive) / 1000,
    unit: 's',
  },
  ratio: median(ratios),
  ratioMeaning: 'ours ÷ naive, median of per-run ratios',
  targetText: '≤ 2.5 s',
  checks: [{ text: 're-sync', metric: 'resync_s', stat: 'median', op: '<=', value: 2.5 }],
  notes: [
    `Each run changes ${CHANGED.toLocaleString('en-US')} random on-sale prices (±1–8%) through sb.core.catalog.reprice, then re-syncs the same store.`,
    'After repricing, one untimed download lets the sandbox rebuild its gzip segments (the marketplace serves a list it rebuilt beforehand); ours and the naive baseline then download the same prebuilt list.',
    'resync_s = request → committed and the first search answered; indexed_s adds the readers’ in-memory index catching up.',
    'peak_rss_mb is the store child over the first full sync and all re-syncs.',
  ],
  details: { perRun: ours.map((r, i) => ({ ...r, naiveMs: Math.round(naive[i] as number) })) },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
