/**
 * Filter + sort over a 500k-item store: every sort column the grid offers × both
 * directions × a few filters (none, price range, float range, StatTrak, has
 * stickers, rarity, phase, sticker name, and a search combined with a filter),
 * first 200 rows, through LocalStore.queryCatalog. Each combination REPS times;
 * p95 over every call.
 *
 * Baseline, same run: the same WHERE/ORDER BY/LIMIT (and the count) in SQL on a
 * copy of the items table WITHOUT indexes, in the same file.
 */
import Database from 'better-sqlite3';
import { openPreparedStore, naiveQuery, timeQuery } from './lib/catalogBench';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, runCount, summaryLine, writeResult } from './lib/result';
import { median, percentile, round, summarize } from './lib/stats';
import type { CatalogQuery } from '../src/shared/ipc/contract';

const ITEMS = 500_000;
const REPS = runCount(10, 3);
const SORTS = ['price', 'name', 'float', 'paintSeed', 'phase', 'stickers', 'listedAt', 'rarity'] as const;
const machine = machineInfo();
const log = (line: string) => console.log(`[filter-sort] ${line}`);

interface Filter {
  label: string;
  query: Partial<CatalogQuery>;
  where: { sql: string; params: unknown[] };
}

const prepared = await openPreparedStore(ITEMS);
const samples: number[] = [];
const naive: number[] = [];
const perCombo: { filter: string; sort: string; dir: string; total: number; medianMs: number; maxMs: number; naiveMs: number }[] = [];
try {
  // A writable connection only to add the unindexed copy (the store is closed to it otherwise).
  const db = new Database(prepared.file);
  db.exec('DROP TABLE IF EXISTS bench_plain; CREATE TABLE bench_plain AS SELECT * FROM items;');
  const rarity = db.prepare('SELECT rarityColor FROM items GROUP BY rarityColor ORDER BY count(*) DESC LIMIT 2').pluck().all() as string[];
  const rankOf = db.prepare('SELECT rarity_rank FROM items WHERE rarityColor = ? LIMIT 1').pluck();
  const filters: Filter[] = [
    { label: 'none', query: {}, where: { sql: '', params: [] } },
    { label: 'price $10–$100', query: { priceMin: 1000, priceMax: 10000 }, where: { sql: 'price >= ? AND price <= ?', params: [1000, 10000] } },
    { label: 'float 0–0.07', query: { floatMin: 0, floatMax: 0.07 }, where: { sql: 'float >= ? AND float <= ?', params: [0, 0.07] } },
    { label: 'StatTrak', query: { statTrak: true }, where: { sql: 'statTrak = 1', params: [] } },
    { label: 'has stickers', query: { hasStickers: true }, where: { sql: 'stickerCount > 0', params: [] } },
    { label: 'rarity ×2', query: { rarityColors: rarity }, where: { sql: 'rarity_rank IN (?, ?)', params: rarity.map((c) => rankOf.get(c)) } },
    { label: 'phase Ruby', query: { phase: 'Ruby' }, where: { sql: 'phase = ?', params: ['Ruby'] } },
    { label: 'sticker "Holo"', query: { stickerName: 'Holo' }, where: { sql: "stickerNames LIKE '%Holo%'", params: [] } },
    {
      label: 'search "AK-47" + price ≤ $50',
      query: { search: 'AK-47', priceMax: 5000 },
      where: { sql: "name LIKE '%AK-47%' AND price <= ?", params: [5000] },
    },
  ];
  const combos = filters.flatMap((filter) => SORTS.flatMap((sort) => (['asc', 'desc'] as const).map((direction) => ({ filter, sort, direction }))));
  log(`${combos.length} combinations × ${REPS} reps`);
  for (const c of combos) await timeQuery(prepared.store, { ...c.filter.query, sort: c.sort, direction: c.direction, limit: 200 });
  const byCombo = new Map<number, number[]>();
  for (let rep = 0; rep < REPS; rep++) {
    for (let i = 0; i < combos.length; i++) {
      const c = combos[i] as (typeof combos)[number];
      const { ms } = await timeQuery(prepared.store, { ...c.filter.query, sort: c.sort, direction: c.direction, limit: 200 });
      samples.push(ms);
      (byCombo.get(i) ?? byCombo.set(i, []).get(i))?.push(ms);
    }
  }
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
    perCombo.push({ filter: c.filter.label, sort: c.sort, dir: c.direction, total, medianMs: round(median(ours)), maxMs: round(Math.max(...ours)), naiveMs: round(median(times)) });
  }
  db.exec('DROP TABLE bench_plain');
  db.close();
} finally {
  await prepared.close();
}
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
    naive_unindexed_ms: summarize(naive, 'ms', { p95: true }),
  },
  baseline: { what: 'the same WHERE + count + ORDER BY … LIMIT 200 on an unindexed copy of the items table', median: median(naive), unit: 'ms' },
  ratio: percentile(samples, 95) / percentile(naive, 95),
  ratioMeaning: 'p95 ours ÷ p95 unindexed SQL',
  targetText: 'p95 ≤ 10 ms',
  checks: [{ text: 'p95', metric: 'query_ms', stat: 'p95', op: '<=', value: 10 }],
  notes: [`${SORTS.length} sort columns × 2 directions × ${perCombo.length / SORTS.length / 2} filters, ${REPS} reps each after a warm-up pass; timed from the host (worker round trip included).`],
  details: { perCombo },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
