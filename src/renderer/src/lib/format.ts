import { formatCents, formatSignedCents } from '../../../shared/money';

/** Display helpers. Pure: every "now" is passed in (renders read it from the clock store). */

export { formatCents, formatSignedCents };

export const DASH = '—';

const intFormat = new Intl.NumberFormat('en-US');

export function formatInt(n: number): string {
  return intFormat.format(n);
}

/** Cents or a dash for null. */
export function formatMaybeCents(cents: number | null | undefined): string {
  return cents === null || cents === undefined ? DASH : formatCents(cents);
}

/** Float values are truncated (never rounded up into a better-looking band). */
export function formatFloat(value: number | null, digits = 6): string {
  if (value === null) return DASH;
  const factor = 10 ** digits;
  return (Math.floor(value * factor) / factor).toFixed(digits);
}

/** "12s", "4m", "3h", "2d" since `fromIso`. */
export function formatAge(fromIso: string | null, nowMs: number): string {
  if (!fromIso) return DASH;
  const ms = nowMs - Date.parse(fromIso);
  if (Number.isNaN(ms)) return DASH;
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** "just now", "3 min ago", "in 2 h". */
export function formatRelative(iso: string | null, nowMs: number): string {
  if (!iso) return DASH;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return DASH;
  const diff = at - nowMs;
  const abs = Math.abs(diff);
  const s = Math.floor(abs / 1000);
  let text: string;
  if (s < 5) return 'just now';
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min`;
  else if (s < 172_800) text = `${Math.floor(s / 3600)} h`;
  else text = `${Math.floor(s / 86_400)} d`;
  return diff < 0 ? `${text} ago` : `in ${text}`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Local "YYYY-MM-DD HH:mm:ss". */
export function formatDateTime(iso: string | null): string {
  if (!iso) return DASH;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return DASH;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local "HH:mm:ss". */
export function formatTime(iso: string | null): string {
  if (!iso) return DASH;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return DASH;
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** 1800 → "30 min", 43200 → "12 h", 5400 → "1 h 30 min". */
export function formatDurationSeconds(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts: string[] = [];
  if (h) parts.push(`${h} h`);
  if (m) parts.push(`${m} min`);
  if (s || parts.length === 0) parts.push(`${s} s`);
  return parts.join(' ');
}

/** Time left: "2d 04:12:09", "04:12:09", "12:09"; "0:00" once passed. */
export function formatCountdown(ms: number): string {
  if (ms <= 0) return '0:00';
  const total = Math.floor(ms / 1000);
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (d > 0) return `${d}d ${pad(h)}:${pad(m)}:${pad(s)}`;
  if (h > 0) return `${pad(h)}:${pad(m)}:${pad(s)}`;
  return `${m}:${pad(s)}`;
}

/** Whole dollars for axis labels: 123456 → "$1,235". */
export function formatDollarsShort(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const dollars = Math.abs(cents) / 100;
  if (dollars >= 1_000_000) return `${sign}$${(dollars / 1_000_000).toFixed(1)}M`;
  if (dollars >= 10_000) return `${sign}$${(dollars / 1000).toFixed(1)}k`;
  return `${sign}$${intFormat.format(Math.round(dollars))}`;
}

/** Cents back to an editable dollar string: 1230 → "12.30"; null → "". */
export function centsToInput(cents: number | null | undefined): string {
  if (cents === null || cents === undefined) return '';
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${pad(abs % 100)}`;
}

/** A `<input type="date">` value as a UTC ISO timestamp at the start (or end) of that local day. */
export function dateInputToIso(value: string, endOfDay: boolean): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const [, y, m, d] = match;
  const date = endOfDay
    ? new Date(Number(y), Number(m) - 1, Number(d), 23, 59, 59, 999)
    : new Date(Number(y), Number(m) - 1, Number(d));
  if (Number.isNaN(date.getTime())) return null;
  return date.toISOString();
}

/** A short, still-unique-looking id for tables: "a1b2c3d4…f9". */
export function shortId(id: string, head = 8): string {
  return id.length <= head + 3 ? id : `${id.slice(0, head)}…${id.slice(-2)}`;
}

/** Parse an optional float in 0..1 from a text field: "" → null, bad → undefined. */
export function parseUnitFloat(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(t)) return undefined;
  const n = Number(t);
  return n >= 0 && n <= 1 ? n : undefined;
}

/**
 * Labels for a time axis from `fromMs` to `toMs`, as precise as the span needs: seconds
 * within ten minutes, minutes within a day, the day and time within a month, else the day.
 */
export function timeAxisFormat(fromMs: number, toMs: number): (t: number) => string {
  const span = Math.abs(toMs - fromMs);
  return (t: number) => {
    const full = formatDateTime(new Date(t).toISOString()); // YYYY-MM-DD HH:mm:ss
    if (span < 10 * 60_000) return full.slice(11, 19);
    if (span < 86_400_000) return full.slice(11, 16);
    if (span < 31 * 86_400_000) return full.slice(5, 16);
    return full.slice(0, 10);
  };
}

/** A discount against the reference: "-23 %" under it, "+12 %" over it (whole percent; the minus of formatCents); "> +999 %" past that. */
export function formatDiscount(discount: number): string {
  const whole = Math.round(Math.abs(discount));
  if (whole === 0) return '0\u00a0%';
  if (whole > 999) return '>\u00a0+999\u00a0%';
  return `${discount > 0 ? '-' : '+'}${whole}\u00a0%`;
}

/** "#2 of 418": a listing's float rank among its name on sale; a dash without a float. */
export function formatFloatRank(rank: number | null, listings: number): string {
  return rank === null ? DASH : `#${formatInt(rank)} of ${formatInt(listings)}`;
}
