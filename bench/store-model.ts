/**
 * The store model test (test/core/storeModel.test.ts) at 100k items: each run fills a fresh store with a
 * 100k-item sync, then fast-check runs a random sequence of syncs (2 % to 30 % of the list changed),
 * live writes of up to 2,000 items, bursts, reopens and kills of the app process, and after each command
 * compares the store's readers (pages for random filters and sorts, totals, the detail of the items it
 * touched and of a sample) with the in-memory model. A disagreement fails the benchmark with fast-check's
 * seed and path (replay: STORE_MODEL_SEED / STORE_MODEL_PATH, as for the unit test).
 *
 * Baseline, same run: the fill, one full sync of the 100k items into an empty store (a command's cost
 * is measured against it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayOptions, runStoreModel } from '../test/core/storeModel/runner';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, runCount, summaryLine, writeResult } from './lib/result';
import { median, summarize } from './lib/stats';

const ITEMS = isQuick() ? 5_000 : 100_000;
const runs = runCount(2, 1);
const machine = machineInfo();
const log = (line: string) => console.log(`[store-model] ${line}`);

const dir = mkdtempSync(join(tmpdir(), 'md-bench-store-model-'));
let failure: string | null = null;
let report: Awaited<ReturnType<typeof runStoreModel>> | null = null;
try {
  report = await runStoreModel({
    size: { ids: ITEMS, batch: 2_000, pageLimit: 200, detailSample: 200 },
    runs,
    minCommands: 15,
    maxCommands: 30,
    fill: ITEMS,
    dir,
    timeLimitMs: 40 * 60_000,
    log,
    ...replayOptions(process.env),
    // At this size a shrink replays 100k-item runs for hours: the seed and path are the report.
    shrink: process.env.STORE_MODEL_SHRINK === '1',
  });
} catch (error) {
  failure = (error as Error).message;
  log(failure);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const commandMs = report?.commandMs ?? [];
const fillMs = report?.fillMs ?? [];
const result = buildResult({
  name: 'store-model',
  title: `Store vs the in-memory model at ${ITEMS / 1000}k items: random syncs, live writes, reopens and kills, every reader compared after each command`,
  runs: report?.runs ?? 0,
  metrics: {
    disagreements: { median: failure ? 1 : 0, min: failure ? 1 : 0, max: failure ? 1 : 0, unit: 'count' },
    commandMs: summarize(commandMs.length > 0 ? commandMs : [Number.NaN], 'ms', { p95: true }),
    fillMs: summarize(fillMs.length > 0 ? fillMs : [Number.NaN], 'ms'),
  },
  baseline: {
    what: `full sync of ${ITEMS / 1000}k items into an empty store, checked (the fill)`,
    median: median(fillMs),
    unit: 'ms',
  },
  ratio: median(commandMs) / median(fillMs),
  ratioMeaning: 'a command with its checks / the fill',
  targetText: 'no disagreement between the store and the model',
  checks: [{ text: 'no disagreement', metric: 'disagreements', stat: 'max', op: '<=', value: 0 }],
  notes: [
    `${commandMs.length} commands in ${report?.runs ?? 0} runs: ${[...(report?.stats ?? new Map<string, number>())].map(([what, n]) => `${what} ${n}`).join(', ')}`,
    ...(failure ? [failure.slice(0, 4000)] : []),
  ],
  machine,
});
log(`results written to ${writeResult(result)}`);
console.log(summaryLine(result));
process.exitCode = failure ? 1 : 0;
