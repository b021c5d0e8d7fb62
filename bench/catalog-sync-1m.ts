/**
 * Full catalog sync of 1,000,000 items: it must complete within 768 MB peak RSS.
 * The naive floor (one JSON.parse of the body) is tried once and fails at V8's
 * string limit; the baseline is therefore the chunked floor (lib/floor-child.ts).
 */
import { runCount } from './lib/result';
import { runSyncBench } from './lib/syncBench';

await runSyncBench({
  name: 'catalog-sync-1m',
  title: 'full sync of 1,000,000 items',
  items: 1_000_000,
  runs: runCount(3, 1),
  floorMode: 'chunked',
  tryNaiveParse: true,
  targetText: 'completes; peak RSS ≤ 768 MB',
  checks: [{ text: 'peak RSS', metric: 'peak_rss_mb', stat: 'max', op: '<=', value: 768 }],
  notes: [
    '3 runs (each sync + floor takes ~2 min at 1M on 2 cores); completing every run is the first condition (a failed run aborts the benchmark).',
  ],
});
