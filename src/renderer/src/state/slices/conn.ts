import type { AccountSummary, AppSnapshot, ConnectionStatus, ProgressStatus, RateLimitStatus } from '../../../../shared/ipc/models';
import type { EngineEventBatch } from '../../../../shared/ipc/events';

/** Connection, account and the status-bar counters. */
export interface ConnSlice {
  boot: 'loading' | 'ready' | 'failed';
  bootError: string | null;
  host: 'electron' | 'web' | null;
  account: AccountSummary | null;
  connection: ConnectionStatus | null;
  rateLimit: RateLimitStatus | null;
  progress: ProgressStatus[];
  activeTrades: number;
  unacknowledgedFirings: number;
  lastSeq: number;
}

export const initialConn: ConnSlice = {
  boot: 'loading',
  bootError: null,
  host: null,
  account: null,
  connection: null,
  rateLimit: null,
  progress: [],
  activeTrades: 0,
  unacknowledgedFirings: 0,
  lastSeq: 0,
};

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
    activeTrades: snap.activeTrades,
    unacknowledgedFirings: snap.unacknowledgedFirings,
  };
}

export function applyConnBatch(slice: ConnSlice, batch: EngineEventBatch): ConnSlice {
  const changed =
    batch.connection !== undefined ||
    batch.rateLimit !== undefined ||
    batch.progress !== undefined ||
    batch.activeTrades !== undefined ||
    batch.unacknowledgedFirings !== undefined;
  const next: ConnSlice = changed ? { ...slice } : slice;
  if (batch.connection !== undefined) next.connection = batch.connection;
  if (batch.rateLimit !== undefined) next.rateLimit = batch.rateLimit;
  if (batch.progress !== undefined) next.progress = batch.progress;
  if (batch.activeTrades !== undefined) next.activeTrades = batch.activeTrades;
  if (batch.unacknowledgedFirings !== undefined) next.unacknowledgedFirings = batch.unacknowledgedFirings;
  if (batch.seq > slice.lastSeq) return { ...next, lastSeq: batch.seq };
  return next;
}
