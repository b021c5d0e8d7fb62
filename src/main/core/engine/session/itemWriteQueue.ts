import type { FeedFrame } from '../../../../shared/api';

export type ItemFrame = Extract<FeedFrame, { type: 'item_upserted' | 'price_changed' | 'item_removed' }>;

export function itemFrameSize(frame: ItemFrame): number {
  return frame.type === 'item_removed' ? frame.itemIds.length : frame.items.length;
}

export interface ItemWriteQueueOptions {
  /** Writes a batch of frames (one writer call) and handles its results. */
  write(frames: ItemFrame[]): Promise<void>;
  /** A batch's write failed: reported, and the frames after it go on. */
  onError(error: unknown): void;
  /** At most this many item events in one writer call. */
  maxEventsPerWrite: number;
  /** At most this many writer calls under way at once. */
  maxWritesInFlight: number;
  /** This many waiting events go at once, even while a call is under way. */
  minEventsToOverlap: number;
  /**
   * Calls of fewer events than minEventsToOverlap go at most this often (ms from one call's start to the
   * next's), whether or not the call before is done: under a steady flow what arrives meanwhile shares one
   * commit, and a call that runs longer has the next one waiting behind it at the writer.
   */
  minMsBetweenWrites: number;
}

interface Waiting {
  frame: ItemFrame;
  written: () => void;
}

/**
 * Item frames on their way to the writer, in arrival order. The frames that queued up while a call
 * was under way go in one call (one transaction, each run of one kind a group: one commit and fewer
 * pages written per event under a burst). The next batch may be sent while the writer still works on
 * the previous one (the writer thread takes calls in order), so it never waits for the host to read
 * its results and copy the next batch over: under a flood once minEventsToOverlap wait, under a
 * steady flow minMsBetweenWrites after the last call started. At a trickle each frame is one call, at
 * once. Under a steady flow a small call waits until minMsBetweenWrites after the one before it
 * started: every commit writes each page its events touched, and live prices touch random pages, so
 * at 50,000 events/s calls of ~200 events wrote ~1.5 pages (6 KB of WAL) an event where calls of
 * ~1,000 write well under one. push() resolves once the frame's batch is written and its results handled.
 */
export class ItemWriteQueue {
  private readonly waiting: Waiting[] = [];
  private waitingEvents = 0;
  private inFlight = 0;
  private stopped = false;
  private pumpQueued = false;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private pumpTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: ItemWriteQueueOptions) {}

  push(frame: ItemFrame): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((written) => {
      this.waiting.push({ frame, written });
      this.waitingEvents += itemFrameSize(frame);
      this.pumpSoon();
    });
  }

  /**
   * Sends once the socket reads at hand are handled (setImmediate: right after this turn's I/O), not inside
   * the pushing task: the frames of those reads go in one call, and whatever a frame's other listeners
   * started (an auto-buy's request, which node:http writes on the next tick) goes out before the batch is
   * copied to the writer.
   */
  private pumpSoon(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  /** Frames not yet sent are dropped (their promises resolve): the session is going away. */
  stop(): void {
    this.stopped = true;
    if (this.pumpTimer) clearTimeout(this.pumpTimer);
    this.pumpTimer = null;
    for (const entry of this.waiting.splice(0)) entry.written();
    this.waitingEvents = 0;
  }

  private pump(): void {
    const { maxEventsPerWrite, maxWritesInFlight, minEventsToOverlap, minMsBetweenWrites } = this.options;
    while (this.waiting.length > 0 && !this.stopped && this.inFlight < maxWritesInFlight) {
      if (this.waitingEvents < minEventsToOverlap) {
        const wait = this.lastWriteAt + minMsBetweenWrites - performance.now();
        if (wait > 0) {
          this.pumpAfter(wait);
          return;
        }
      }
      let count = 0;
      let end = 0;
      while (end < this.waiting.length && count < maxEventsPerWrite) {
        count += itemFrameSize((this.waiting[end] as Waiting).frame);
        end++;
      }
      const batch = this.waiting.splice(0, end);
      this.waitingEvents -= count;
      this.inFlight++;
      this.lastWriteAt = performance.now();
      void this.options
        .write(batch.map((entry) => entry.frame))
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => {
          this.inFlight--;
          for (const entry of batch) entry.written();
          this.pump();
        });
    }
  }

  private pumpAfter(ms: number): void {
    if (this.pumpTimer) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, ms);
  }
}
