/**
 * The background checkpoint (worker/open.ts CheckpointService) on a real store file: it runs once the WAL
 * holds its threshold of frames not yet copied into the database, not whenever the WAL *file* is large
 * (the writer reuses the file from its start after a checkpoint and keeps it at its size limit, so a check
 * by file size checkpointed on every tick once the file had grown: five times a second under live events).
 * And the writer's own checkpoint, which is what starts the WAL over under a steady flow of writes: it runs
 * at the WAL's size limit, so the file never grows past it between syncs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointService, SYNC_AUTOCHECKPOINT_PAGES, WAL_SIZE_LIMIT_BYTES, WRITER_AUTOCHECKPOINT_PAGES } from '../../src/main/core/store/worker/open';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { syncWriterWithList } from '../support/listServer';

const dir = mkdtempSync(join(tmpdir(), 'checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THRESHOLD = 256 * 1024;

describe('background checkpoint', () => {
  it('checkpoints once the frames not yet copied pass the threshold, and not again for a few new frames in a large WAL file', () => {
    const file = join(dir, 'store.sqlite');
    const writer = new WriterService(file);
    const checkpoints = new CheckpointService(file, THRESHOLD);
    try {
      // ~40 KB of pages a write (a value spills to overflow pages).
      const write = (n: number) => {
        for (let i = 0; i < n; i++) writer.setMeta(`blob.${i % 4}`, 'x'.repeat(40_000 + i));
      };
      // The new store's schema went through the WAL: copied first.
      writer.db.pragma('wal_checkpoint(PASSIVE)');
      expect(checkpoints.maybeCheckpoint()).toBe(false);
      write(2);
      expect(checkpoints.maybeCheckpoint()).toBe(false); // ~80 KB waiting: below the threshold
      write(10);
      const walBytes = statSync(`${file}-wal`).size;
      expect(walBytes).toBeGreaterThan(THRESHOLD);
      expect(checkpoints.maybeCheckpoint()).toBe(true);
      expect(checkpoints.maybeCheckpoint()).toBe(false); // all copied: nothing waits
      // The writer starts the WAL over at its next write; the file keeps its size.
      write(1);
      expect(statSync(`${file}-wal`).size).toBeGreaterThanOrEqual(walBytes);
      expect(checkpoints.maybeCheckpoint()).toBe(false);
      write(10);
      expect(checkpoints.maybeCheckpoint()).toBe(true);
      // What was checkpointed is in the file: a fresh connection reads it with the WAL gone.
      expect(writer.readMeta('blob.1')).toBe('x'.repeat(40_000 + 9));
    } finally {
      checkpoints.close();
      writer.close();
    }
  });

  it('does not checkpoint (and does not throw) when the WAL index cannot be read', () => {
    const file = join(dir, 'gone.sqlite');
    const writer = new WriterService(file);
    const checkpoints = new CheckpointService(file, 1);
    writer.close();
    try {
      // The WAL index gone (as on a file system that lost it): no checkpoint, and no throw.
      rmSync(`${file}-shm`, { force: true });
      expect(checkpoints.maybeCheckpoint()).toBe(false);
    } finally {
      checkpoints.close();
    }
  });

  it('starts the WAL over at its size limit when no background checkpoint catches up; a catalog sync runs past it, with temporary data on disk', async () => {
    const file = join(dir, 'flow.sqlite');
    const writer = new WriterService(file);
    try {
      // 160 writes of ~1 MB, no background checkpoint: the writer's own must start the WAL over, or it grows
      // to 160 MB (it reached 256 MB under live events before the writer checkpointed).
      // Each value differs throughout (SQLite rewrites only the overflow pages whose bytes changed).
      const value = (i: number) => randomBytes(512 * 1024).toString('hex') + i;
      let largest = 0;
      let last = '';
      for (let i = 0; i < 160; i++) {
        last = value(i);
        writer.setMeta(`blob.${i % 8}`, last);
        largest = Math.max(largest, statSync(`${file}-wal`).size);
      }
      expect(largest).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES * 0.9);
      expect(largest).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES + 4 * 1024 * 1024);
      expect(writer.readMeta('blob.7')).toBe(last);

      // Live writes keep temporary data (statement journals) in memory.
      const settings = () => [writer.db.pragma('wal_autocheckpoint', { simple: true }), writer.db.pragma('temp_store', { simple: true })];
      const MEMORY = 2;
      const FILE = 1;
      expect(settings()).toEqual([WRITER_AUTOCHECKPOINT_PAGES, MEMORY]);
      // A sync raises the threshold while it streams (the background checkpoint copies its hundreds of MB) and
      // keeps its staging tables on disk, and puts both back.
      const during: string[] = [];
      const items = [...generateCatalog({ seed: 7, count: 300, imageBaseUrl: 'http://sandbox.invalid/img' })];
      await syncWriterWithList(writer, items, () => during.push(settings().join()));
      expect(during.length).toBeGreaterThan(0);
      expect(new Set(during)).toEqual(new Set([[SYNC_AUTOCHECKPOINT_PAGES, FILE].join()]));
      expect(settings()).toEqual([WRITER_AUTOCHECKPOINT_PAGES, MEMORY]);
      expect(writer.db.prepare('SELECT count(*) FROM items').pluck().get()).toBe(items.length);
      // A sync that fails puts them back too.
      await expect(writer.syncCatalog({ url: 'http://127.0.0.1:1/list', headers: {} }, { signal: new AbortController().signal, progress: () => {} })).rejects.toThrow();
      expect(settings()).toEqual([WRITER_AUTOCHECKPOINT_PAGES, MEMORY]);
    } finally {
      writer.close();
    }
  });
});
