/** Helpers for the typed-array columns the snapshot, its markets and lists, and the sync keep by slot. */

/** A typed column with room for `capacity` slots, its values kept. */
export function grown<T extends Float64Array | Int32Array | Int8Array | Uint8Array>(array: T, capacity: number): T {
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}

/** The index of `value` in `values[0, length)`, ascending and without repeats; -1 when absent. */
export function sortedIndexOf(values: Float64Array, value: number, length = values.length): number {
  for (let low = 0, high = length - 1; low <= high;) {
    const mid = (low + high) >>> 1;
    const at = values[mid] as number;
    if (at === value) return mid;
    if (at < value) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
