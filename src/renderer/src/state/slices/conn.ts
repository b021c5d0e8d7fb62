import type {
  AccountSummary,
  AppSnapshot,
  ConnectionStatus,
  ExportStatus,
  ProgressStatus,
  RateLimitStatus,
} from '../../../../shared/ipc/models';
import type { EngineEventBatch } from '../../../../shared/ipc/events';
import type { UpdateStatus } from '../../../../shared/ipc/updates';

/**
 * The link between this page and Merchant Desk itself (the web host's bridge; always
 * `open` in Electron): `starting` until it first opens, `lost` while it is down and being
 * retried, `expired` when the host is up but refuses this page's token.
 */
export type BridgeLink = 'starting' | 'open' | 'lost' | 'expired';

/** Connection, account and the status-bar counters. */
export interface ConnSlice {
  boot: 'loading' | 'ready' | 'failed';
  bootError: string | null;
  host: 'electron' | 'web' | null;
  account: AccountSummary | null;
  connection: ConnectionStatus | null;
  rateLimit: RateLimitStatus | null;
  progress: ProgressStatus[];
  /** This run's CSV exports, newest first (the engine's list). */
  exports: ExportStatus[];
  /** Exports the user closed in the status bar. */
  dismissedExports: string[];
  activeTrades: number;
  unacknowledgedFirings: number;
  lastSeq: number;
  /** null: no bridge to lose (Electron) or not known yet. */
  bridge: BridgeLink | null;
  /** The desktop app's update (null: no updates here, as in the web host, or not known yet). */
  update: UpdateStatus | null;
  /** "Restart and install" asked first (auto-buy armed): the question, until answered. */
  updateQuestion: string | null;
}

export const initialConn: ConnSlice = {
  boot: 'loading',
  bootError: null,
  host: null,
  account: null,
  connection: null,
  rateLimit: null,
  progress: [],
  exports: [],
  dismissedExports: [],
  activeTrades: 0,
  unacknowledgedFirings: 0,
  lastSeq: 0,
  bridge: null,
  update: null,
  updateQuestion: null,
};

/**
 * The bridge's raw state folded into what the page shows. A retry (`connecting`) does not
 * end a loss; coming back (`open`) forgets the seq (a restarted host counts from 1 again) and
 * the feed state heard before the loss, which the re-read snapshot or the next event replaces.
 */
export function withBridgeState(slice: ConnSlice, state: 'connecting' | 'open' | 'closed' | 'unauthorized'): ConnSlice {
  let bridge: BridgeLink;
  if (state === 'open') bridge = 'open';
  else if (state === 'unauthorized') bridge = 'expired';
  else if (state === 'closed') bridge = slice.bridge === 'expired' ? 'expired' : 'lost';
  else bridge = slice.bridge ?? 'starting';
  if (bridge === slice.bridge) return slice;
  const back = bridge === 'open' && (slice.bridge === 'lost' || slice.bridge === 'expired');
  return { ...slice, bridge, ...(back ? { lastSeq: 0, connection: null } : {}) };
}

/** Whether the page currently cannot reach Merchant Desk (what it shows may be stale). */
export function bridgeDown(bridge: BridgeLink | null): boolean {
  return bridge === 'lost' || bridge === 'expired';
}

export function connFromSnapshot(slice: ConnSlice, snap: AppSnapshot, host: 'electron' | 'web'): ConnSlice {
  return {
    ...slice,
    boot: 'ready',
    bootError: null,
    host,
    account: snap.account,
    connection: snap.connection,
    rateLimit: snap.rateLimit,
    progress: snap.progress,
    exports: snap.exports ?? [],
    activeTrades: snap.activeTrades,
    unacknowledgedFirings: snap.unacknowledgedFirings,
  };
}

export function applyConnBatch(slice: ConnSlice, batch: EngineEventBatch): ConnSlice {
  const changed =
    batch.connection !== undefined ||
    batch.rateLimit !== undefined ||
    batch.progress !== undefined ||
    batch.exports !== undefined ||
    batch.activeTrades !== undefined ||
    batch.unacknowledgedFirings !== undefined ||
    batch.update !== undefined;
  const next: ConnSlice = changed ? { ...slice } : slice;
  if (batch.connection !== undefined) next.connection = batch.connection;
  if (batch.rateLimit !== undefined) next.rateLimit = batch.rateLimit;
  if (batch.progress !== undefined) next.progress = batch.progress;
  if (batch.exports !== undefined) next.exports = batch.exports;
  if (batch.activeTrades !== undefined) next.activeTrades = batch.activeTrades;
  if (batch.unacknowledgedFirings !== undefined) next.unacknowledgedFirings = batch.unacknowledgedFirings;
  if (batch.update !== undefined) {
    next.update = batch.update;
    // The question was about the update that was ready: any other state ends it.
    if (batch.update.state !== 'ready') next.updateQuestion = null;
  }
  // Batches arrive in order: the latest seq is the one to compare the next with (a restarted engine counts from 1 again).
  if (batch.seq !== slice.lastSeq) return { ...next, lastSeq: batch.seq };
  return next;
}
