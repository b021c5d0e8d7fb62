/**
 * The local store against a model that is not the store (issue 25, step 1): fast-check runs random
 * sequences of full and cut catalog syncs, feed upserts, price changes, removals, re-listings, bursts of
 * them in one call, reopening after a close and after a kill of the app process, and after each command
 * compares every reader the app uses with the in-memory model of test/core/storeModel/model.ts (its
 * invariants are listed at its top). bench/store-model.ts runs the same at 100k items.
 *
 * A failure prints fast-check's seed and path; replay it (STORE_MODEL_SHRINK=0 skips the shrinking):
 *   STORE_MODEL_SEED=<seed> STORE_MODEL_PATH=<path> npx vitest run test/core/storeModel.test.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replayOptions, runStoreModel } from './storeModel/runner';

const dir = mkdtempSync(join(tmpdir(), 'store-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('local store vs the model', () => {
  it('every reader answers as the model after any sequence of syncs, live changes, reopens and kills', async () => {
    const report = await runStoreModel({
      // 40 ids: commands meet the same items again and again.
      size: { ids: 40, batch: 12, pageLimit: 50, detailSample: 40 },
      runs: Number(process.env.STORE_MODEL_RUNS ?? 4),
      minCommands: 15,
      maxCommands: Number(process.env.STORE_MODEL_COMMANDS ?? 30),
      fill: 0,
      dir,
      timeLimitMs: 150_000,
      ...replayOptions(process.env),
    });
    process.stdout.write(
      `store model: ${report.runs} runs, ${report.commandMs.length} commands in ${report.ms} ms: ${[...report.stats].map(([what, n]) => `${what} ${n}`).join(', ')}\n`,
    );
    // Every kind of command ran (else these sizes test less than they claim).
    expect([...report.stats.keys()]).toEqual(
      expect.arrayContaining(['burst', 'prices', 'removals', 'upserts', 'records']),
    );
    expect(
      [...report.stats.keys()].filter((kind) => kind.startsWith('sync')).length,
      'syncs of some kind',
    ).toBeGreaterThan(0);
  }, 240_000);
});
