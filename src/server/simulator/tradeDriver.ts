import type { TradeStatus, TradeUpdatedWebhook } from '../../shared/api';
import { TRADE_ERROR_CODES } from '../../shared/api';
import { Rng } from '../catalog/rng';
import type { TimerHandle } from '../clock';
import { ApiError } from '../domain/apiError';
import type { SandboxCore } from '../domain/core';
import { findTransition } from '../domain/lifecycle';
import type { TradeRow, TransitionRequest } from '../domain/trades';
import type { Range, ResolvedOptions, SentOutcomeWeights } from './options';
import { pickWeighted, SEND_FAILURE_MESSAGES, SENT_FAILURE_MESSAGES } from './options';

/** The next move the simulator plans for a trade, and when. */
export interface PlannedMove {
  dueAt: number;
  request: TransitionRequest;
}

type Stage = 'PENDING' | 'SENT' | 'COMPLETED';

const SENT_REQUESTS: Record<Exclude<keyof SentOutcomeWeights, 'expired'>, TransitionRequest> = {
  completed: { status: 'COMPLETED' },
  declined: { status: 'CANCELLED', errorCode: TRADE_ERROR_CODES.declined },
  countered: { status: 'CANCELLED', errorCode: TRADE_ERROR_CODES.countered },
  itemsInvalid: { status: 'CANCELLED', errorCode: TRADE_ERROR_CODES.itemsInvalid },
  failed: { status: 'FAILED', errorCode: TRADE_ERROR_CODES.failed },
};

/** The two REVERSED failReasons of the outcome table, taken from the transition table itself. */
function reversalReasons(): [seller: string, buyer: string] {
  const reasons = (findTransition('COMPLETED', 'REVERSED')?.outcomes ?? []).map((o) => o.failReason);
  const seller = reasons.find((r) => r?.startsWith('Seller'));
  const buyer = reasons.find((r) => r?.startsWith('Buyer'));
  if (!seller || !buyer) throw new Error('the transition table has no seller/buyer REVERSED rows');
  return [seller, buyer];
}

function drawDelay(rng: Rng, [lo, hi]: Range): number {
  return Math.round(rng.float(lo, hi));
}

/**
 * Drives trades through their lifecycle on the sandbox clock: PENDING → SENT
 * (rarely FAILED / REJECTED), SENT → an outcome, COMPLETED → sometimes
 * REVERSED days later.
 *
 * Every choice for a trade comes from a stream derived from the seed, the
 * trade's sequence number and its stage, never from a shared stream: the
 * outcome of the n-th trade does not depend on the order in which timers of
 * other trades happen to fire, and a restarted sandbox makes the same choices.
 */
export class TradeDriver {
  private readonly root: Rng;
  private readonly timers = new Map<string, TimerHandle>();
  private readonly reasons = reversalReasons();
  private readonly onUpdate = (_merchantId: string, update: TradeUpdatedWebhook) =>
    this.plan(update.tradeId, update.status);
  private running = false;

  constructor(
    private readonly core: SandboxCore,
    private readonly options: ResolvedOptions,
  ) {
    this.root = new Rng(options.seed).fork('simulator trades');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.core.events.on('tradeUpdated', this.onUpdate);
    this.pickUp();
  }

  /**
   * Plans the trades in flight (and completed ones that may still be reversed) written while it did not watch:
   * from before a restart, or a seeded history.
   */
  pickUp(): void {
    if (!this.running) return;
    const rows = this.core.db
      .prepare(
        `SELECT trade_id, status FROM trades
         WHERE status IN ('PENDING', 'SENT') OR (status = 'COMPLETED' AND end_protection > ?)
         ORDER BY seq`,
      )
      .all(this.core.clock.now()) as { trade_id: string; status: TradeStatus }[];
    for (const row of rows) if (!this.timers.has(row.trade_id)) this.plan(row.trade_id, row.status);
  }

  stop(): void {
    this.running = false;
    this.core.events.off('tradeUpdated', this.onUpdate);
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }

  /** Trades with a move waiting (for tests and diagnostics). */
  get scheduledCount(): number {
    return this.timers.size;
  }

  /** The move planned for a trade in its current status, or null (no move: it ends by itself or stays). */
  planFor(row: TradeRow): PlannedMove | null {
    if (row.status !== 'PENDING' && row.status !== 'SENT' && row.status !== 'COMPLETED') return null;
    const stage: Stage = row.status;
    const rng = this.root.fork(`${row.seq}:${stage}`);
    const o = this.options;
    switch (stage) {
      case 'PENDING': {
        const dueAt = row.created_at + drawDelay(rng, o.sendDelayMs);
        const u = rng.next();
        if (u < o.sendFailProbability) {
          return {
            dueAt,
            request: {
              status: 'FAILED',
              errorCode: TRADE_ERROR_CODES.failed,
              failReason: rng.pick(SEND_FAILURE_MESSAGES),
            },
          };
        }
        if (u < o.sendFailProbability + o.sendRejectProbability) return { dueAt, request: { status: 'REJECTED' } };
        return { dueAt, request: { status: 'SENT' } };
      }
      case 'SENT': {
        const dueAt = (row.sent_at ?? row.updated_at) + drawDelay(rng, o.outcomeDelayMs);
        const outcome = pickWeighted(o.outcomes, rng.next());
        // Expiry needs nothing from us: the trade's own timer fires at sent + tradeDurationSeconds.
        if (outcome === 'expired') return null;
        const request = { ...SENT_REQUESTS[outcome] };
        if (outcome === 'failed') request.failReason = rng.pick(SENT_FAILURE_MESSAGES);
        return { dueAt, request };
      }
      case 'COMPLETED': {
        if (!rng.chance(o.reversalProbability)) return null;
        const dueAt = (row.completed_at ?? row.updated_at) + drawDelay(rng, o.reversalDelayMs);
        const failReason = rng.chance(0.5) ? this.reasons[0] : this.reasons[1];
        return { dueAt, request: { status: 'REVERSED', errorCode: TRADE_ERROR_CODES.reversed, failReason } };
      }
    }
  }

  private plan(tradeId: string, status: TradeStatus): void {
    if (!this.running) return;
    this.timers.get(tradeId)?.cancel();
    this.timers.delete(tradeId);
    if (status !== 'PENDING' && status !== 'SENT' && status !== 'COMPLETED') return;
    const row = this.core.trades.find(tradeId);
    if (!row || row.status !== status) return;
    const move = this.planFor(row);
    if (!move) return;
    const timer = this.core.clock.schedule(
      move.dueAt,
      `simulator: trade ${tradeId} ${status} → ${move.request.status}`,
      () => {
        if (this.timers.get(tradeId) === timer) this.timers.delete(tradeId);
        this.apply(tradeId, status, move.request);
      },
    );
    this.timers.set(tradeId, timer);
  }

  private apply(tradeId: string, expected: TradeStatus, request: TransitionRequest): void {
    if (!this.running) return;
    // An administrator (or a reset) may have moved or removed the trade meanwhile.
    const row = this.core.trades.find(tradeId);
    if (row?.status !== expected) return;
    try {
      // Emits tradeUpdated, which plans the next move.
      if (request.status === 'CANCELLED' && request.errorCode === TRADE_ERROR_CODES.itemsInvalid) {
        // The seller sold the item elsewhere: the same path as an admin DELETE of the item (CANCELLED 505).
        this.core.sellElsewhere(row.item_id);
      } else {
        this.core.trades.transition(tradeId, request);
      }
    } catch (error) {
      // A race with an administrator's move, or a reversal past protection: refused, nothing to do.
      if (error instanceof ApiError) return;
      throw error;
    }
  }
}
