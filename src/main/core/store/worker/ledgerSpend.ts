/** The ledger's buying over recent windows, for the balance runway (core/operations/runway.ts). */
import type { Prepare } from './open';

/** Cents bought and refunded in one window, both ≥ 0. */
export interface SpendTotals {
  purchases: number;
  refunds: number;
}

/**
 * Debits of buying (`FREEZE` at each buy; a server that debits at `BUY COMPLETED` instead is counted there) and the
 * refunds that give them back (`BUY CANCELLED`, `TRADE ROLLBACK`), created at or after each start. Top-ups,
 * deposits and deductions are not buying. One range over `ledger_created` from the earlier start.
 */
export function ledgerSpend(
  prepare: Prepare,
  hourFrom: string,
  dayFrom: string,
): Record<'lastHour' | 'lastDay', SpendTotals> {
  const row = prepare<
    [string, string, string],
    Record<'hourBought' | 'hourRefunded' | 'dayBought' | 'dayRefunded', number>
  >(
    `SELECT
       coalesce(sum(CASE WHEN bought AND createdAt >= ? THEN -amount END), 0) AS hourBought,
       coalesce(sum(CASE WHEN refunded AND createdAt >= ? THEN amount END), 0) AS hourRefunded,
       coalesce(sum(CASE WHEN bought THEN -amount END), 0) AS dayBought,
       coalesce(sum(CASE WHEN refunded THEN amount END), 0) AS dayRefunded
     FROM (SELECT createdAt, amount,
             type IN ('FREEZE', 'BUY COMPLETED') AND amount < 0 AS bought,
             type IN ('BUY CANCELLED', 'TRADE ROLLBACK') AND amount > 0 AS refunded
           FROM ledger WHERE createdAt >= ?)`,
  ).get(hourFrom, hourFrom, dayFrom);
  return {
    lastHour: { purchases: row?.hourBought ?? 0, refunds: row?.hourRefunded ?? 0 },
    lastDay: { purchases: row?.dayBought ?? 0, refunds: row?.dayRefunded ?? 0 },
  };
}
