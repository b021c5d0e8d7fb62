/**
 * Filter + sort over a 500k-item store: every sort column the grid offers × both directions × a few
 * filters (none, price range, float range, StatTrak, has stickers, rarity, phase, sticker name, and a
 * search combined with a filter), first 200 rows. Timed three ways, p95 over every call:
 *  - in the store: the reader's service called in this thread (snapshot → filters → page → rows);
 *  - from the host: LocalStore.queryCatalog (the reader worker's round trip added);
 *  - end to end: the built web host (engine + bridge) serving Chromium, the call made in the page
 *    over the web bridge's protocol with the page's token (the browser's WebSocket, validation in the
 *    host, the engine, the store, back): what the grid waits for.
 *
 * Baseline, same run: the same WHERE/ORDER BY/LIMIT (and the count) in SQL on an unindexed copy of the
 * items on sale, in the same file.
 */
import { rmSync } from 'node:fs';
import { RARITY_COLORS } from '../src/shared/api';
import type { CatalogQuery } from '../src/shared/ipc/contract';
import { packPriceChanges } from '../src/main/core/catalog';
import { ReaderService } from '../src/main/core/store/worker/reader';
import { createPlainCopy, openPreparedStore, naiveQuery, timeQuery } from './lib/catalogBench';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, runCount, summaryLine, writeResult } from './lib/result';
import { createMerchant, scratchDir, startBenchSandbox } from './lib/sandbox';
import { median, percentile, round, summarize } from './lib/stats';
import { ensureFreshRenderer, FIRST_ROW, launchChromium, prepareDataDir, spawnWebHost } from './lib/webHost';
import { timeBridgeCalls } from './lib/bridgeTiming';

const ITEMS = 500_000;
const REPS = runCount(10, 3);
const BRIDGE_REPS = runCount(3, 1);
const SORTS = ['price', 'name', 'float', 'paintSeed', 'phase', 'stickers', 'listedAt', 'rarity', 'discount'] as const;
/** Price changes in the burst after which the references' update is timed. */
const BURST = 50_000;
const machine = machineInfo();
const log = (line: string) => console.log(`[filter-sort] ${line}`);

interface Filter {
  label: string;
  query: Partial<CatalogQuery>;
  where: { sql: string; params: unknown[] };
}

interface Combo {
  filter: Filter;
  sort: (typeof SORTS)[number];
  direction: 'asc' | 'desc';
}

const queryOf = (c: Combo): CatalogQuery => ({ ...c.filter.query, sort: c.sort, direction: c.direction, limit: 200 });

const prepared = await openPreparedStore(ITEMS);
const samples: number[] = [];
const inStore: number[] = [];
let combos: Combo[] = [];
let referenceUpdateMs = Number.NaN;
const naive: number[] = [];
const perCombo: {
  filter: string;
  sort: string;
  dir: string;
  total: number;
  medianMs: number;
  maxMs: number;
  naiveMs: number;
}[] = [];
try {
  const db = createPlainCopy(prepared.file);
  const ranks = db
    .prepare('SELECT rarity FROM bench_plain WHERE rarity IS NOT NULL GROUP BY rarity ORDER BY count(*) DESC LIMIT 2')
    .pluck()
    .all() as number[];
  const rarity = ranks.map((rank) => RARITY_COLORS[rank] as string);
  const filters: Filter[] = [
    { label: 'none', query: {}, where: { sql: '', params: [] } },
    {
      label: 'price $10–$100',
      query: { priceMin: 1000, priceMax: 10000 },
      where: { sql: 'price >= ? AND price <= ?', params: [1000, 10000] },
    },
    {
      label: 'float 0–0.07',
      query: { floatMin: 0, floatMax: 0.07 },
      where: { sql: 'float >= ? AND float <= ?', params: [0, 0.07] },
    },
    { label: 'StatTrak', query: { statTrak: true }, where: { sql: 'statTrak = 1', params: [] } },
    { label: 'has stickers', query: { hasStickers: true }, where: { sql: 'stickerCount > 0', params: [] } },
    { label: 'rarity ×2', query: { rarityColors: rarity }, where: { sql: 'rarity IN (?, ?)', params: ranks } },
    { label: 'phase Ruby', query: { phase: 'Ruby' }, where: { sql: 'phase = ?', params: ['Ruby'] } },
    {
      label: 'sticker "Holo"',
      query: { stickerName: 'Holo' },
      where: { sql: "stickerNames LIKE '%Holo%'", params: [] },
    },
    // No plain SQL computes a median per name: the baseline's WHERE keeps every row (a lower bound of its work).
    { label: 'discount ≥ 20 %', query: { discountMin: 20 }, where: { sql: 'price >= 0', params: [] } },
    {
      label: 'seeds 661, 670, 955, 1-25',
      query: {
        seeds: [
          [1, 25],
          [661, 661],
          [670, 670],
          [955, 955],
        ],
      },
      where: { sql: 'paintSeed IN (661, 670, 955) OR paintSeed BETWEEN 1 AND 25', params: [] },
    },
    {
      label: 'search "AK-47" + price ≤ $50',
      query: { search: 'AK-47', priceMax: 5000 },
      where: { sql: "name LIKE '%AK-47%' AND price <= ?", params: [5000] },
    },
  ];
  combos = filters.flatMap((filter) =>
    SORTS.flatMap((sort) => (['asc', 'desc'] as const).map((direction) => ({ filter, sort, direction }))),
  );
  log(`${combos.length} combinations × ${REPS} reps`);
  for (const c of combos) await timeQuery(prepared.store, queryOf(c));
  const byCombo = new Map<number, number[]>();
  for (let rep = 0; rep < REPS; rep++) {
    for (let i = 0; i < combos.length; i++) {
      const c = combos[i] as (typeof combos)[number];
      const { ms } = await timeQuery(prepared.store, queryOf(c));
      samples.push(ms);
      (byCombo.get(i) ?? byCombo.set(i, []).get(i))?.push(ms);
    }
  }
  // In the store: the reader's service in this thread, on the same file.
  const reader = new ReaderService(prepared.file);
  for (const c of combos) reader.queryCatalog(queryOf(c));
  for (let rep = 0; rep < REPS; rep++) {
    for (const c of combos) {
      const started = performance.now();
      reader.queryCatalog(queryOf(c));
      inStore.push(performance.now() - started);
    }
  }
  // A burst of price changes through the writer, then the first page sorted by discount: the reader patches
  // the changed rows and recomputes the references of every name they touched before it answers.
  const ids = db.prepare('SELECT itemId, price FROM bench_plain ORDER BY random() LIMIT ?').raw().all(BURST) as [
    number,
    number,
  ][];
  await prepared.store.applyItemChanges([
    {
      kind: 'prices',
      changes: packPriceChanges(
        ids.map(([itemId, price]) => ({ itemId, price: Math.max(1, Math.round(price * 0.9)) })),
      ),
    },
  ]);
  const updateStarted = performance.now();
  reader.queryCatalog({ sort: 'discount', direction: 'desc', limit: 200 });
  referenceUpdateMs = performance.now() - updateStarted;
  log(
    `${BURST.toLocaleString('en-US')} price changes: references updated and the first page by discount answered in ${round(referenceUpdateMs)} ms`,
  );
  reader.close();
  // Baseline: every combination once (twice in full runs), on the unindexed copy.
  const naiveReps = isQuick() ? 1 : 2;
  for (let i = 0; i < combos.length; i++) {
    const c = combos[i] as (typeof combos)[number];
    const times: number[] = [];
    let total = 0;
    for (let rep = 0; rep < naiveReps; rep++) {
      const r = naiveQuery(db, 'bench_plain', c.filter.where, c.sort, c.direction === 'desc');
      times.push(r.ms);
      total = r.total;
    }
    naive.push(median(times));
    const ours = byCombo.get(i) ?? [];
    perCombo.push({
      filter: c.filter.label,
      sort: c.sort,
      dir: c.direction,
      total,
      medianMs: round(median(ours)),
      maxMs: round(Math.max(...ours)),
      naiveMs: round(median(times)),
    });
  }
  db.exec('DROP TABLE bench_plain');
  db.close();
} finally {
  await prepared.close();
}

// End to end through the web host's bridge, in Chromium.
const bridge: number[] = [];
await ensureFreshRenderer(log);
const sandbox = await startBenchSandbox(ITEMS);
const dataDir = scratchDir('filter-sort');
const browser = await launchChromium();
try {
  const merchant = createMerchant(sandbox.sb, { balance: 1_000_000 });
  await prepareDataDir({ items: ITEMS, dataDir, baseUrl: sandbox.sb.baseUrl, wsUrl: sandbox.sb.wsUrl, merchant, log });
  const host = await spawnWebHost({ baseUrl: sandbox.sb.baseUrl, wsUrl: sandbox.sb.wsUrl, dataDir, merchant });
  try {
    const context = await browser.newContext();
    // tsx (esbuild keepNames) wraps named functions in __name(); the function passed to page.evaluate needs it too.
    await context.addInitScript('window.__name = (fn) => fn;');
    const page = await context.newPage();
    await page.goto(host.url);
    await page.waitForSelector(FIRST_ROW, { timeout: 60_000 });
    // Past its start-up (the history back-fill, the first reconcile): queries as a user filters, not the cold start's.
    await page.waitForTimeout(3000);
    const queries = combos.map(queryOf);
    // The page's own bridge protocol on a second socket of this page (the UI's is private to its module):
    // the token the page stored offered at the upgrade, then one call at a time.
    const times = (
      await timeBridgeCalls(
        page,
        queries.map((input) => ({ method: 'catalog.query', input })),
        BRIDGE_REPS,
      )
    ).flat();
    bridge.push(...times);
  } finally {
    await host.stop();
  }
} finally {
  await browser.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
}
log(
  `end to end through the bridge: p95 ${round(percentile(bridge, 95))} ms over ${bridge.length} calls; in the store p95 ${round(percentile(inStore, 95))} ms`,
);

for (const f of [...new Set(perCombo.map((p) => p.filter))]) {
  const rows = perCombo.filter((p) => p.filter === f);
  log(
    `${f.padEnd(30)} ${String(rows[0]?.total).padStart(7)} rows  ours median ${round(median(rows.map((r) => r.medianMs)))} ms, worst ${round(Math.max(...rows.map((r) => r.maxMs)))} ms (${rows.find((r) => r.maxMs === Math.max(...rows.map((x) => x.maxMs)))?.sort}) | unindexed median ${round(median(rows.map((r) => r.naiveMs)))} ms`,
  );
}

const result = buildResult({
  name: 'filter-sort',
  title: 'filter + sort on every offered column, 500k items, first 200 rows',
  machine,
  runs: REPS,
  metrics: {
    query_ms: summarize(samples, 'ms', { p95: true, p99: true }),
    in_store_ms: summarize(inStore, 'ms', { p95: true, p99: true }),
    reference_update_ms: summarize([referenceUpdateMs], 'ms'),
    bridge_ms: summarize(bridge, 'ms', { p95: true, p99: true }),
    naive_unindexed_ms: summarize(naive, 'ms', { p95: true }),
  },
  baseline: {
    what: 'the same WHERE + count + ORDER BY … LIMIT 200 on an unindexed copy of the items table',
    median: median(naive),
    unit: 'ms',
  },
  ratio: percentile(samples, 95) / percentile(naive, 95),
  ratioMeaning: 'p95 ours ÷ p95 unindexed SQL',
  targetText: 'p95 ≤ 10 ms in the store, ≤ 20 ms from the host, ≤ 30 ms end to end through the bridge',
  checks: [
    { text: 'p95 in the store', metric: 'in_store_ms', stat: 'p95', op: '<=', value: 10 },
    { text: 'p95 from the host', metric: 'query_ms', stat: 'p95', op: '<=', value: 20 },
    { text: 'p95 through the bridge', metric: 'bridge_ms', stat: 'p95', op: '<=', value: 30 },
  ],
  notes: [
    `${SORTS.length} sort columns × 2 directions × ${perCombo.length / SORTS.length / 2} filters, ${REPS} reps each after a warm-up pass (${BRIDGE_REPS} through the bridge).`,
    `reference_update_ms: after ${BURST.toLocaleString('en-US')} price changes (random items) through the writer, the reader's first page sorted by discount (patch, the touched names' references, the page).`,
    'in_store_ms: the reader service in the bench thread; query_ms: LocalStore.queryCatalog from the host (worker round trip included); bridge_ms: catalog.query over the web bridge’s WebSocket from a Chromium page of the built web host (WebSocket, validation, engine, store, back).',
  ],
  details: { perCombo },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
