/** Small statistics helpers shared by the benchmarks. */

export interface Summary {
  median: number;
  p95?: number;
  p99?: number;
  min: number;
  max: number;
  unit: string;
}

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))] as number;
}

/** Rounds to a sensible number of significant digits for reports. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const factor = 10 ** Math.max(0, digits - 1 - magnitude);
  return Math.round(value * factor) / factor;
}

export function min(values: readonly number[]): number {
  let out = Number.POSITIVE_INFINITY;
  for (const v of values) if (v < out) out = v;
  return values.length === 0 ? Number.NaN : out;
}

export function max(values: readonly number[]): number {
  let out = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > out) out = v;
  return values.length === 0 ? Number.NaN : out;
}

export function summarize(
  values: readonly number[],
  unit: string,
  options: { p95?: boolean; p99?: boolean } = {},
): Summary {
  const out: Summary = { median: round(median(values)), min: round(min(values)), max: round(max(values)), unit };
  if (options.p95) out.p95 = round(percentile(values, 95));
  if (options.p99) out.p99 = round(percentile(values, 99));
  return out;
}

/** "12.3 s", "480 MB", "1.21 ×" */
export function formatValue(value: number, unit: string): string {
  const v = round(value);
  const text = Math.abs(v) >= 10_000 ? Math.round(v).toLocaleString('en-US') : String(v);
  return unit === '' ? text : `${text} ${unit}`;
}
