/**
 * Substring search over a 500k-item store: ~50 terms taken from the catalog's own
 * names (2, 3, 5 and 10-character fragments, whole words, phases, sticker names),
 * first 200 rows sorted by price, through LocalStore.queryCatalog (host → reader
 * worker → the distinct names scanned for the terms → the snapshot's name column → rows).
 * Each term runs REPS times; p95 over every call.
 *
 * Baseline, same run, same database file: `name LIKE '%term%'` over the items
 * table (count + first 200 by price), on a plain better-sqlite3 connection.
 */
import type Database from 'better-sqlite3';
import { createPlainCopy, openPreparedStore, naiveQuery, timeQuery } from './lib/catalogBench';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, runCount, summaryLine, writeResult } from './lib/result';
import { median, percentile, summarize } from './lib/stats';

const ITEMS = 500_000;
const REPS = runCount(20, 5);
const machine = machineInfo();
const log = (line: string) => console.log(`[search] ${line}`);

/** A deterministic pick of search terms from the catalog itself. */
function pickTerms(db: Database.Database): { term: string; kind: string }[] {
  const names = db.prepare('SELECT name FROM names ORDER BY name_id').pluck().all() as string[];
  const stickers = db
    .prepare('SELECT stickerNames FROM items WHERE stickerCount > 0 LIMIT 2000')
    .pluck()
    .all() as string[];
  const phases = db.prepare('SELECT DISTINCT phase FROM items WHERE phase IS NOT NULL').pluck().all() as string[];
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)] as T;
  const fragment = (length: number) => {
    for (;;) {
      const name = pick(names);
      if (name.length <= length) continue;
      const start = Math.floor(random() * (name.length - length));
      const text = name.slice(start, start + length);
      if (text.trim().length === length) return text;
    }
  };
  const terms: { term: string; kind: string }[] = [];
  for (let i = 0; i < 8; i++) terms.push({ term: fragment(2), kind: '2 chars' });
  for (let i = 0; i < 8; i++) terms.push({ term: fragment(3), kind: '3 chars' });
  for (let i = 0; i < 8; i++) terms.push({ term: fragment(5), kind: '5 chars' });
  for (let i = 0; i < 8; i++) terms.push({ term: fragment(10), kind: '10 chars' });
  for (const word of ['AK-47', 'Redline', 'StatTrak', 'Souvenir', 'Knife', 'Gloves', 'Doppler', 'Factory New'])
    terms.push({ term: word, kind: 'word' });
  for (const phase of phases.slice(0, 4)) terms.push({ term: phase, kind: 'phase' });
  const stickerNames = [...new Set(stickers.flatMap((s) => s.split('\n')))].filter((s) => s.length > 0);
  for (let i = 0; i < 6; i++)
    terms.push({ term: pick(stickerNames).replace(/^Sticker \| /, ''), kind: 'sticker name' });
  return terms;
}

const prepared = await openPreparedStore(ITEMS);
const samples: number[] = [];
const perTerm: { term: string; kind: string; total: number; medianMs: number; maxMs: number; naiveMs: number }[] = [];
const naive: number[] = [];
try {
  const db = createPlainCopy(prepared.file);
  const terms = pickTerms(db);
  log(`${terms.length} terms × ${REPS} reps`);
  // Warm-up: one pass (statement caches, page cache), not counted.
  for (const { term } of terms) await timeQuery(prepared.store, { search: term, limit: 200 });
  const byTerm = new Map<string, number[]>();
  for (let rep = 0; rep < REPS; rep++) {
    for (const { term } of terms) {
      const { ms } = await timeQuery(prepared.store, { search: term, limit: 200 });
      samples.push(ms);
      (byTerm.get(term) ?? byTerm.set(term, []).get(term))?.push(ms);
    }
  }
  const naiveReps = isQuick() ? 1 : 2;
  for (const { term, kind } of terms) {
    const times: number[] = [];
    let total = 0;
    for (let rep = 0; rep < naiveReps; rep++) {
      const r = naiveQuery(
        db,
        'bench_plain',
        { sql: "name LIKE ? ESCAPE '\\'", params: [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`] },
        'price',
        false,
      );
      times.push(r.ms);
      total = r.total;
    }
    naive.push(median(times));
    const ours = byTerm.get(term) ?? [];
    const check = await prepared.store.queryCatalog({ search: term, limit: 1 });
    perTerm.push({
      term,
      kind,
      total: check.total,
      medianMs: Number(median(ours).toFixed(2)),
      maxMs: Number(Math.max(...ours).toFixed(2)),
      naiveMs: Number(median(times).toFixed(1)),
    });
    if (check.total !== total && !term.includes(' ')) log(`note: "${term}" ours ${check.total} rows, LIKE ${total}`);
  }
  db.exec('DROP TABLE bench_plain');
  db.close();
} finally {
  await prepared.close();
}
for (const t of perTerm)
  log(
    `${t.kind.padEnd(12)} ${JSON.stringify(t.term).padEnd(34)} ${String(t.total).padStart(7)} rows  median ${t.medianMs} ms  max ${t.maxMs} ms  | LIKE ${t.naiveMs} ms`,
  );

const result = buildResult({
  name: 'search',
  title: 'substring search over 500k items, any term, first 200 rows',
  machine,
  runs: REPS,
  metrics: {
    query_ms: summarize(samples, 'ms', { p95: true, p99: true }),
    naive_like_ms: summarize(naive, 'ms', { p95: true }),
  },
  baseline: {
    what: "name LIKE '%term%' over an unindexed copy of the items on sale with their names, same file (count + first 200 by price)",
    median: median(naive),
    unit: 'ms',
  },
  ratio: percentile(samples, 95) / percentile(naive, 95),
  ratioMeaning: 'p95 ours ÷ p95 LIKE',
  targetText: 'p95 ≤ 20 ms',
  checks: [{ text: 'p95', metric: 'query_ms', stat: 'p95', op: '<=', value: 20 }],
  notes: [
    `${perTerm.length} terms from the catalog (8 each of 2, 3, 5 and 10-character fragments of names, 8 words, phases, sticker names), ${REPS} reps each after one warm-up pass; every call is timed from the host (LocalStore.queryCatalog, worker round trip included).`,
  ],
  details: { perTerm },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
