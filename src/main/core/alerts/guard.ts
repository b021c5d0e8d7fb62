import type { Balance } from '../../../shared/api';
import type { AlertRule, AppSettings } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { utcDayStart } from './rules';

/** The guard's balance reads (with a floor set) are at least this far apart. */
const RECONCILE_INTERVAL_MS = 1000;

export type GuardVerdict = { buy: true } | { buy: false; reason: string };

/** One auto-buy that left: its price counts against the balance until a balance read after its answer shows it. */
interface Outstanding {
  price: number;
  answered: boolean;
}

export interface Reservation {
  token: number;
  ruleId: string;
  price: number;
  /** The budget day it counted on. */
  day: number;
}

/** A bought reservation, kept on top of the stored spend until a reload that began after it reads it from the store. */
interface Settled extends Reservation {
  loadGeneration: number;
}

export interface GuardDay {
  /** Start of the UTC day, epoch ms. */
  day: number;
  /** Stored spend today per rule (firings with a trade). */
  spentByRule: Map<string, number>;
  skippedByRule: Map<string, number>;
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
 * that sends its request, before any await, so matches arriving together see
 * each other's spend and cannot overshoot; a refused or failed buy gives its
 * share back, a bought one stays counted (settle, once its outcome is stored).
 *
 * Spend = what the store held at the last load + reservations in flight + buys
 * settled since (until a load that began after them has read them), so reloading
 * rules during a burst never forgets a buy in flight.
 *
 * The balance floor uses the lower of the session's balance and the balance the
 * guard last read itself, minus every auto-buy that left and is not yet seen in
 * a balance read issued after its outcome (`outstanding`).
 */
export class AutoBuyGuard {
  private day = 0;
  private storedDay = new Map<string, number>();
  private skippedByRule = new Map<string, number>();
  private readonly pending = new Map<number, Reservation>();
  private settled: Settled[] = [];
  private loadGeneration = 0;
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

  /** Call before reading the store for `load`: buys settled before this are in what it reads. */
  beginLoad(): number {
    return ++this.loadGeneration;
  }

  /** Today's stored spend and skips per rule (on account open and rule changes), read after `beginLoad`. */
  load(today: GuardDay, generation: number): void {
    this.day = today.day;
    this.storedDay = new Map(today.spentByRule);
    this.skippedByRule = new Map(today.skippedByRule);
    this.settled = this.settled.filter((entry) => entry.loadGeneration >= generation);
  }

  /** Forgets everything in flight (another account opened). */
  reset(): void {
    this.epoch++;
    this.pending.clear();
    this.settled = [];
    this.storedDay.clear();
    this.skippedByRule.clear();
    this.outstanding.clear();
    this.confirmedAvailable = null;
    this.balanceAtConfirm = null;
  }

  private rollDay(now: number): void {
    const today = utcDayStart(now);
    if (today === this.day) return;
    this.day = today;
    this.storedDay.clear();
    this.skippedByRule.clear();
  }

  /** In-flight and settled-since-load spend: for one rule or all, today only or in total. */
  private extra(ruleId: string | null, todayOnly: boolean): number {
    let total = 0;
    for (const entry of [...this.pending.values(), ...this.settled]) {
      if (ruleId !== null && entry.ruleId !== ruleId) continue;
      if (todayOnly && entry.day !== this.day) continue;
      total += entry.price;
    }
    return total;
  }

  private spentTodayBy(ruleId: string): number {
    return (this.storedDay.get(ruleId) ?? 0) + this.extra(ruleId, true);
  }

  get today(): { day: number; spentTotal: number; spentByRule: ReadonlyMap<string, number>; skippedByRule: ReadonlyMap<string, number> } {
    this.rollDay(Date.now());
    const spentByRule = new Map<string, number>();
    const ids = new Set([...this.storedDay.keys(), ...[...this.pending.values(), ...this.settled].map((entry) => entry.ruleId)]);
    for (const ruleId of ids) spentByRule.set(ruleId, this.spentTodayBy(ruleId));
    return { day: this.day, spentTotal: sum(spentByRule.values()), spentByRule, skippedByRule: this.skippedByRule };
  }

  /** What may be spent before the floor, as far as anything we know says; null when the balance is unknown. */
  available(): number | null {
    const session = this.balance();
    if (this.confirmedAvailable !== null && this.outstanding.size === 0 && session !== null && session !== this.balanceAtConfirm) {
      this.confirmedAvailable = null; // a read after everything settled: the session's balance is current again
    }
    const known = [session?.total_available, this.confirmedAvailable ?? undefined].filter((v): v is number => typeof v === 'number');
    if (known.length === 0) return null;
    return Math.min(...known) - sum([...this.outstanding.values()].map((entry) => entry.price));
  }

  /**
   * Whether this match may be bought now. A rule without a maximum price never buys (older rules may
   * lack one; saving refuses it). The rule's own caps first, then the budget, the floor and stop-all.
   */
  verdict(rule: AlertRule, price: number, alertsPaused: boolean): GuardVerdict {
    this.rollDay(Date.now());
    const settings = this.settings();
    if (rule.maxPrice === null) return { buy: false, reason: 'no maximum price per item: auto-buy needs one' };
    if (price > rule.maxPrice) return { buy: false, reason: `above the rule's maximum price of ${formatCents(rule.maxPrice)}` };
    if (settings.autoBuyStopped === true) return { buy: false, reason: 'auto-buy is stopped (stop all)' };
    if (alertsPaused) return { buy: false, reason: 'alerts are paused' };
    if (!rule.autoBuy.recipientId) return { buy: false, reason: 'no recipient chosen for auto-buy' };
    if (rule.autoBuy.spent + this.extra(rule.id, false) + price > rule.autoBuy.spendCap) return { buy: false, reason: 'the rule would exceed its spend cap' };
    if (this.spentTodayBy(rule.id) + price > rule.autoBuy.dailyCap) return { buy: false, reason: "the rule would exceed today's cap" };
    const budget = settings.autoBuyDailyBudget ?? null;
    if (budget !== null && sum(this.storedDay.values()) + this.extra(null, true) + price > budget) {
      return { buy: false, reason: `the daily auto-buy budget of ${formatCents(budget)} would be exceeded` };
    }
    // Without a floor, funds are checked as for any buy (BuyService, then the server).
    const floor = settings.autoBuyBalanceFloor ?? 0;
    if (floor > 0) {
      const available = this.available();
      if (available === null) return { buy: false, reason: 'the balance is not known yet, so the balance floor cannot be checked' };
      if (available - price < floor) return { buy: false, reason: `it would leave less than the balance floor of ${formatCents(floor)} available` };
    }
    return { buy: true };
  }

  /** Counts a buy about to leave (call in the task that sends it); settle it with what this returns. */
  reserve(rule: AlertRule, price: number): Reservation {
    this.rollDay(Date.now());
    const reservation: Reservation = { token: this.nextToken++, ruleId: rule.id, price, day: this.day };
    this.pending.set(reservation.token, reservation);
    this.outstanding.set(reservation.token, { price, answered: false });
    return reservation;
  }

  /**
   * The buy's outcome, once stored (its spend and its firing's trade): `bought` keeps it counted (and reads
   * the balance again), otherwise it is given back.
   */
  settle(reservation: Reservation, bought: boolean): void {
    this.pending.delete(reservation.token);
    if (!bought) {
      this.outstanding.delete(reservation.token);
      return;
    }
    this.settled.push({ ...reservation, loadGeneration: this.loadGeneration });
    // The guard's own balance read costs a request: only while a floor is set (else the buy needs no more tracking).
    if ((this.settings().autoBuyBalanceFloor ?? 0) === 0) {
      this.outstanding.delete(reservation.token);
      return;
    }
    const entry = this.outstanding.get(reservation.token);
    if (entry) entry.answered = true;
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
