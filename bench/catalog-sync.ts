/**
 * Full catalog sync, 500k items, through the real sandbox over loopback into a
 * fresh LocalStore, against the floor measured in the same run (see
 * lib/floor-child.ts). `npm run bench -- catalog-sync`, or `npx tsx bench/catalog-sync.ts [--quick]`.
 */
import { runCount } from './lib/result';
import { runSyncBench } from './lib/syncBench';

await runSyncBench({
  name: 'catalog-sync',
  title: 'full sync of 500k items, request → committed and searchable',
  items: 500_000,
  runs: runCount(5, 2),
  floorMode: 'insert',
  targetText: '≤ 1.3 × the same-run floor; peak RSS ≤ 512 MB',
  checks: [
    { text: 'ratio to floor', metric: 'ratio_to_floor', stat: 'median', op: '<=', value: 1.3 },
    { text: 'peak RSS', metric: 'peak_rss_mb', stat: 'max', op: '<=', value: 512 },
  ],
});
