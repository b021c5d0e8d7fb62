/**
 * An account store in this thread for tests of catalog writes and reads: a real SQLite file with the
 * writer's and a reader's services (what the worker threads run), without the threads.
 */
import { rmSync } from 'node:fs';
import type { Item } from '../../src/shared/api';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { applyItemUpserts } from './liveChanges';

/** The writer with `held` written, and a reader. */
export function openLiveStore(file: string, held: Item[] = []): { writer: WriterService; reader: ReaderService } {
  const writer = new WriterService(file);
  if (held.length > 0) applyItemUpserts(writer.catalog, held);
  return { writer, reader: new ReaderService(file) };
}

/** Closes the services in order and removes the store's directory. */
export function closeLiveStore(dir: string, ...services: { close(): void }[]): void {
  for (const service of services) service.close();
  rmSync(dir, { recursive: true, force: true });
}
