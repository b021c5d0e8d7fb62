/**
 * Runs the store model property (fast-check commands against a fresh store file each run), for the unit
 * test at a small size and for bench/store-model.ts at 100k items. Throws fast-check's report (seed, path,
 * the smallest failing command list found) when the store and the model disagree.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { commandArb, deepQueries, itemOf, openStore, type Command } from './commands';
import { Clock, checkAll, DEEP_PAGE_ROWS, type Real, type SizeProfile } from './compare';
import { ListServer } from './listServer';
import { CatalogModel } from './model';
import { bundleStore } from './storeProcess';

export interface ModelRunOptions {
  size: SizeProfile;
  runs: number;
  minCommands: number;
  maxCommands: number;
  /** Items each run's store is filled with by a first sync before the commands (0: it starts empty). */
  fill: number;
  /** Command lists run first (each counts as a run). */
  examples?: Command[][];
  /** Where the runs' store files go. */
  dir: string;
  seed?: number;
  path?: string;
  /** Shrink a failure to a smaller case (replays whole runs; bounded by timeLimitMs). */
  shrink: boolean;
  timeLimitMs: number;
  log?: (line: string) => void;
}

export interface ModelRunReport {
  runs: number;
  ms: number;
  /** How many times each kind of command ran (and how: sync mode, reopen index, kill point). */
  stats: Map<string, number>;
  commandMs: number[];
  fillMs: number[];
}

/** From the environment: STORE_MODEL_SEED, STORE_MODEL_PATH (replay a failure), STORE_MODEL_SHRINK=0. */
export function replayOptions(env: NodeJS.ProcessEnv): Pick<ModelRunOptions, 'seed' | 'path'> & { shrink: boolean } {
  return {
    ...(env.STORE_MODEL_SEED === undefined ? {} : { seed: Number(env.STORE_MODEL_SEED) }),
    ...(env.STORE_MODEL_PATH === undefined ? {} : { path: env.STORE_MODEL_PATH }),
    shrink: env.STORE_MODEL_SHRINK !== '0',
  };
}

export async function runStoreModel(options: ModelRunOptions): Promise<ModelRunReport> {
  const [bundles, server] = await Promise.all([bundleStore(), ListServer.start()]);
  const report: ModelRunReport = { runs: 0, ms: 0, stats: new Map(), commandMs: [], fillMs: [] };
  const started = Date.now();
  try {
    await fc.assert(
      // A plain array of commands (not fc.commands): its length is drawn evenly, so runs are long enough to
      // meet the same items through several writes; shrinking still drops commands one by one.
      fc.asyncProperty(
        fc.array(commandArb(options.size), { minLength: options.minCommands, maxLength: options.maxCommands }),
        async (commands) => {
          const run = ++report.runs;
          const real: Real = {
            store: null as unknown as Real['store'],
            file: join(options.dir, `run-${run}.sqlite`),
            bundles,
            server,
            clock: new Clock(),
            size: options.size,
            stats: report.stats,
            commandMs: report.commandMs,
          };
          const model = new CatalogModel();
          await openStore(real);
          try {
            if (options.fill > 0) await fill(model, real, options.fill, report);
            await fc.asyncModelRun(() => ({ model, real }), commands);
          } finally {
            await real.store.close();
          }
          options.log?.(`run ${run}: ${commands.length} commands, ${Date.now() - started} ms so far`);
        },
      ),
      {
        numRuns: options.runs,
        examples: (options.examples ?? []).map((commands): [Command[]] => [commands]),
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.path === undefined ? {} : { path: options.path }),
        endOnFailure: !options.shrink,
        interruptAfterTimeLimit: options.timeLimitMs,
      },
    );
  } finally {
    report.ms = Date.now() - started;
    await server.close();
    bundles.dispose();
  }
  return report;
}

/** The first sync of a large catalog (ids 1..count), checked like any command. */
async function fill(model: CatalogModel, real: Real, count: number, report: ModelRunReport): Promise<void> {
  const started = performance.now();
  const items = Array.from({ length: count }, (_, i) =>
    itemOf(model, { itemId: i + 1, variant: 'fresh', seed: 1, price: 125 * (1 + ((i * 7919) % 40)) }),
  );
  const lastUpdate = '2026-10-31T00:00:00.000Z';
  real.server.serve(items, lastUpdate, 'whole');
  const tick = await real.clock.begin();
  const result = await real.store.syncCatalog({ url: real.server.url, headers: {} });
  real.clock.end(tick);
  if (!result.ok) throw new Error(`fill sync failed: ${result.status}`);
  model.sync(items, lastUpdate, tick);
  // A catalog past the first DEEP_PAGE_ROWS is read there too, not only when a command's random queries go deep.
  await checkAll(real, model, count > DEEP_PAGE_ROWS ? deepQueries(real.size.pageLimit) : [], [], 1);
  report.fillMs.push(performance.now() - started);
}
