/** A binary min-heap of timed events, first by time, then by insertion order. */
export class EventQueue<K, V> {
  private readonly heap: { at: number; seq: number; kind: K; value: V }[] = [];
  private seq = 0;

  push(at: number, kind: K, value: V): void {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, kind, value });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** The earliest event at or before `at`, removed; undefined when there is none. */
  popUntil(at: number): { at: number; kind: K; value: V } | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (!top || top.at > at) return undefined;
    const last = heap.pop() as (typeof heap)[number];
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && this.before(left, smallest)) smallest = left;
        if (right < heap.length && this.before(right, smallest)) smallest = right;
        if (smallest === i) break;
        this.swap(i, smallest);
        i = smallest;
      }
    }
    return top;
  }

  private before(a: number, b: number): boolean {
    const x = this.heap[a] as { at: number; seq: number };
    const y = this.heap[b] as { at: number; seq: number };
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }

  private swap(a: number, b: number): void {
    const heap = this.heap;
    [heap[a], heap[b]] = [heap[b] as (typeof heap)[number], heap[a] as (typeof heap)[number]];
  }
}
