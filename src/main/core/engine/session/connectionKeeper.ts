import type { ConnectionStatus } from '../../../../shared/ipc';
import { toUtcIso } from '../../../../shared/time';
import type { ApiRequestError } from '../../api';
import {
  type ConnectionInput,
  type ConnectionModel,
  connectionStatus,
  initialConnection,
  nextConnection,
  noKeyDetail,
  restFailureOf,
  shouldPoll,
} from './connectionState';
import type { SessionContext } from './sessionContext';

/** How often trades are polled while no feed is possible (spec's polling mode). */
export const POLL_INTERVAL_MS = 15_000;
/** After a failed API call the cache may be stale: catch up after 5 s, doubling up to 2 min (never before a server backoff ends). */
const RECOVERY_FIRST_MS = 5_000;
const RECOVERY_MAX_MS = 120_000;

export type CatchUpReason = 'feed lost' | 'polling' | 'recovery';

/**
 * The connection's state (connectionState.ts) and what follows from it: the status the UI is told, polling while
 * no feed is possible, and a catch-up after a failure (backing off). It asks the session to catch up; the session
 * tells it what happened.
 */
export class ConnectionKeeper {
  private model: ConnectionModel;
  private lastFailureAt = Number.NEGATIVE_INFINITY;
  private stopPolling: (() => void) | null = null;
  private cancelRecovery: (() => void) | null = null;
  private recoveryAttempt = 0;

  constructor(
    private readonly ctx: SessionContext,
    private readonly catchUp: (reason: CatchUpReason) => void,
  ) {
    this.model = initialConnection(toUtcIso(ctx.timers.clock.now()));
  }

  get status(): ConnectionStatus {
    if (!this.ctx.api) {
      const detail = noKeyDetail(this.ctx.account.merchantId);
      return { state: 'offline', detail, nextAttemptAt: null, since: this.model.openedAt };
    }
    return connectionStatus(this.model);
  }

  /** Bumped at each feed (re)connect. */
  get generation(): number {
    return this.model.generation;
  }

  get polling(): boolean {
    return this.stopPolling !== null;
  }

  /** Whether a REST call failed at or after `since` (epoch ms). */
  failedSince(since: number): boolean {
    return this.lastFailureAt >= since;
  }

  /** The feed's word; true when it just (re)connected. */
  feedState(status: ConnectionStatus): boolean {
    const generation = this.model.generation;
    this.apply({ kind: 'feed', status }, true);
    return this.model.generation !== generation;
  }

  /** A reconcile begun at `generation` went through: REST answers, and the cache is current. */
  restOk(generation: number): void {
    this.recoveryAttempt = 0;
    this.apply({ kind: 'rest-ok', generation });
  }

  restFailed(error: ApiRequestError): void {
    this.lastFailureAt = this.ctx.timers.clock.now();
    if (error.code !== 'unauthorized' && error.kind !== 'aborted') this.scheduleRecovery();
    this.apply({ kind: 'rest-failure', ...restFailureOf(error), at: toUtcIso(this.lastFailureAt) });
  }

  /**
   * A failure on our side (the cache refused a write): nothing to tell the server, but the catch-up it broke is tried
   * again after the same backoff, instead of leaving the account catching up until the next reconnect.
   */
  localFailed(): void {
    this.lastFailureAt = this.ctx.timers.clock.now();
    this.scheduleRecovery();
  }

  /** "Retry now": the backed-off catch-up is replaced by one now. */
  resetRecovery(): void {
    this.cancelRecovery?.();
    this.cancelRecovery = null;
    this.recoveryAttempt = 0;
  }

  /** Moves the model on; the status goes out when it changed (every feed word goes out), polling follows it. */
  private apply(input: ConnectionInput, announce = false): void {
    const previous = this.status;
    this.model = nextConnection(this.model, input);
    const connection = this.status;
    if (previous.state !== connection.state || previous.detail !== connection.detail)
      this.ctx.hooks.log(`connection: ${connection.state}: ${connection.detail}`);
    if (announce || JSON.stringify(connection) !== JSON.stringify(previous)) this.ctx.events.push({ connection });
    const poll = shouldPoll(this.model);
    if (poll && !this.stopPolling) {
      this.stopPolling = this.ctx.timers.every(POLL_INTERVAL_MS, () => this.catchUp('polling'));
      this.catchUp('feed lost');
    } else if (!poll && this.stopPolling) {
      this.stopPolling();
      this.stopPolling = null;
    }
  }

  /** One catch-up after a backoff, so a cache left stale by a failed call catches up once the API answers, even with a quiet feed. */
  private scheduleRecovery(): void {
    if (this.ctx.isStopped() || this.cancelRecovery || this.stopPolling) return;
    this.recoveryAttempt++;
    const base = Math.min(RECOVERY_MAX_MS, RECOVERY_FIRST_MS * 2 ** (this.recoveryAttempt - 1));
    const backoffUntil = this.ctx.limiter.status().backoffUntil;
    const delay = Math.max(base, backoffUntil ? Date.parse(backoffUntil) - this.ctx.timers.clock.now() : 0);
    this.cancelRecovery = this.ctx.timers.later(delay, () => {
      this.cancelRecovery = null;
      this.catchUp('recovery');
    });
  }
}
