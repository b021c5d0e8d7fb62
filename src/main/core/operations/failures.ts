/**
 * Operations → Failures: failed trades by outcome code and the buy refusals the desk saw, per UTC day and per hour of
 * today, counts and value. The store keeps the trades' counts rolled up by day (trade_failure_days) and today's hours
 * come from an index range, so a year of history is a few hundred rows read (store/worker/failuresQuery.ts).
 */
import type { TradeStatus } from '../../../shared/api';
import type { IpcParsedInput } from '../../../shared/ipc';
import { REFUSAL_CODES, type RefusalCode } from '../../../shared/ipc/contract';
import {
  REFUSAL_LIST_LIMIT,
  type BuyRefusal,
  type FailureBoardRow,
  type FailureCell,
  type FailureReason,
  type FailuresBoard,
} from '../../../shared/ipc/operations';
import { toUtcIso } from '../../../shared/time';
import { centsToDecimal, toCsv } from '../export/csv';
import type { LocalStore } from '../store';
import type { BuyRefusalInput, FailureRows } from '../store/worker/failuresQuery';

const DAY_MS = 24 * 3600_000;
/** The board's days when none are asked: the last 30 to today. */
export const DEFAULT_FAILURE_DAYS = 30;

/** The spec's outcome table: always shown, in this order (other status/code pairs seen are added after). */
const OUTCOMES: { status: TradeStatus; errorCode: number; label: string }[] = [
  { status: 'EXPIRED', errorCode: 503, label: 'Expired (503)' },
  { status: 'CANCELLED', errorCode: 504, label: 'Declined (504)' },
  { status: 'CANCELLED', errorCode: 505, label: 'Sold elsewhere (505)' },
  { status: 'CANCELLED', errorCode: 506, label: 'Countered (506)' },
  { status: 'FAILED', errorCode: 500, label: 'Platform error (500)' },
];

const REFUSAL_LABELS: Record<RefusalCode, string> = {
  item_unavailable: 'Item unavailable',
  price_changed: 'Price changed',
  price_too_high: 'Price too high',
  too_many_active_trades: 'Too many active trades',
  insufficient_balance: 'Insufficient balance',
  partner_blocked: 'Recipient blocked',
  rate_limited: 'Rate limited',
  maintenance: 'Maintenance',
};

export function isRefusalCode(code: string): code is RefusalCode {
  return (REFUSAL_CODES as readonly string[]).includes(code);
}

const tradeKey = (status: string, errorCode: number) => `trade:${status}:${errorCode}`;
const refusalKey = (code: string) => `refusal:${code}`;

function tradeReason(status: TradeStatus, errorCode: number): FailureReason {
  const known = OUTCOMES.find((o) => o.status === status && o.errorCode === errorCode);
  const word = status.charAt(0) + status.slice(1).toLowerCase();
  return {
    key: tradeKey(status, errorCode),
    kind: 'trade',
    label: known?.label ?? (errorCode === 0 ? word : `${word} (${errorCode})`),
    status,
    errorCode: errorCode === 0 ? null : errorCode,
    code: null,
  };
}

/** The UTC day of a time. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The days asked, with the defaults filled: to today, from 29 days before the end. */
export function boardRange(input: { from?: string | undefined; to?: string | undefined }, now: number) {
  const to = input.to ?? dayOf(now);
  const from = input.from ?? dayOf(Date.parse(to) - (DEFAULT_FAILURE_DAYS - 1) * DAY_MS);
  return { from, to, today: dayOf(now) };
}

/** The board from the store's rows (pure): every day of [from, to] newest first, today's hours up to `now`. */
export function buildBoard(
  rows: FailureRows,
  range: { from: string; to: string; today: string },
  now: number,
): FailuresBoard {
  const reasons = new Map<string, FailureReason>();
  for (const o of OUTCOMES) reasons.set(tradeKey(o.status, o.errorCode), tradeReason(o.status, o.errorCode));
  const seen = [...rows.days, ...rows.hours]
    .map((r) => tradeReason(r.status, r.errorCode))
    .sort((a, b) => a.key.localeCompare(b.key));
  for (const reason of seen) if (!reasons.has(reason.key)) reasons.set(reason.key, reason);
  for (const code of REFUSAL_CODES)
    reasons.set(refusalKey(code), {
      key: refusalKey(code),
      kind: 'refusal',
      label: REFUSAL_LABELS[code],
      status: null,
      errorCode: null,
      code,
    });

  const totals: Record<string, FailureCell> = {};
  const bucketRows = (
    ats: string[],
    trades: FailureRows['days'],
    refusals: FailureRows['refusalDays'],
    total: boolean,
  ) => {
    const byAt = new Map<string, FailureBoardRow>(
      ats.map((at) => [at, { at, cells: {}, total: { count: 0, value: 0 } }]),
    );
    const add = (at: string, key: string, count: number, value: number) => {
      const row = byAt.get(at);
      if (!row) return;
      const cell = (row.cells[key] ??= { count: 0, value: 0 });
      cell.count += count;
      cell.value += value;
      row.total.count += count;
      row.total.value += value;
      if (total) {
        const sum = (totals[key] ??= { count: 0, value: 0 });
        sum.count += count;
        sum.value += value;
      }
    };
    for (const r of trades) add(r.at, tradeKey(r.status, r.errorCode), r.count, r.value);
    for (const r of refusals) if (isRefusalCode(r.code)) add(r.at, refusalKey(r.code), r.count, r.value);
    return [...byAt.values()];
  };

  const days: string[] = [];
  for (let at = Date.parse(range.to); at >= Date.parse(range.from); at -= DAY_MS) days.push(dayOf(at));
  const hours: string[] = [];
  const nowHour = new Date(now).getUTCHours();
  for (let h = nowHour; h >= 0; h--) hours.push(`${range.today}T${String(h).padStart(2, '0')}`);
  return {
    from: range.from,
    to: range.to,
    today: range.today,
    reasons: [...reasons.values()],
    days: bucketRows(days, rows.days, rows.refusalDays, true),
    hours: bucketRows(hours, rows.hours, rows.refusalHours, false),
    totals,
    computedAt: toUtcIso(now),
  };
}

export async function readFailuresBoard(
  store: LocalStore,
  input: IpcParsedInput<'operations.failures'>,
  now: number,
): Promise<FailuresBoard> {
  const range = boardRange(input, now);
  const rows = await store.failureRows({ fromDay: range.from, toDay: range.to, hoursDay: range.today });
  return buildBoard(rows, range, now);
}

/** The board with nothing in it (no account open). */
export function emptyBoard(input: IpcParsedInput<'operations.failures'>, now: number): FailuresBoard {
  return buildBoard({ days: [], hours: [], refusalDays: [], refusalHours: [] }, boardRange(input, now), now);
}

/** The board's days as CSV: one line per day and reason with any, count and value (dollars); today's hours after. */
export function boardCsv(board: FailuresBoard): { filename: string; csv: string } {
  const lines: (string | number)[][] = [];
  for (const row of [...board.days, ...board.hours])
    for (const reason of board.reasons) {
      const cell = row.cells[reason.key];
      if (!cell) continue;
      lines.push([
        row.at.length === 10 ? row.at : `${row.at}:00`,
        reason.kind,
        reason.status ?? reason.code ?? '',
        reason.errorCode ?? '',
        reason.label,
        cell.count,
        centsToDecimal(cell.value),
      ]);
    }
  return {
    filename: `failures-${board.from}-to-${board.to}.csv`,
    csv: toCsv(['period', 'kind', 'status_or_code', 'error_code', 'reason', 'count', 'value_usd'], lines),
  };
}

export async function readRefusals(
  store: LocalStore,
  input: IpcParsedInput<'operations.refusals'>,
): Promise<BuyRefusal[]> {
  const from =
    input.hour === null
      ? `${input.from}T00:00:00.000Z`
      : `${input.from}T${String(input.hour).padStart(2, '0')}:00:00.000Z`;
  const to =
    input.hour === null
      ? toUtcIso(Date.parse(`${input.to}T00:00:00.000Z`) + DAY_MS)
      : toUtcIso(Date.parse(from) + 3600_000);
  return store.buyRefusals({ from, to, code: input.code, limit: REFUSAL_LIST_LIMIT });
}

/** What the buy service records of a refusal: the board's codes only (others are input mistakes, not failures). */
export function refusalRecord(refusal: BuyRefusalInput): BuyRefusalInput | null {
  return isRefusalCode(refusal.code) ? refusal : null;
}
