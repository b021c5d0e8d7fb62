import type { Balance } from '../../../shared/api';
import type { AlertRule, AppSettings } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import type { AutoBuyRecordInput } from '../store/types';
import { utcDayStart } from './rules';

/** The guard's balance reads (with a floor set) are at least this far apart. */
const RECONCILE_INTERVAL_MS = 1000;

export type GuardVerdict = { buy: true } | { buy: false; reason: string };

/** One buy that left (auto-buy's or a person's): its price counts against the balance until a balance read after its answer shows it. */
interface Outstanding {
  price: number;
  answered: boolean;
}

/** One auto-buy the guard counts, from its decision until it is known not to have bought. */
export interface Reservation extends AutoBuyRecordInput {
  token: number;
  /** The budget day it counts on (start of the UTC day of `at`, epoch ms). */
  day: number;
}

/** What the guard knows of a counted auto-buy: sent now (`in_flight`), `unknown` (no answer said, or in flight when the app last stopped), `bought`. */
export type CountedState = 'in_flight' | 'unknown' | 'bought';

interface Counted extends Reservation {
  state: CountedState;
}

/** The account's auto-buys as the store holds them when it opens; from then on the guard keeps the count. */
export interface GuardLedger {
  /** Start of the UTC day, epoch ms. */
  day: number;
  /** Bought today, per rule. */
  boughtToday: ReadonlyMap<string, number>;
  /** Bought in all, per rule (each rule's `spent`). */
  boughtTotal: ReadonlyMap<string, number>;
  /** Auto-buys whose outcome is not known: counted (as unknown) until their order id is looked up. */
  unresolved: readonly AutoBuyRecordInput[];
}

const sum = (values: Iterable<number>) => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

/**
 * Auto-buy's guard rails across rules, decided in memory so a decision needs no
 * database round trip: each rule's total and daily caps, the global daily budget,
 * the balance floor and stop-all. A buy is counted (reserve) in the same task
 * that decides it, before any await, so matches arriving together see each
 * other's spend and cannot overshoot. It stays counted while in flight, bought,
 * or unknown (no answer said whether it bought: the server may have made the
 * trade); only a buy known not to have bought gives its share back (settle).
 *
 * Spend = what the store held when the account opened (bought; unresolved ones
 * counted as unknown) + every auto-buy counted since. The guard reads the store
 * once per account and keeps the count itself from then on (one engine per data
 * folder), so reloading rules during a burst never forgets or doubles a buy.
 *
 * The balance floor uses the lower of the session's balance and the balance the
 * guard last read itself, minus every auto-buy that left and every person's buy
 * started that is not yet seen in a balance read issued after its outcome (`outstanding`).
 */
export class AutoBuyGuard {
  private day = 0;
  private opened = false;
  private boughtToday = new Map<string, number>();
  private boughtTotal = new Map<string, number>();
  private skippedByRule = new Map<string, number>();
  private readonly counted = new Map<number, Counted>();
  private readonly outstanding = new Map<number, Outstanding>();
  private nextToken = 1;
  /** `total_available` from the guard's own read after buys were answered; null: none since the last settled state. */
  private confirmedAvailable: number | null = null;
  /** The session's balance object when the guard last confirmed: a newer one (read after) replaces the guard's own. */
  private balanceAtConfirm: Balance | null = null;
  private reconciling: Promise<void> | null = null;
  private lastReadAt = 0;
  /** Bumped by reset(): a balance read of the previous account is not taken. */
  private epoch = 0;
  private reconcileAgain = false;

  constructor(
    private readonly settings: () => AppSettings,
    private readonly balance: () => Balance | null,
    /** Reads the balance from the server now (a request issued after the call). */
    private readonly readBalance: () => Promise<Balance>,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether the open account's ledger was loaded (`open`) since the last reset. */
  get isOpen(): boolean {
    return this.opened;
  }

  /** The account's auto-buys as stored when it opens, before any auto-buy of this session. */
  open(ledger: GuardLedger): void {
    this.day = ledger.day;
    this.boughtToday = new Map(ledger.boughtToday);
    this.boughtTotal = new Map(ledger.boughtTotal);
    this.counted.clear();
    for (const record of ledger.unresolved) {
      const token = this.nextToken++;
      this.counted.set(token, { ...record, token, day: utcDayStart(Date.parse(record.at)), state: 'unknown' });
    }
    this.opened = true;
  }

  /** Today's skips per rule, as stored (on account open and rule changes). */
  loadSkips(day: number, skippedByRule: ReadonlyMap<string, number>): void {
    this.rollDay(day);
    this.skippedByRule = new Map(skippedByRule);
  }

  /** Forgets everything (another account opens). */
  reset(): void {
    this.epoch++;
    this.opened = false;
    this.counted.clear();
    this.boughtToday.clear();
    this.boughtTotal.clear();
    this.skippedByRule.clear();
    this.outstanding.clear();
    this.confirmedAvailable = null;
    this.balanceAtConfirm = null;
  }

  private rollDay(now: number): void {
    const today = utcDayStart(now);
    if (today === this.day) return;
    this.day = today;
    this.boughtToday.clear();
    this.skippedByRule.clear();
  }

  /** Counted spend since the account opened: for one rule or all, today only or in total, leaving `except` out. */
  private extra(ruleId: string | null, todayOnly: boolean, except: Reservation | null): number {
    let total = 0;
    for (const entry of this.counted.values()) {
      if (entry.token === except?.token) continue;
      if (ruleId !== null && entry.ruleId !== ruleId) continue;
      if (todayOnly && entry.day !== this.day) continue;
      total += entry.price;
    }
    return total;
  }

  private spentTodayBy(ruleId: string, except: Reservation | null = null): number {
    return (this.boughtToday.get(ruleId) ?? 0) + this.extra(ruleId, true, except);
  }

  get today(): {
    day: number;
    spentTotal: number;
    spentByRule: ReadonlyMap<string, number>;
    skippedByRule: ReadonlyMap<string, number>;
  } {
    this.rollDay(Date.now());
    const spentByRule = new Map<string, number>();
    const ids = new Set([...this.boughtToday.keys(), ...[...this.counted.values()].map((entry) => entry.ruleId)]);
    for (const ruleId of ids) spentByRule.set(ruleId, this.spentTodayBy(ruleId));
    return { day: this.day, spentTotal: sum(spentByRule.values()), spentByRule, skippedByRule: this.skippedByRule };
  }

  /** What may be spent before the floor, as far as anything we know says (`except` not taken off); null when the balance is unknown. */
  available(except: Reservation | null = null): number | null {
    const session = this.balance();
    if (
      this.confirmedAvailable !== null &&
      this.outstanding.size === 0 &&
      session !== null &&
      session !== this.balanceAtConfirm
    ) {
      this.confirmedAvailable = null; // a read after everything settled: the session's balance is current again
    }
    const known = [session?.total_available, this.confirmedAvailable ?? undefined].filter(
      (v): v is number => typeof v === 'number',
    );
    if (known.length === 0) return null;
    return (
      Math.min(...known) -
      sum([...this.outstanding].filter(([token]) => token !== except?.token).map(([, entry]) => entry.price))
    );
  }

  /**
   * Whether this match may be bought now. A rule without a maximum price never buys (older rules may
   * lack one; saving refuses it). The rule's own caps first, then the budget, the floor and stop-all.
   * `own`: asked again for a buy already counted (right before its request leaves), which is left out of the sums.
   */
  verdict(rule: AlertRule, price: number, alertsPaused: boolean, own: Reservation | null = null): GuardVerdict {
    this.rollDay(Date.now());
    const settings = this.settings();
    if (rule.maxPrice === null) return { buy: false, reason: 'no maximum price per item: auto-buy needs one' };
    if (price > rule.maxPrice)
      return { buy: false, reason: `above the rule's maximum price of ${formatCents(rule.maxPrice)}` };
    if (settings.autoBuyStopped === true) return { buy: false, reason: 'auto-buy is stopped (stop all)' };
    if (alertsPaused) return { buy: false, reason: 'alerts are paused' };
    if (!rule.autoBuy.recipientId) return { buy: false, reason: 'no recipient chosen for auto-buy' };
    const total = (this.boughtTotal.get(rule.id) ?? 0) + this.extra(rule.id, false, own);
    if (total + price > rule.autoBuy.spendCap) return { buy: false, reason: 'the rule would exceed its spend cap' };
    if (this.spentTodayBy(rule.id, own) + price > rule.autoBuy.dailyCap)
      return { buy: false, reason: "the rule would exceed today's cap" };
    const budget = settings.autoBuyDailyBudget ?? null;
    if (budget !== null && sum(this.boughtToday.values()) + this.extra(null, true, own) + price > budget) {
      return { buy: false, reason: `the daily auto-buy budget of ${formatCents(budget)} would be exceeded` };
    }
    // Without a floor, funds are checked as for any buy (BuyService, then the server).
    const floor = settings.autoBuyBalanceFloor ?? 0;
    if (floor > 0) {
      const available = this.available(own);
      if (available === null)
        return { buy: false, reason: 'the balance is not known yet, so the balance floor cannot be checked' };
      if (available - price < floor)
        return { buy: false, reason: `it would leave less than the balance floor of ${formatCents(floor)} available` };
    }
    return { buy: true };
  }

  /** Counts a buy about to be sent (call in the task that decides it); settle it with what this returns. */
  reserve(record: AutoBuyRecordInput): Reservation {
    this.rollDay(Date.now());
    const reservation: Reservation = { ...record, token: this.nextToken++, day: utcDayStart(Date.parse(record.at)) };
    this.counted.set(reservation.token, { ...reservation, state: 'in_flight' });
    this.outstanding.set(reservation.token, { price: record.price, answered: false });
    return reservation;
  }

  /**
   * A person's buy started: its price counts against the floor like an auto-buy's, until a balance read after its
   * answer (call what this returns with whether it may have spent; not: given back at once).
   */
  holdManual(price: number): (mayHaveSpent: boolean) => void {
    const token = this.nextToken++;
    this.outstanding.set(token, { price, answered: false });
    return (mayHaveSpent) => {
      const entry = this.outstanding.get(token);
      if (!entry) return; // another account opened meanwhile
      if (!mayHaveSpent || (this.settings().autoBuyBalanceFloor ?? 0) === 0) {
        this.outstanding.delete(token);
        return;
      }
      entry.answered = true;
      void this.reconcile();
    };
  }

  /** Whether an auto-buy of this order id is in flight or its outcome unknown (then another attempt must wait). */
  holds(externalId: string): boolean {
    for (const entry of this.counted.values())
      if (entry.externalId === externalId && entry.state !== 'bought') return true;
    return false;
  }

  /** Auto-buys whose outcome is unknown, to look up by order id. */
  unresolved(): Reservation[] {
    return [...this.counted.values()]
      .filter((entry) => entry.state === 'unknown')
      .map(({ state: _state, ...reservation }) => reservation);
  }

  /**
   * What became of a buy, once stored: `bought` and `unknown` keep it counted (and read the balance again, for
   * the floor), `not_bought` gives it back.
   */
  settle(reservation: Reservation, state: 'bought' | 'unknown' | 'not_bought'): void {
    const entry = this.counted.get(reservation.token);
    if (!entry) return; // another account opened meanwhile
    if (state === 'not_bought') {
      this.counted.delete(reservation.token);
      this.outstanding.delete(reservation.token);
      return;
    }
    entry.state = state;
    // The guard's own balance read costs a request: only while a floor is set (else the buy needs no more tracking).
    if ((this.settings().autoBuyBalanceFloor ?? 0) === 0) {
      this.outstanding.delete(reservation.token);
      return;
    }
    const answered = this.outstanding.get(reservation.token);
    if (!answered) return;
    answered.answered = true;
    void this.reconcile();
  }

  /** Counts a skip for today's status. */
  skipped(ruleId: string): void {
    this.rollDay(Date.now());
    this.skippedByRule.set(ruleId, (this.skippedByRule.get(ruleId) ?? 0) + 1);
  }

  /** Reads the balance after answers came, then stops counting the buys that read includes. */
  private reconcile(): Promise<void> {
    if (this.reconciling) {
      this.reconcileAgain = true;
      return this.reconciling;
    }
    const run = async () => {
      do {
        // At most one read a second: buys answered meanwhile wait for it (counted, the safe side).
        const wait = this.lastReadAt + RECONCILE_INTERVAL_MS - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.lastReadAt = Date.now();
        this.reconcileAgain = false;
        const covered = [...this.outstanding].filter(([, entry]) => entry.answered).map(([token]) => token);
        if (covered.length === 0) break;
        const epoch = this.epoch;
        try {
          const read = await this.readBalance();
          if (epoch !== this.epoch) break;
          this.confirmedAvailable = read.total_available;
          for (const token of covered) this.outstanding.delete(token);
          this.balanceAtConfirm = this.balance();
        } catch (error) {
          // Kept counted (the safe side) until a later read succeeds.
          this.log(`auto-buy: balance read after a buy failed: ${(error as Error).message}`);
          break;
        }
      } while (this.reconcileAgain);
    };
    this.reconciling = run().finally(() => {
      this.reconciling = null;
    });
    return this.reconciling;
  }
}
