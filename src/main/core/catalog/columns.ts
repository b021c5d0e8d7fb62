/** Helpers for the typed-array columns the snapshot, its markets and lists, and the sync keep by slot. */

type Column = Float64Array | Int32Array | Int8Array | Uint8Array;
/** Named columns, each with its array type: what an owner grows together and a saved snapshot holds by name. */
export type ColumnTypes = Record<string, new (length: number) => Column>;
/** The columns of a ColumnTypes, as an owner holds them. */
export type Columns<T extends ColumnTypes> = { [K in keyof T]: InstanceType<T[K]> };

/** A typed column with room for `capacity` slots, its values kept. */
export function grown<T extends Column>(array: T, capacity: number): T {
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}

/** Grows each of `owner`'s columns named in `types` to `capacity`. */
export function growColumns<T extends ColumnTypes>(owner: Columns<T>, types: T, capacity: number): void {
  const columns = owner as Record<string, Column>;
  for (const name of Object.keys(types)) columns[name] = grown(columns[name] as Column, capacity);
}

/** `owner`'s columns named in `types`, by name (what a saved snapshot holds). */
export function columnsOf<T extends ColumnTypes>(owner: Columns<T>, types: T): Columns<T> {
  return Object.fromEntries(Object.keys(types).map((name) => [name, owner[name]])) as Columns<T>;
}

/** Whether `saved` holds every column of `types`, each of its type, all of one length, at least `size`. */
export function isColumns<T extends ColumnTypes>(saved: unknown, types: T, size: number): saved is Columns<T> {
  if (typeof saved !== 'object' || saved === null) return false;
  const columns = Object.entries(types).map(
    ([name, type]) => [(saved as Record<string, unknown>)[name], type] as const,
  );
  const length = (columns[0]?.[0] as Column | undefined)?.length ?? 0;
  return length >= size && columns.every(([column, type]) => column instanceof type && column.length === length);
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
