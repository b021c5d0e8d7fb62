import type { Balance } from '../../../shared/api';
import type { BalanceRunway, EngineEventBatch, Notification } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { formatRunway, formatThresholdHours, shortestRunwayMs } from '../../../shared/runway';
import { toUtcIso } from '../../../shared/time';
import type { EventBatcher } from '../events/batcher';
import type { LocalStore } from '../store';
import { DAY_MS, HOUR_MS, RunwayAlarm, runwayOf, sameRunway } from './runway';

/** What the runway reads of the open account. */
export interface RunwaySource {
  readonly balance: Balance | null;
  readonly inFlight: number;
  readonly store: Pick<LocalStore, 'ledgerSpend' | 'getMeta' | 'setMeta'>;
}

/**
 * The account's alert state in its store's `meta`: the time of the crossing told, while the runway has not been seen
 * at or above the threshold since (null or absent: armed).
 */
export const RUNWAY_TOLD_META = 'operations.runwayAlertTold';

/** The last hour's spend decays with time alone: without news the runway is computed again this often. */
const RECOMPUTE_EVERY_MS = 60_000;

/**
 * Keeps the balance runway current: computed again when the balance or the ledger changes (wallet sync announces
 * both), when the threshold changes, and once a minute; pushed as `runway` only when its figures changed, and a
 * notification once per crossing under the threshold.
 */
export class RunwayService {
  /** The open account's alarm, read from its store at the first computation. */
  private alarm: { source: RunwaySource; alarm: Promise<RunwayAlarm> } | null = null;
  private last: BalanceRunway | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private readonly unsubscribe: () => void;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly events: EventBatcher,
    private readonly source: () => RunwaySource | null,
    private readonly thresholdHours: () => number | null,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.unsubscribe = events.subscribe((batch) => this.onBatch(batch));
    this.timer = setInterval(() => this.recompute(), RECOMPUTE_EVERY_MS);
    this.timer.unref();
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.timer);
  }

  /** The runway now; null while no account or no balance is known. */
  async current(): Promise<BalanceRunway | null> {
    const source = this.source();
    return source ? this.compute(source) : null;
  }

  /** The threshold changed: the alert looks again (a threshold set above the runway announces it). */
  settingsChanged(): void {
    this.recompute();
  }

  private onBatch(batch: EngineEventBatch): void {
    if (batch.accountChanged) {
      this.alarm = null;
      this.last = null;
    }
    if (batch.balance || batch.ledgerChanged || batch.accountChanged) this.recompute();
  }

  /** One computation at a time; news arriving meanwhile makes one more after it. */
  private recompute(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.publish()
      .catch((error: unknown) => this.log(`runway: ${(error as Error).message}`))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.recompute();
        }
      });
  }

  private async publish(): Promise<void> {
    const source = this.source();
    if (!source) return;
    const runway = await this.compute(source);
    if (!runway || this.source() !== source) return;
    const alarm = await this.alarmOf(source);
    const wasArmed = alarm.isArmed;
    const crossed = alarm.observe(runway);
    if (alarm.isArmed !== wasArmed) {
      // Kept before the notification goes out: a restart after it tells nothing again.
      await source.store
        .setMeta(RUNWAY_TOLD_META, alarm.isArmed ? null : runway.at)
        .catch((error: unknown) => this.log(`runway: the alert state was not kept: ${(error as Error).message}`));
    }
    if (sameRunway(this.last, runway) && !crossed) return;
    this.last = runway;
    this.events.push({ runway, ...(crossed ? { notifications: [runwayNotification(runway)] } : {}) });
  }

  /** The account's alarm, armed unless its store says a crossing was told and not re-armed since. */
  private alarmOf(source: RunwaySource): Promise<RunwayAlarm> {
    if (this.alarm?.source !== source) {
      const alarm = source.store
        .getMeta(RUNWAY_TOLD_META)
        .then((told) => new RunwayAlarm(typeof told !== 'string'))
        .catch(() => new RunwayAlarm());
      this.alarm = { source, alarm };
    }
    return this.alarm.alarm;
  }

  private async compute(source: RunwaySource): Promise<BalanceRunway | null> {
    const balance = source.balance;
    if (!balance) return null;
    const now = this.now();
    const spend = await source.store.ledgerSpend(toUtcIso(now - HOUR_MS), toUtcIso(now - DAY_MS));
    return runwayOf({
      at: toUtcIso(now),
      balance,
      inFlight: source.inFlight,
      ...spend,
      thresholdHours: this.thresholdHours(),
    });
  }
}

/** "Balance runway under 6 h": raised once per crossing. */
export function runwayNotification(runway: BalanceRunway): Notification {
  const left = shortestRunwayMs(runway) ?? 0;
  const threshold = formatThresholdHours(runway.thresholdHours ?? 0);
  return {
    id: `runway:${runway.at}`,
    kind: 'system',
    category: 'alert',
    severity: 'warning',
    title: `Balance runway under ${threshold}`,
    body: `About ${formatRunway(left)} of buying left at the recent rate; ${formatCents(runway.available)} available. Top up to keep buying.`,
    target: null,
    at: runway.at,
  };
}
