/**
 * The local store against a model that is not the store (issue 25, step 1): fast-check runs random
 * sequences of full and cut catalog syncs, feed upserts, price changes, removals, re-listings, bursts of
 * them in one call, reopening after a close and after a kill of the app process (a first run meets both
 * whatever the random ones draw), and after each command compares every reader the app uses with the in-memory model of
 * test/core/storeModel/model.ts (its invariants are listed at its top). Two sizes: 40 ids, where commands
 * meet the same items again and again; 3,000 ids, where pages go past the first 2,000 rows and the reader
 * reads its snapshot in chunks. bench/store-model.ts runs the same at 100k items.
 *
 * A failure prints fast-check's seed and path; replay it (STORE_MODEL_SHRINK=0 skips the shrinking):
 *   STORE_MODEL_SEED=<seed> STORE_MODEL_PATH=<path> npx vitest run test/core/storeModel.test.ts -t <size>
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { restartExample } from './storeModel/commands';
import { replayOptions, runStoreModel, type ModelRunOptions } from './storeModel/runner';

const dir = mkdtempSync(join(tmpdir(), 'store-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(options: Omit<ModelRunOptions, 'dir' | 'shrink' | 'timeLimitMs'>): Promise<Map<string, number>> {
  // A folder a size: each run's file is named by its number.
  const files = join(dir, String(options.size.ids));
  mkdirSync(files);
  const report = await runStoreModel({ ...options, dir: files, timeLimitMs: 150_000, ...replayOptions(process.env) });
  const stats = [...report.stats].map(([what, n]) => `${what} ${n}`).join(', ');
  process.stdout.write(
    `store model, ${options.size.ids} ids: ${report.runs} runs, ${report.commandMs.length} commands in ${report.ms} ms: ${stats}\n`,
  );
  return report.stats;
}

/** The kinds of command that ran (a kill's and a sync's by their outcome). */
const kinds = (stats: Map<string, number>) => [...stats.keys()].map((kind) => kind.replace(/^(kill|sync) .*/, '$1'));

describe('local store vs the model', () => {
  it('40 ids: every reader answers as the model after any sequence of syncs, live changes, reopens and kills', async () => {
    const stats = await run({
      size: { ids: 40, batch: 12, pageLimit: 50, detailSample: 40 },
      runs: Number(process.env.STORE_MODEL_RUNS ?? 25),
      minCommands: 3,
      maxCommands: Number(process.env.STORE_MODEL_COMMANDS ?? 8),
      fill: 0,
      examples: [restartExample(40)],
    });
    // Every kind of command ran (else these sizes test less than they claim).
    expect(kinds(stats)).toEqual(
      expect.arrayContaining(['burst', 'prices', 'removals', 'upserts', 'records', 'sync', 'reopen', 'kill']),
    );
  }, 240_000);

  it('3,000 ids: deep pages and a snapshot read in chunks answer as the model too', async () => {
    // The fill's 3,000 new rows are more than a tenth of the table and than SCAN_CHUNK (snapshot.ts, 2,000):
    // the reader reads them in two chunks.
    const stats = await run({
      size: { ids: 3000, batch: 40, pageLimit: 100, detailSample: 20 },
      runs: Number(process.env.STORE_MODEL_LARGE_RUNS ?? 2),
      minCommands: 3,
      maxCommands: 5,
      fill: 3000,
    });
    expect(stats.get('deep pages') ?? 0, 'deep pages checked').toBeGreaterThan(0);
  }, 240_000);
});
