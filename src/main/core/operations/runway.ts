/**
 * The balance runway, pure: how long what is available lasts at the recent rate of buying.
 *
 * - available = balance + credit limit − in flight. The server's balance is already net of what it holds for
 *   active trades (each buy's `FREEZE` debits it at once), so those are not taken off again: in flight is only the
 *   buys answered after the balance we hold was read, which it cannot reflect yet.
 * - spend in a window = the buying debits created in it (`FREEZE`, or a debiting `BUY COMPLETED`) less the refunds
 *   created in it (`BUY CANCELLED`, `TRADE ROLLBACK`), never below 0. Top-ups, deposits and deductions are not buying.
 * - runway = available × window ÷ spend, in whole ms; null ("no recent spending") when the spend is 0; 0 when
 *   nothing is available.
 * Money stays in integer cents; only the runway is a (floored) duration.
 */
import type { Balance } from '../../../shared/api';
import type { BalanceRunway, RunwayWindow } from '../../../shared/ipc';
import { shortestRunwayMs } from '../../../shared/runway';
import type { SpendTotals } from '../store/worker/ledgerSpend';

export type { SpendTotals };

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export interface RunwayInput {
  at: string;
  balance: Pick<Balance, 'balance' | 'credit_limit'>;
  inFlight: number;
  lastHour: SpendTotals;
  lastDay: SpendTotals;
  thresholdHours: number | null;
}

export function runwayWindow(available: number, totals: SpendTotals, windowMs: number): RunwayWindow {
  const spent = Math.max(0, totals.purchases - totals.refunds);
  if (spent === 0) return { spent, runwayMs: null };
  return { spent, runwayMs: available <= 0 ? 0 : Math.floor((available * windowMs) / spent) };
}

export function runwayOf(input: RunwayInput): BalanceRunway {
  const available = input.balance.balance + input.balance.credit_limit - input.inFlight;
  const lastHour = runwayWindow(available, input.lastHour, HOUR_MS);
  const lastDay = runwayWindow(available, input.lastDay, DAY_MS);
  const shortest = shortestRunwayMs({ lastHour, lastDay });
  return {
    at: input.at,
    balance: input.balance.balance,
    creditLimit: input.balance.credit_limit,
    inFlight: input.inFlight,
    available,
    lastHour,
    lastDay,
    thresholdHours: input.thresholdHours,
    below: input.thresholdHours !== null && shortest !== null && shortest < input.thresholdHours * HOUR_MS,
  };
}

/** The same figures (the time of computing aside): nothing to send. */
export function sameRunway(a: BalanceRunway | null, b: BalanceRunway): boolean {
  if (!a) return false;
  const { at: _a, ...restA } = a;
  const { at: _b, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}

/**
 * One notification per crossing: it fires when the runway is first seen under the threshold and re-arms only once
 * it is seen at or above it again (a top-up, a slower rate, a lower threshold) or the alert is turned off. `armed`
 * starts as the account's store last left it (RunwayService), so a restart while under tells nothing new.
 */
export class RunwayAlarm {
  constructor(private armed = true) {}

  /** Whether this runway is a new crossing to announce. */
  observe(runway: BalanceRunway): boolean {
    if (!runway.below) {
      this.armed = true;
      return false;
    }
    if (!this.armed) return false;
    this.armed = false;
    return true;
  }

  get isArmed(): boolean {
    return this.armed;
  }
}
