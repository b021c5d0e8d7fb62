/**
 * Child process of catalog-sync, catalog-sync-1m and resync: opens a fresh (or
 * given) LocalStore, runs the real streaming catalog sync against the sandbox,
 * and reports request→committed, →searchable (first search answered) and
 * →indexed (in-memory catalog index ready), the host's event-loop delay during
 * it, and this process's peak RSS (VmHWM: host + writer + reader threads).
 *
 * env: BENCH_URL, BENCH_HEADERS (JSON), BENCH_STORE (file; default a temp one),
 *      BENCH_SEARCH (term for the "searchable" probe), BENCH_SYNCS (syncs in a row, default 1)
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LocalStore } from '../../src/main/core/store';
import { childMain, toParent } from './child';
import { LagMonitor } from './lag';
import { peakRssMB, procStatusMB } from './rss';
import { scratchDir } from './sandbox';

interface SyncRun {
  committedMs: number;
  searchableMs: number;
  indexedMs: number;
  applyMs: number;
  added: number;
  updated: number;
  removed: number;
  total: number;
  lag: ReturnType<LagMonitor['stop']>;
  rssAfterMB: number | null;
}

childMain(async () => {
  const url = process.env['BENCH_URL'] as string;
  const headers = JSON.parse(process.env['BENCH_HEADERS'] as string) as Record<string, string>;
  const syncs = Number(process.env['BENCH_SYNCS'] ?? 1);
  const term = process.env['BENCH_SEARCH'] ?? 'Redline';
  const dir = process.env['BENCH_STORE'] ? null : scratchDir('sync');
  const file = process.env['BENCH_STORE'] ?? join(dir as string, 'store.sqlite');
  const rssBeforeOpenMB = peakRssMB();
  // BENCH_RSS_TRACE=1: log anonymous vs file-backed resident memory every 250 ms (where the peak comes from).
  const trace = process.env['BENCH_RSS_TRACE']
    ? setInterval(() => {
        const status = readFileSync('/proc/self/status', 'utf8');
        const kb = (field: string) =>
          Math.round(Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) / 1024);
        console.error(
          `[rss] ${Math.round(performance.now())} ms anon ${kb('RssAnon')} MB file ${kb('RssFile')} MB shmem ${kb('RssShmem')} MB`,
        );
      }, 250)
    : null;
  const store = await LocalStore.open({ file });
  await store.queryCatalog({ limit: 1 });
  const runs: SyncRun[] = [];
  try {
    for (let i = 0; i < syncs; i++) {
      if (i > 0) {
        // resync: the parent changes the server's catalog between syncs, then says 'go'.
        await new Promise<void>((resolve) => process.once('message', () => resolve()));
      }
      const lag = new LagMonitor().start();
      const started = performance.now();
      const result = await store.syncCatalog({ url, headers });
      const committedMs = performance.now() - started;
      if (!result.ok) throw new Error(`sync answered HTTP ${result.status}: ${result.bodyText.slice(0, 200)}`);
      const page = await store.queryCatalog({ search: term, limit: 200 });
      const searchableMs = performance.now() - started;
      if (page.rows.length === 0) throw new Error(`no rows for "${term}" after the sync`);
      await store.queryCatalog({ sort: 'float', limit: 200 });
      const indexedMs = performance.now() - started;
      runs.push({
        committedMs,
        searchableMs,
        indexedMs,
        applyMs: result.applyMs,
        added: result.added,
        updated: result.updated,
        removed: result.removed,
        total: result.total,
        lag: lag.stop(),
        rssAfterMB: procStatusMB('VmRSS'),
      });
      if (syncs > 1) await toParent({ type: 'synced', index: i, run: runs[i] as unknown as Record<string, unknown> });
    }
  } finally {
    if (trace) clearInterval(trace);
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return { runs, peakRssMB: peakRssMB(), rssBeforeOpenMB };
});
