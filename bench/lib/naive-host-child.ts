/**
 * Child process: the naive host — the whole catalog fetched, parsed and written on
 * the host's own thread (fetch → JSON.parse → one SQLite transaction), with the
 * event-loop delay recorded meanwhile. The baseline of event-loop-lag.
 *
 * env: BENCH_URL, BENCH_HEADERS (JSON)
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { childMain } from './child';
import { LagMonitor } from './lag';
import { scratchDir } from './sandbox';

childMain(async () => {
  const dir = scratchDir('naive-host');
  const db = new Database(join(dir, 'naive.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE items (itemId INTEGER PRIMARY KEY, name TEXT NOT NULL, price INTEGER NOT NULL, json TEXT NOT NULL)',
  );
  const insert = db.prepare('INSERT INTO items (itemId, name, price, json) VALUES (?, ?, ?, ?)');
  const lag = new LagMonitor().start();
  const started = performance.now();
  try {
    const response = await fetch(process.env['BENCH_URL'] as string, {
      headers: JSON.parse(process.env['BENCH_HEADERS'] as string) as Record<string, string>,
    });
    const envelope = (await response.json()) as {
      items: { itemId: number; market_hash_name: string; price: number }[];
    };
    db.transaction(() => {
      for (const item of envelope.items)
        insert.run(item.itemId, item.market_hash_name, item.price, JSON.stringify(item));
    })();
    // Let the loop turn once more so the last long task is measured.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { ...lag.stop(), totalMs: Math.round(performance.now() - started) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
