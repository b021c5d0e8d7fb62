/**
 * Shared by catalog-sync (500k) and catalog-sync-1m: per run, one child process
 * syncs into a fresh LocalStore through the real sandbox over loopback, and one
 * child runs the floor against the same sandbox (order alternates between runs).
 * The sandbox lives in this process; each sync uses a fresh merchant (the
 * catalog endpoint allows 10 calls a minute per merchant).
 */
import { runChild, type ChildMessage } from './child';
import { machineInfo } from './machine';
import { buildResult, summaryLine, writeResult, type CheckSpec, type Metric } from './result';
import { catalogUrl, createMerchant, merchantHeaders, startBenchSandbox } from './sandbox';
import { median, round, summarize } from './stats';

interface SyncChildRun {
  committedMs: number;
  searchableMs: number;
  indexedMs: number;
  applyMs: number;
  total: number;
  lag: { p50: number; p99: number; max: number; ms: number };
}

interface SyncChildResult extends ChildMessage {
  type: 'result';
  runs: SyncChildRun[];
  peakRssMB: number;
  rssBeforeOpenMB: number;
}

interface FloorChildResult extends ChildMessage {
  type: 'result';
  committedMs: number;
  downloadedMs: number;
  parsedMs: number;
  firstByteMs: number;
  bytes: number;
  gzBytes: number;
  count: number;
  peakRssMB: number;
}

export interface SyncBenchOptions {
  name: string;
  title: string;
  items: number;
  runs: number;
  floorMode: 'insert' | 'chunked';
  targetText: string;
  /** Checks over the metrics: searchable_s, ratio_to_floor, peak_rss_mb, ... */
  checks: CheckSpec[];
  notes?: string[];
  /** Also try the naive whole-body JSON.parse once and record how it fails (1M). */
  tryNaiveParse?: boolean;
}

export async function runSyncBench(options: SyncBenchOptions): Promise<void> {
  const machine = machineInfo();
  const log = (line: string) => console.log(`[${options.name}] ${line}`);
  const bench = await startBenchSandbox(options.items);
  const url = catalogUrl(bench.sb.baseUrl);
  const ours: { run: SyncChildRun; peakRssMB: number }[] = [];
  const floors: FloorChildResult[] = [];
  const ratios: number[] = [];
  let naive: Record<string, unknown> | null = null;
  try {
    const syncOnce = async () => {
      const merchant = createMerchant(bench.sb);
      const child = await runChild<SyncChildResult>('lib/sync-child.ts', [], {
        env: { BENCH_URL: url, BENCH_HEADERS: JSON.stringify(merchantHeaders(merchant)) },
      });
      const run = child.runs[0] as SyncChildRun;
      if (run.total !== options.items) throw new Error(`synced ${run.total} items, expected ${options.items}`);
      return { run, peakRssMB: child.peakRssMB };
    };
    const floorOnce = async (mode: string) => {
      const merchant = createMerchant(bench.sb);
      return runChild<FloorChildResult>('lib/floor-child.ts', [], {
        env: { BENCH_URL: url, BENCH_HEADERS: JSON.stringify(merchantHeaders(merchant)), BENCH_FLOOR_MODE: mode },
        nodeArgs: ['--max-old-space-size=16384'],
      });
    };
    if (options.tryNaiveParse) {
      try {
        const result = await floorOnce('insert');
        naive = { ok: true, committedMs: Math.round(result.committedMs), peakRssMB: Math.round(result.peakRssMB) };
      } catch (error) {
        const message = (error as Error).message;
        naive = {
          ok: false,
          error:
            /Cannot create a string longer than|Invalid string length|ERR_STRING_TOO_LONG/.exec(message)?.[0] ??
            message.split('\n')[0],
        };
      }
      log(`naive whole-body JSON.parse: ${JSON.stringify(naive)}`);
    }
    for (let i = 0; i < options.runs; i++) {
      let mine: { run: SyncChildRun; peakRssMB: number };
      let floor: FloorChildResult;
      if (i % 2 === 0) {
        mine = await syncOnce();
        floor = await floorOnce(options.floorMode);
      } else {
        floor = await floorOnce(options.floorMode);
        mine = await syncOnce();
      }
      ours.push(mine);
      floors.push(floor);
      ratios.push(mine.run.searchableMs / floor.committedMs);
      log(
        `run ${i + 1}/${options.runs}: ours committed ${(mine.run.committedMs / 1000).toFixed(2)} s, searchable ${(mine.run.searchableMs / 1000).toFixed(2)} s, ` +
          `indexed ${(mine.run.indexedMs / 1000).toFixed(2)} s (apply ${(mine.run.applyMs / 1000).toFixed(2)} s), peak RSS ${Math.round(mine.peakRssMB)} MB, ` +
          `host lag p99 ${mine.run.lag.p99} ms | floor ${(floor.committedMs / 1000).toFixed(2)} s (download+gunzip ${(floor.downloadedMs / 1000).toFixed(2)} s, ` +
          `parsed at ${(floor.parsedMs / 1000).toFixed(2)} s), peak RSS ${Math.round(floor.peakRssMB)} MB | ratio ${ratios[i]?.toFixed(3)}`,
      );
    }
  } finally {
    await bench.close();
  }

  const s = (values: number[]) => summarize(values, 's');
  const metrics: Record<string, Metric> = {
    searchable_s: s(ours.map((o) => o.run.searchableMs / 1000)),
    committed_s: s(ours.map((o) => o.run.committedMs / 1000)),
    indexed_s: s(ours.map((o) => o.run.indexedMs / 1000)),
    apply_s: s(ours.map((o) => o.run.applyMs / 1000)),
    floor_s: s(floors.map((f) => f.committedMs / 1000)),
    ratio_to_floor: summarize(ratios, '×'),
    peak_rss_mb: summarize(
      ours.map((o) => o.peakRssMB),
      'MB',
    ),
    floor_peak_rss_mb: summarize(
      floors.map((f) => f.peakRssMB),
      'MB',
    ),
    host_lag_p99_ms: summarize(
      ours.map((o) => o.run.lag.p99),
      'ms',
    ),
  };
  const floorMedian = median(floors.map((f) => f.committedMs / 1000));
  const result = buildResult({
    name: options.name,
    title: options.title,
    machine,
    runs: options.runs,
    metrics,
    baseline: {
      what:
        options.floorMode === 'chunked'
          ? 'floor: same GET, streaming gunzip, split at item boundaries + JSON.parse per item (one parse of the body exceeds V8’s string limit), insert every row in one transaction'
          : 'floor: same GET, streaming gunzip, one JSON.parse of the whole body, insert every row into a plain table in one transaction',
      median: floorMedian,
      unit: 's',
    },
    ratio: median(ratios),
    ratioMeaning: 'ours ÷ floor, request → committed and searchable, median of per-run ratios',
    targetText: options.targetText,
    checks: options.checks,
    notes: [
      'Ours = LocalStore.syncCatalog in a fresh store (writer worker streams, stages, diffs, commits) + the first search answered; indexed = the readers’ in-memory catalog index rebuilt.',
      'Peak RSS = VmHWM of the child process that hosts the store (host thread + writer + reader workers); the sandbox runs in the parent process.',
      ...(options.notes ?? []),
    ],
    details: {
      items: options.items,
      bodyBytes: floors[0]?.bytes,
      gzipBytes: floors[0]?.gzBytes,
      perRun: ours.map((o, i) => ({
        searchableMs: Math.round(o.run.searchableMs),
        committedMs: Math.round(o.run.committedMs),
        indexedMs: Math.round(o.run.indexedMs),
        applyMs: o.run.applyMs,
        peakRssMB: Math.round(o.peakRssMB),
        hostLag: o.run.lag,
        floorMs: Math.round(floors[i]?.committedMs ?? 0),
        floorDownloadMs: Math.round(floors[i]?.downloadedMs ?? 0),
        floorParsedAtMs: Math.round(floors[i]?.parsedMs ?? 0),
        floorPeakRssMB: Math.round(floors[i]?.peakRssMB ?? 0),
        ratio: round(ratios[i] ?? 0),
      })),
      ...(naive ? { naiveWholeBodyParse: naive } : {}),
    },
  });
  log(`wrote ${writeResult(result)}`);
  console.log(summaryLine(result));
}
