/** A copy of a record without one key. */
export function without<K extends PropertyKey, V>(record: Record<K, V>, key: K): Record<K, V> {
  if (!(key in record)) return record;
  const { [key]: _removed, ...rest } = record;
  return rest as Record<K, V>;
}

/** A copy of a record keeping only the entries `keep` accepts. */
export function filterRecord<V>(
  record: Record<number, V>,
  keep: (key: number, value: V) => boolean,
): Record<number, V> {
  const out: Record<number, V> = {};
  for (const [k, v] of Object.entries(record) as [string, V][]) if (keep(Number(k), v)) out[Number(k)] = v;
  return out;
}
