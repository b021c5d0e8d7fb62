/**
 * A new cache's first fill: `GET /Trades/History?isActive=true` (every trade of the last 14 days, unpaged) streamed in
 * the writer thread, cut into trades as bytes (ItemSplitter), each checked with the client's trade schema and stored
 * in chunks, one transaction each. Neither the body nor the list is ever held whole. The fill's position (meta) is
 * written with the last chunk only: a stream that does not end leaves no position, and the next start streams the
 * window again; the chunks it stored are whole, checked trades, stored again idempotently. What goes back to the host
 * is small: the writes of trades changed since the account was opened, and the newest trade delivered to the webhook.
 */
import { tradeSchema, type Trade } from '../../../../shared/api';
import { CatalogSyncError } from '../errors';
import type { CatalogSyncProgress, TradeWindowRequest, TradeWindowResult, TradeUpsertResult } from '../types';
import { streamBody } from '../../catalog/download';
import { EnvelopeFormatError, ItemSplitter, TRADES_ENVELOPE } from '../../catalog/itemSplitter';
import type { RecordsWriter } from './recordsWriter';
import type { SyncContext } from '../../catalog/catalogSync';

/** Trades per transaction: a few milliseconds of writing between two slices of the body. */
const CHUNK_TRADES = 2000;
const PROGRESS_INTERVAL_MS = 100;

export async function runTradeWindow(
  records: RecordsWriter,
  request: TradeWindowRequest,
  context: SyncContext,
): Promise<TradeWindowResult> {
  const { fillKey, fill } = request;
  let chunk: Trade[] = [];
  let stored = 0;
  let oldest: string | null = null;
  let failure: CatalogSyncError | null = null;
  let lastProgress = 0;
  // What a later write would tell (a status reached since the account was opened): small, handed back at the end.
  const recent: TradeUpsertResult = { changed: [], newStatuses: [], newlyFailed: [] };
  // The newest trade whose update was delivered: a failed delivery before it is no news (operations/webhookWatch.ts).
  let delivered: Trade | null = null;
  const write = (meta?: Record<string, unknown>) => {
    const result = records.upsertTrades(chunk, 'backfill', meta);
    for (const trade of result.changed)
      if (trade.webhookStatus === 'sent' && (delivered === null || trade.createdAt > delivered.createdAt))
        delivered = trade;
    const since = new Set(result.changed.filter((t) => t.updatedAt >= request.since).map((t) => t.tradeId));
    recent.changed.push(...result.changed.filter((t) => since.has(t.tradeId)));
    recent.newStatuses.push(...result.newStatuses.filter((s) => since.has(s.tradeId)));
    recent.newlyFailed.push(...result.newlyFailed.filter((tradeId) => since.has(tradeId)));
    stored += chunk.length;
    chunk = [];
  };
  const splitter = new ItemSplitter(
    (bytes, start, end) => {
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString('utf8', start, end));
      } catch {
        return false;
      }
      const checked = tradeSchema.safeParse(value);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        const id = (value as { tradeId?: unknown } | null)?.tradeId;
        throw (failure = new CatalogSyncError(
          'protocol',
          `the trade window could not be read: trade ${typeof id === 'string' ? id : `#${splitter.received}`}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
        ));
      }
      const trade = checked.data;
      if (oldest === null || trade.createdAt < oldest) oldest = trade.createdAt;
      chunk.push(trade);
      if (chunk.length >= CHUNK_TRADES) write();
      return true;
    },
    8192,
    TRADES_ENVELOPE,
  );
  const progress = (force: boolean) => {
    const now = performance.now();
    if (!force && now - lastProgress < PROGRESS_INTERVAL_MS) return;
    lastProgress = now;
    const step: CatalogSyncProgress = { phase: 'receiving', received: splitter.received, total: null, applied: stored };
    context.progress(step);
  };
  try {
    const outcome = await streamBody({ ...request, label: 'the trade window' }, context.signal, (bytes) => {
      splitter.push(bytes);
      progress(false);
    });
    if (outcome.kind === 'http')
      return { ok: false, status: outcome.status, headers: outcome.headers, bodyText: outcome.bodyText };
    const fields = splitter.endFields();
    if (context.signal.aborted) throw new CatalogSyncError('aborted', 'the trade window was cancelled');
    const total = typeof fields['total'] === 'number' ? fields['total'] : null;
    if (total !== null && total !== splitter.received)
      throw new CatalogSyncError('protocol', `the trade window says ${total} trades but holds ${splitter.received}`);
    // The older history is paged from the oldest trade the window held (inclusive: that millisecond is asked
    // again); an empty window leaves nothing between its start and when it was asked.
    write({ [fillKey]: { ...fill, to: oldest ?? fill.to } });
    const newest = delivered as Trade | null;
    if (newest && !recent.changed.some((t) => t.tradeId === newest.tradeId)) recent.changed.push(newest);
    progress(true);
    return { ok: true, stored, oldest, total, recent };
  } catch (error) {
    if (failure) throw failure;
    throw error instanceof EnvelopeFormatError
      ? new CatalogSyncError('protocol', `the trade window could not be read: ${error.message}`)
      : error;
  }
}
