/** Every benchmark, in the order `npm run bench` runs them and the docs table lists them. */
export interface BenchEntry {
  name: string;
  /** The script, relative to bench/. */
  file: string;
  /** Rough wall time of a full run on the reference machine (2 cores), for the plan printed at start. */
  minutes: number;
  /** Node flags of the benchmark's child process (the soak samples memory after `global.gc()`: --expose-gc). */
  nodeArgs?: readonly string[];
  /**
   * Runs only when named (`npm run bench -- soak`), not in a plain `npm run bench`. Its result has a file
   * format of its own (a verdict, no metrics table) and its figures live in `docs`, not docs/performance.md.
   */
  onlyWhenNamed?: boolean;
  /** Where its figures are written up, when not in the generated table of docs/performance.md. */
  docs?: string;
}

export const BENCHMARKS: readonly BenchEntry[] = [
  { name: 'catalog-sync', file: 'catalog-sync.ts', minutes: 4 },
  { name: 'catalog-sync-1m', file: 'catalog-sync-1m.ts', minutes: 4 },
  { name: 'resync', file: 'resync.ts', minutes: 2.5 },
  { name: 'event-loop-lag', file: 'event-loop-lag.ts', minutes: 2 },
  { name: 'search', file: 'search.ts', minutes: 1 },
  { name: 'filter-sort', file: 'filter-sort.ts', minutes: 1 },
  { name: 'live-events', file: 'live-events.ts', minutes: 1.5 },
  { name: 'auto-buy', file: 'auto-buy.ts', minutes: 0.5 },
  { name: 'cold-start', file: 'cold-start.ts', minutes: 1.5 },
  { name: 'scroll', file: 'scroll.ts', minutes: 1.5 },
  { name: 'rest-throughput', file: 'rest-throughput.ts', minutes: 1.5 },
  { name: 'sandbox-feed', file: 'sandbox-feed.ts', minutes: 1.5 },
  { name: 'sandbox-history', file: 'sandbox-history.ts', minutes: 6 },
  // A busy merchant end to end through the web host: back-fill of 140k trades, live flow, polling with the feed down.
  { name: 'busy-sync', file: 'busy-sync.ts', minutes: 30 },
  { name: 'busy-export', file: 'busy-export.ts', minutes: 2.5 },
  // The first run fills a year's store (3.65M trades) once into bench/.cache: ~25 minutes more.
  { name: 'busy-queries', file: 'busy-queries.ts', minutes: 12 },
  // The failures board's first screen on the same stores (filled once by busy-queries or by this one).
  { name: 'failures-board', file: 'failures-board.ts', minutes: 3 },
  // The Operations views' first screens on a year's store (filled once, shared with busy-queries).
  { name: 'operations', file: 'operations.ts', minutes: 4 },
  // Every trade of the same year's store exported through the bridge: it completes.
  { name: 'busy-export-year', file: 'busy-export-year.ts', minutes: 3 },
  // Correctness at scale: the store model test (test/core/storeModel.test.ts) at 100k items.
  { name: 'store-model', file: 'store-model.ts', minutes: 6 },
  // 30 minutes of live events at 10× the simulator's default rate, with buys and forced reconnects.
  {
    name: 'soak',
    file: 'soak.ts',
    minutes: 31,
    nodeArgs: ['--expose-gc'],
    onlyWhenNamed: true,
    docs: 'docs/reliability.md',
  },
];

/** What a plain `npm run bench` runs: every benchmark but the ones run only when named. */
export const DEFAULT_BENCHMARKS: readonly BenchEntry[] = BENCHMARKS.filter((b) => !b.onlyWhenNamed);

/** The child process's arguments for a benchmark (after `node`). */
export function benchArgv(entry: BenchEntry, benchDir: string, quick: boolean): string[] {
  return [
    ...(entry.nodeArgs ?? []),
    '--import',
    'tsx',
    `${benchDir.replace(/\/+$/, '')}/${entry.file}`,
    ...(quick ? ['--quick'] : []),
  ];
}

export function findBenchmark(name: string): BenchEntry | undefined {
  return BENCHMARKS.find((b) => b.name === name);
}
