/**
 * `npm run bench` — every benchmark; `npm run bench -- catalog-sync search` — the
 * named ones; `--quick` — fewer runs (for development; commit full runs);
 * `--list` — the names; `--docs` — only regenerate the docs table.
 *
 * Each benchmark runs in its own child process (clean RSS and GC), writes
 * bench/results/NAME.json, and this script then prints a summary and rewrites the
 * generated table of docs/performance.md from every results file.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { regenerateDocsTable, DOCS_FILE } from './lib/docs';
import { BENCHMARKS, findBenchmark, type BenchEntry } from './lib/registry';
import { BENCH_DIR, readResults, ROOT_DIR, summaryLine } from './lib/result';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const names = args.filter((a) => !a.startsWith('--'));

if (args.includes('--list')) {
  for (const b of BENCHMARKS) console.log(`${b.name.padEnd(18)} ~${b.minutes} min  bench/${b.file}`);
  process.exit(0);
}
if (args.includes('--docs')) {
  regenerateDocsTable();
  console.log(`regenerated the table in ${DOCS_FILE}`);
  process.exit(0);
}

const unknown = names.filter((n) => !findBenchmark(n));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const selected: BenchEntry[] = names.length > 0 ? BENCHMARKS.filter((b) => names.includes(b.name)) : [...BENCHMARKS];
const planned = selected.reduce((sum, b) => sum + b.minutes, 0);
console.log(`running ${selected.map((b) => b.name).join(', ')}${quick ? ' (quick)' : ''}; about ${Math.round(quick ? planned / 2 : planned)} min on 2 cores`);

function runOne(entry: BenchEntry): Promise<{ code: number | null; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, entry.file), ...(quick ? ['--quick'] : [])], {
      cwd: ROOT_DIR,
      env: { ...process.env, ...(quick ? { BENCH_QUICK: '1' } : {}) },
      stdio: 'inherit',
    });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve({ code, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const outcomes: { name: string; code: number | null; seconds: number }[] = [];
const startedAt = Date.now();
for (const entry of selected) {
  console.log(`\n=== ${entry.name} ===`);
  const outcome = await runOne(entry);
  outcomes.push({ name: entry.name, ...outcome });
  if (outcome.code !== 0) console.error(`${entry.name} FAILED (exit ${outcome.code}) after ${outcome.seconds.toFixed(0)} s`);
}

regenerateDocsTable();
const results = new Map(readResults().map((r) => [r.name, r]));
console.log(`\n=== summary (${((Date.now() - startedAt) / 60_000).toFixed(1)} min) ===`);
for (const outcome of outcomes) {
  const result = results.get(outcome.name);
  if (outcome.code !== 0 || !result) console.log(`${outcome.name}: FAILED (exit ${outcome.code})`);
  else console.log(`${result.target.met ? 'met   ' : 'MISSED'} ${summaryLine(result)} [${outcome.seconds.toFixed(0)} s]`);
}
console.log(`\ntable regenerated in ${DOCS_FILE}`);
process.exitCode = outcomes.some((o) => o.code !== 0) ? 1 : 0;
