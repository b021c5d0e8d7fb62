/** The timers the schedule runs on: the real ones in the app, a test's own clock in the tests. */
export interface Clock {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const UPDATE_CHECK_INTERVAL_MS = 6 * 60 * 60 * 1000;

/**
 * When the update feed is checked: once the settings are known and "Check for updates" is on, at once and then
 * every 6 hours; never while it is off (switching it off cancels the next check, switching it on checks at once).
 */
export class UpdateSchedule {
  private timer: unknown = null;
  private running = false;

  /** `enabled`: the settings are known and the switch is on. */
  constructor(
    private readonly clock: Clock,
    private readonly check: () => void,
    private readonly enabled: () => boolean,
  ) {}

  start(): void {
    this.running = true;
    this.settingsChanged();
  }

  /** Any settings change (or their first arrival). */
  settingsChanged(): void {
    if (!this.running) return;
    if (!this.enabled()) this.cancel();
    else if (this.timer === null) this.tick();
  }

  stop(): void {
    this.running = false;
    this.cancel();
  }

  private tick(): void {
    this.check();
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      if (this.running && this.enabled()) this.tick();
    }, UPDATE_CHECK_INTERVAL_MS);
  }

  private cancel(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
