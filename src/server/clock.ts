import { toUtcIso } from '../shared/time';

type TimerCallback = () => void | Promise<void>;

interface ScheduledTimer {
  dueAt: number;
  seq: number;
  label: string;
  run: TimerCallback;
  cancelled: boolean;
}

export interface TimerHandle {
  cancel(): void;
}

/**
 * The one clock of the sandbox: real time plus an offset that only grows.
 * Everything time-based schedules here, so `advance()` can move time forward
 * and fire what came due in order, each callback seeing its own due time,
 * the way a payment provider's test clock does. Real time keeps flowing.
 */
export class SandboxClock {
  private readonly timers: ScheduledTimer[] = [];
  private seq = 0;
  private realTimer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private stopped = false;
  private readonly advancedListeners = new Set<() => void>();
  /** While a due timer's callback runs (its synchronous part), the time it came due: see drain(). */
  private pinnedAt: number | null = null;

  constructor(
    private offsetMs = 0,
    private readonly onOffsetChange: (offsetMs: number) => void = () => {},
    private readonly onTimerError: (label: string, error: unknown) => void = () => {},
  ) {}

  now(): number {
    return this.pinnedAt ?? Date.now() + this.offsetMs;
  }

  nowIso(): string {
    return toUtcIso(this.now());
  }

  get offset(): number {
    return this.offsetMs;
  }

  schedule(dueAt: number, label: string, run: TimerCallback): TimerHandle {
    const timer: ScheduledTimer = { dueAt, seq: this.seq++, label, run, cancelled: false };
    const index = this.timers.findIndex((t) => t.dueAt > dueAt);
    this.timers.splice(index === -1 ? this.timers.length : index, 0, timer);
    this.armRealTimer();
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  scheduleIn(delayMs: number, label: string, run: TimerCallback): TimerHandle {
    return this.schedule(this.now() + delayMs, label, run);
  }

  /** Labels and due times of what is waiting, for the admin API and tests. */
  pending(): { label: string; dueAt: string }[] {
    return this.timers.filter((t) => !t.cancelled).map((t) => ({ label: t.label, dueAt: toUtcIso(t.dueAt) }));
  }

  /** Moves time forward by `seconds`, firing every timer that comes due, in order. */
  async advance(seconds: number): Promise<void> {
    if (!(seconds >= 0) || !Number.isFinite(seconds)) throw new RangeError('seconds must be a finite number ≥ 0');
    const target = this.now() + Math.round(seconds * 1000);
    await this.drain(target);
    this.moveTo(target);
    for (const listener of [...this.advancedListeners]) listener();
  }

  /** Calls `listener` after each `advance()` has fired what came due; returns the unsubscribe. */
  onAdvanced(listener: () => void): () => void {
    this.advancedListeners.add(listener);
    return () => {
      this.advancedListeners.delete(listener);
    };
  }

  stop(): void {
    this.stopped = true;
    if (this.realTimer) clearTimeout(this.realTimer);
    this.realTimer = null;
    this.timers.length = 0;
  }

  private moveTo(time: number): void {
    const delta = time - this.now();
    if (delta <= 0) return;
    this.offsetMs += delta;
    this.onOffsetChange(this.offsetMs);
  }

  /** Runs due timers one at a time; callbacks may schedule more, which join the queue in order. */
  private async drain(until: number): Promise<void> {
    while (this.draining) await this.draining;
    const run = async () => {
      for (;;) {
        const next = this.timers[0];
        if (!next || next.dueAt > Math.max(until, this.now())) break;
        this.timers.shift();
        if (next.cancelled) continue;
        // The callback reads exactly its due time (real time would otherwise add a millisecond now and
        // then); only its synchronous part, so an awaited delivery never freezes the clock for others.
        const at = Math.max(next.dueAt, this.now());
        this.moveTo(at);
        try {
          let pending: ReturnType<TimerCallback>;
          this.pinnedAt = at;
          try {
            pending = next.run();
          } finally {
            this.pinnedAt = null;
          }
          await pending;
        } catch (error) {
          this.onTimerError(next.label, error);
        }
      }
    };
    this.draining = run();
    try {
      await this.draining;
    } finally {
      this.draining = null;
      this.armRealTimer();
    }
  }

  private armRealTimer(): void {
    if (this.stopped) return;
    if (this.realTimer) clearTimeout(this.realTimer);
    this.realTimer = null;
    const next = this.timers.find((t) => !t.cancelled);
    if (!next) return;
    // setTimeout caps near 24.8 days; re-arming on wake covers longer waits.
    const delay = Math.min(Math.max(0, next.dueAt - this.now()), 2 ** 31 - 1);
    this.realTimer = setTimeout(() => {
      this.realTimer = null;
      void this.drain(this.now());
    }, delay);
    this.realTimer.unref();
  }
}
