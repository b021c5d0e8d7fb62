/**
 * The least recently inserted entry of a Map used as an LRU (entries re-inserted when used),
 * found in amortized O(1). `map.keys().next()` is not: V8 leaves deleted entries as holes until
 * the table is rebuilt, so after many deletions from the head every call walks them all
 * (measured at 100,000 entries: 33 µs per eviction that way, 0.7 µs with this persistent iterator).
 *
 * Every entry `next()` returns must be deleted by the caller before the next call: the iterator
 * moves on, and an entry left behind would not be returned again until the iterator starts over.
 */
export class OldestFirst<K, V> {
  private iterator: Iterator<[K, V]> | null = null;

  constructor(private readonly map: Map<K, V>) {}

  next(): [K, V] | undefined {
    let result = this.iterator?.next();
    if (!result || result.done) {
      this.iterator = this.map.entries();
      result = this.iterator.next();
    }
    return result.done ? undefined : result.value;
  }

  /** After map.clear(): start over. */
  reset(): void {
    this.iterator = null;
  }
}
