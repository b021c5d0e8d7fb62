/**
 * `npm run bench` — every benchmark (but the soak); `npm run bench -- catalog-sync search` — the
 * named ones (`npm run bench -- soak`: the 30-minute soak); `--quick` — fewer runs (for
 * development; commit full runs); `--list` — the names; `--docs` — only regenerate the docs
 * table; `--dry-run` — print the child commands and stop.
 *
 * Each benchmark runs in its own child process (clean RSS and GC; with the node flags its
 * registry entry names, e.g. --expose-gc for the soak), writes bench/results/NAME.json, and this
 * script then prints a summary and rewrites the generated table of docs/performance.md from
 * every results file (not for a run of only benchmarks documented elsewhere, like the soak).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { regenerateDocsTable, DOCS_FILE } from './lib/docs';
import { benchArgv, BENCHMARKS, DEFAULT_BENCHMARKS, findBenchmark, type BenchEntry } from './lib/registry';
import { BENCH_DIR, readResults, resultFile, ROOT_DIR, summaryLine } from './lib/result';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const names = args.filter((a) => !a.startsWith('--'));

if (args.includes('--list')) {
  for (const b of BENCHMARKS) {
    const notes = [
      b.onlyWhenNamed ? 'only when named' : '',
      b.nodeArgs?.length ? `node ${b.nodeArgs.join(' ')}` : '',
      b.docs ? `see ${b.docs}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    console.log(`${b.name.padEnd(18)} ~${b.minutes} min  bench/${b.file}${notes ? `  (${notes})` : ''}`);
  }
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
const selected: BenchEntry[] =
  names.length > 0 ? BENCHMARKS.filter((b) => names.includes(b.name)) : [...DEFAULT_BENCHMARKS];
const planned = selected.reduce((sum, b) => sum + b.minutes, 0);
console.log(
  `running ${selected.map((b) => b.name).join(', ')}${quick ? ' (quick)' : ''}; about ${Math.round(quick ? planned / 2 : planned)} min on 2 cores`,
);
if (names.length === 0) {
  const skipped = BENCHMARKS.filter((b) => b.onlyWhenNamed).map((b) => b.name);
  if (skipped.length > 0) console.log(`not run unless named: ${skipped.join(', ')} (npm run bench -- ${skipped[0]})`);
}
if (args.includes('--dry-run')) {
  for (const entry of selected)
    console.log(`${entry.name}: ${process.execPath} ${benchArgv(entry, BENCH_DIR, quick).join(' ')}`);
  process.exit(0);
}

function runOne(entry: BenchEntry): Promise<{ code: number | null; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, benchArgv(entry, BENCH_DIR, quick), {
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
  if (outcome.code !== 0)
    console.error(`${entry.name} FAILED (exit ${outcome.code}) after ${outcome.seconds.toFixed(0)} s`);
}

// Benchmarks written up elsewhere (the soak: docs/reliability.md) leave the generated table alone.
const tableRun = selected.some((b) => !b.docs);
if (tableRun) regenerateDocsTable();
const results = new Map(readResults().map((r) => [r.name, r]));
console.log(`\n=== summary (${((Date.now() - startedAt) / 60_000).toFixed(1)} min) ===`);
for (const outcome of outcomes) {
  const entry = findBenchmark(outcome.name);
  const result = results.get(outcome.name);
  if (entry?.docs) console.log(`${verdictLine(entry)} [${outcome.seconds.toFixed(0)} s]`);
  else if (outcome.code !== 0 || !result) console.log(`${outcome.name}: FAILED (exit ${outcome.code})`);
  else
    console.log(`${result.target.met ? 'met   ' : 'MISSED'} ${summaryLine(result)} [${outcome.seconds.toFixed(0)} s]`);
}
if (tableRun) console.log(`\ntable regenerated in ${DOCS_FILE}`);

/** One line from a verdict-style result file (the soak's): PASS/FAIL and why. */
function verdictLine(entry: BenchEntry): string {
  const file = resultFile(entry.name);
  if (!existsSync(file)) return `${entry.name}: FAILED (no ${file})`;
  const result = JSON.parse(readFileSync(file, 'utf8')) as {
    durationMinutes?: number;
    verdict?: { pass?: boolean; failures?: string[] };
  };
  const failures = result.verdict?.failures ?? [];
  return `${result.verdict?.pass ? 'PASS  ' : 'FAILED'} ${entry.name}: ${result.durationMinutes ?? '?'} min${failures.length > 0 ? `: ${failures.join('; ')}` : ''}; figures in ${entry.docs}`;
}
process.exitCode = outcomes.some((o) => o.code !== 0) ? 1 : 0;
