/** Every benchmark, in the order `npm run bench` runs them and the docs table lists them. */
export interface BenchEntry {
  name: string;
  /** The script, relative to bench/. */
  file: string;
  /** Rough wall time of a full run on the reference machine (2 cores), for the plan printed at start. */
  minutes: number;
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
];

export function findBenchmark(name: string): BenchEntry | undefined {
  return BENCHMARKS.find((b) => b.name === name);
}
