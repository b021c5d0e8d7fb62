/**
 * The background checkpoint (worker/open.ts CheckpointService) on a real store file: it runs once the WAL
 * holds its threshold of frames not yet copied into the database, not whenever the WAL *file* is large
 * (the writer reuses the file from its start after a checkpoint and keeps it at its size limit, so a check
 * by file size checkpointed on every tick once the file had grown: five times a second under live events).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointService } from '../../src/main/core/store/worker/open';
import { WriterService } from '../../src/main/core/store/worker/writer';

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
});
