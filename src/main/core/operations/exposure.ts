/**
 * Operations → Reversals, from the local store (offline too). A completed trade can be reversed by the platform while
 * it is at stage 1, until its `endProtection`; a reversal refunds 100 % of its value (ledger `TRADE ROLLBACK`). The
 * exposure is released on each trade's own `endProtection`, not on completion + a fixed period. Who reversed (the buyer,
 * that is the recipient, or the seller) is the failReason's (`whoReversed`); only the buyer's make a recipient a reverser.
 */
import { whoReversed } from '../../../shared/api';
import type { ReversalExposure } from '../../../shared/ipc';
import { REVERSED_PAGE, REVERSERS_LIMIT, REVERSERS_SHOWN } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import { toCsv } from '../export/csv';
import type { LocalStore } from '../store';
import type { ExposureRows } from '../store/worker/exposureQuery';
import { labelsByPartner } from './recipients';

export function exposureOf(
  rows: ExposureRows,
  labels: Map<number, string>,
  now: number,
  reversedOffset = 0,
): ReversalExposure {
  const dated = rows.schedule.reduce((sum, day) => ({ count: sum.count + day.count, value: sum.value + day.value }), {
    count: 0,
    value: 0,
  });
  const labelOf = (partner: number | null) => (partner === null ? null : (labels.get(partner) ?? null));
  return {
    exposure: { count: dated.count + rows.undated.count, value: dated.value + rows.undated.value },
    undated: rows.undated,
    schedule: rows.schedule.map((day) => ({ ...day, day: `${day.day}T00:00:00.000Z` })),
    reversedTotal: rows.reversedTotal,
    reversedOffset,
    reversed: rows.reversed.map(({ trade, partner, rollback }) => ({
      trade,
      partner: partner === null ? null : String(partner),
      label: labelOf(partner),
      reversedBy: whoReversed(trade),
      rollback: rollback ? { id: rollback.id, amount: rollback.amount, createdAt: rollback.createdAt } : null,
    })),
    reversers: rows.reversers.map((row) => ({ ...row, partner: String(row.partner), label: labelOf(row.partner) })),
    reversersTotal: rows.reversersTotal,
    computedAt: toUtcIso(now),
  };
}

/**
 * The view's exposure: the page of reversed trades from `reversedOffset` and the first REVERSERS_SHOWN recipients who
 * reversed, or up to REVERSERS_LIMIT of them for the CSV.
 */
export async function readExposure(
  store: LocalStore,
  now: number,
  { reversedOffset = 0, reversersLimit = REVERSERS_SHOWN }: { reversedOffset?: number; reversersLimit?: number } = {},
): Promise<ReversalExposure> {
  const [rows, labels] = await Promise.all([
    store.exposureRows({ now: toUtcIso(now), reversedOffset, reversedLimit: REVERSED_PAGE, reversersLimit }),
    labelsByPartner(store),
  ]);
  return exposureOf(rows, labels, now, reversedOffset);
}

/**
 * The recipients who reversed (the buyer's reversals) as CSV, a merchant's own ban list; with their reversals by either
 * side, to weigh them. Labels are defused as any CSV field.
 */
export async function exportReversers(store: LocalStore, now: number): Promise<{ filename: string; csv: string }> {
  const { reversers } = await readExposure(store, now, { reversersLimit: REVERSERS_LIMIT });
  return {
    filename: `reversed-recipients-${toUtcIso(now).slice(0, 10)}.csv`,
    csv: toCsv(
      ['partner', 'label', 'reversed_by_recipient', 'reversed', 'delivered', 'trades'],
      reversers.map((r) => [r.partner, r.label, r.buyerReversed, r.reversed, r.delivered, r.trades]),
    ),
  };
}
