import type { EngineEventBatch } from '../../../shared/ipc/events';

/** Per read under way, the batches applied since it was asked for. */
const reads = new Set<EngineEventBatch[]>();

/** Every batch applied is noted here, for the reads under way. */
export function noteBatch(batch: EngineEventBatch): void {
  for (const since of reads) since.push(batch);
}

/**
 * Runs a read and hands its answer over with the batches applied while it was out: the answer may be older than
 * they are (read before them, or sent after them), and no later batch comes until that state changes again.
 */
export async function readWithBatches<T>(read: () => Promise<T>): Promise<{ answer: T; since: EngineEventBatch[] }> {
  const since: EngineEventBatch[] = [];
  reads.add(since);
  try {
    return { answer: await read(), since };
  } finally {
    reads.delete(since);
  }
}
