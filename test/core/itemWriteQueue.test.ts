/**
 * The item frames' way to the writer (engine/itemWriteQueue.ts): batching, the second call sent while
 * the first is under way, order, failures and stop. The writer here is a function whose calls the test
 * finishes by hand, so each step of the schedule is observable.
 */
import { describe, expect, it, vi } from 'vitest';
import { ItemWriteQueue, type ItemFrame } from '../../src/main/core/engine/session/itemWriteQueue';
import { waitFor } from '../support/waitFor';

function prices(first: number, count: number): ItemFrame {
  return {
    type: 'price_changed',
    items: Array.from({ length: count }, (_, i) => ({ itemId: first + i, price: 100 + i })),
  } as ItemFrame;
}

function removal(itemId: number): ItemFrame {
  return { type: 'item_removed', itemIds: [itemId] } as ItemFrame;
}

/** A writer whose calls stay under way until the test ends them. */
function manualWriter() {
  const calls: { frames: ItemFrame[]; finish: (error?: Error) => void }[] = [];
  const write = (frames: ItemFrame[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ frames, finish: (error) => (error ? reject(error) : resolve()) });
    });
  return { calls, write };
}

/** A queue paced at `minMsBetweenWrites` over a manual writer, with the time each call was sent. */
function pacedQueue(minMsBetweenWrites: number) {
  const writer = manualWriter();
  const sentAt: number[] = [];
  const queue = new ItemWriteQueue({
    write: (frames) => {
      sentAt.push(performance.now());
      return writer.write(frames);
    },
    onError: () => undefined,
    maxEventsPerWrite: 1000,
    maxWritesInFlight: 2,
    minEventsToOverlap: 300,
    minMsBetweenWrites,
  });
  return { writer, sentAt, queue };
}

const firstIds = (frames: ItemFrame[]) =>
  frames.map((frame) => (frame.type === 'item_removed' ? frame.itemIds[0] : frame.items[0]?.itemId));
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Past this turn's I/O: the queue sends then (setImmediate). */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ItemWriteQueue', () => {
  it('writes at the end of the task when idle, batches what arrives meanwhile, and overlaps a second call only past the threshold', async () => {
    const writer = manualWriter();
    const errors: unknown[] = [];
    // The interval is longer than the test: only the threshold lets a second call overlap.
    const queue = new ItemWriteQueue({
      write: writer.write,
      onError: (e) => errors.push(e),
      maxEventsPerWrite: 1000,
      maxWritesInFlight: 2,
      minEventsToOverlap: 300,
      minMsBetweenWrites: 60_000,
    });
    const written: number[] = [];
    const push = (frame: ItemFrame, id: number) => void queue.push(frame).then(() => written.push(id));

    push(prices(1, 10), 1);
    expect(writer.calls).toHaveLength(0); // not inside the pushing task...
    await tick();
    expect(writer.calls).toHaveLength(1); // ...but right after it, when idle
    push(prices(100, 100), 2);
    push(removal(5), 3);
    push(prices(200, 100), 4);
    await tick();
    expect(writer.calls).toHaveLength(1); // 201 waiting < 300: they wait for the first call
    push(prices(300, 150), 5); // 351 waiting: the second call goes while the first is under way
    await tick();
    expect(writer.calls).toHaveLength(2);
    expect(firstIds(writer.calls[1]?.frames ?? [])).toEqual([100, 5, 200, 300]);
    push(prices(500, 400), 6);
    push(prices(900, 400), 7);
    await tick();
    expect(writer.calls).toHaveLength(2); // never more than two under way

    writer.calls[0]?.finish();
    await flush();
    expect(written).toEqual([1]);
    // The first call done: the waiting frames go, cut at maxEventsPerWrite (400 + 400 < 1000 here: one call).
    expect(writer.calls).toHaveLength(3);
    expect(firstIds(writer.calls[2]?.frames ?? [])).toEqual([500, 900]);

    writer.calls[1]?.finish(new Error('disk full'));
    await flush();
    expect(errors).toHaveLength(1);
    expect(written).toEqual([1, 2, 3, 4, 5]); // a failed batch still settles its frames; later ones go on
    writer.calls[2]?.finish();
    await flush();
    expect(written).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(errors).toEqual([new Error('disk full')]);
  });

  it('sends the frames of one turn in one call, after work they started on the next tick', async () => {
    const writer = manualWriter();
    const queue = new ItemWriteQueue({
      write: writer.write,
      onError: () => undefined,
      maxEventsPerWrite: 1000,
      maxWritesInFlight: 2,
      minEventsToOverlap: 1,
      minMsBetweenWrites: 0,
    });
    const order: string[] = [];
    // As a socket read does: several frames in one task, one of whose listeners starts a request written
    // on the next tick (node:http hands a request its socket then).
    void queue.push(prices(1, 1));
    process.nextTick(() => order.push(`request written (calls so far: ${writer.calls.length})`));
    void queue.push(removal(2));
    void queue.push(prices(3, 1));
    await tick();
    expect(order).toEqual(['request written (calls so far: 0)']);
    expect(writer.calls).toHaveLength(1);
    expect(firstIds(writer.calls[0]?.frames ?? [])).toEqual([1, 2, 3]);
  });

  it('cuts a flood into calls of at most maxEventsPerWrite events, in arrival order', async () => {
    const writer = manualWriter();
    const queue = new ItemWriteQueue({
      write: writer.write,
      onError: () => undefined,
      maxEventsPerWrite: 250,
      maxWritesInFlight: 2,
      minEventsToOverlap: 1,
      minMsBetweenWrites: 0,
    });
    void queue.push(prices(0, 100));
    for (let i = 1; i <= 10; i++) void queue.push(prices(i * 100, 100));
    await tick();
    const sent: number[] = [];
    for (let next = 0; next < writer.calls.length; next++) {
      const call = writer.calls[next] as (typeof writer.calls)[number];
      sent.push(...firstIds(call.frames).map(Number));
      expect(
        call.frames.reduce(
          (sum, frame) => sum + (frame.type === 'item_removed' ? frame.itemIds.length : frame.items.length),
          0,
        ),
      ).toBeLessThanOrEqual(300);
      call.finish();
      await flush();
    }
    expect(writer.calls.length).toBeGreaterThanOrEqual(4); // 11 frames of 100, at most 300 events a call
    expect(sent).toEqual(Array.from({ length: 11 }, (_, i) => i * 100));
  });

  it('under a steady flow, sends a small call no sooner than minMsBetweenWrites after the one before it started', async () => {
    const { writer, sentAt, queue: timed } = pacedQueue(80);
    void timed.push(prices(1, 10));
    await tick();
    expect(writer.calls).toHaveLength(1); // the first after a quiet spell goes at once
    writer.calls[0]?.finish();
    await flush();
    void timed.push(prices(100, 10));
    void timed.push(prices(200, 10));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(writer.calls).toHaveLength(1); // small, and the last call started < 80 ms ago: it waits, gathering
    await waitFor(() => writer.calls.length === 2);
    expect((sentAt[1] as number) - (sentAt[0] as number)).toBeGreaterThanOrEqual(79);
    expect(firstIds(writer.calls[1]?.frames ?? [])).toEqual([100, 200]); // both in one call
    writer.calls[1]?.finish();
    await flush();
    // Enough events waiting (minEventsToOverlap) go at once, however recent the last call.
    void timed.push(prices(300, 400));
    await tick();
    expect(writer.calls).toHaveLength(3);
    expect((sentAt[2] as number) - (sentAt[1] as number)).toBeLessThan(80);
    writer.calls[2]?.finish();
    timed.stop();
  });

  it('under a steady flow, sends the next small call minMsBetweenWrites after the last one started, even while that one is under way', async () => {
    const { writer, sentAt, queue } = pacedQueue(40);
    const written: number[] = [];
    void queue.push(prices(1, 10)).then(() => written.push(1));
    await tick();
    expect(writer.calls).toHaveLength(1);
    // The first call runs long (it is never finished until the end): the small ones after it do not wait for it.
    void queue.push(prices(100, 10)).then(() => written.push(2));
    void queue.push(prices(200, 10)).then(() => written.push(3));
    await waitFor(() => writer.calls.length === 2);
    expect((sentAt[1] as number) - (sentAt[0] as number)).toBeGreaterThanOrEqual(39);
    expect(firstIds(writer.calls[1]?.frames ?? [])).toEqual([100, 200]);
    // Two under way: a third waits however long (a minute on a fake clock, past any pacing), then goes once one is done.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      void queue.push(prices(300, 10)).then(() => written.push(4));
      await tick();
      vi.advanceTimersByTime(60_000);
      expect(writer.calls).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
    writer.calls[0]?.finish();
    await waitFor(() => writer.calls.length === 3);
    expect(firstIds(writer.calls[2]?.frames ?? [])).toEqual([300]);
    writer.calls[1]?.finish();
    writer.calls[2]?.finish();
    await waitFor(() => written.length === 4);
    expect(written).toEqual([1, 2, 3, 4]); // settled in order
    queue.stop();
  });

  it('on stop, settles the frames not sent and takes no more', async () => {
    const writer = manualWriter();
    const queue = new ItemWriteQueue({
      write: writer.write,
      onError: () => undefined,
      maxEventsPerWrite: 1000,
      maxWritesInFlight: 1,
      minEventsToOverlap: 1,
      minMsBetweenWrites: 0,
    });
    const first = queue.push(prices(1, 1));
    await tick();
    const second = queue.push(prices(2, 1));
    queue.stop();
    await second; // settled without a write
    expect(writer.calls).toHaveLength(1);
    await queue.push(prices(3, 1));
    writer.calls[0]?.finish();
    await first;
    await flush();
    expect(writer.calls).toHaveLength(1);
  });
});
