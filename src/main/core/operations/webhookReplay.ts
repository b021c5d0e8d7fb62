/**
 * Webhook replay (off by default): re-sends failed deliveries' `trade_updated` bodies to the merchant's own webhook,
 * built from the cached trade and signed exactly as the marketplace signs them, so their back end can catch up.
 * Every replay is logged (when, the range, the results; never the key or the URL's path), and a trade status already
 * replayed is sent again only when the merchant asks for it again.
 */
import { randomUUID } from 'node:crypto';
import type { Trade, TradeUpdatedWebhook } from '../../../shared/api';
import type { WebhookReplayInput, WebhookReplayOutcome, WebhookReplayRecord } from '../../../shared/ipc';
import { MAX_REPLAY_TRADES } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import { EngineError } from '../ipc/engineService';
import { NotPublicAddressError, postBody } from '../notify/webhookPost';
import type { LocalStore } from '../store';
import { signWebhookBody } from '../webhookSignature';
import { replayUrlProblem } from './replayUrl';

export const REPLAY_LOG_META = 'operations.webhookReplays';
/** Trade statuses replayed: `${tradeId} ${status}` → the replay's id. */
export const REPLAYED_META = 'operations.webhookReplayed';
const LOG_KEPT = 100;
const TIMEOUT_MS = 10_000;

export type ReplayChoice =
  Extract<WebhookReplayInput, { from: string }> | Extract<WebhookReplayInput, { tradeIds: string[] }>;

export interface ReplayContext {
  store: LocalStore;
  /** The account's key (main only); null for an account open without it. */
  apiKey: string | null;
  enabled: boolean;
  url: string | null;
  allowPrivateAddresses: boolean;
  now: () => number;
  signal: AbortSignal;
}

/** The body the spec's trade_updated webhook carries, its keys in the spec's order. */
export function tradeUpdatedBody(trade: Trade): string {
  const body: TradeUpdatedWebhook = {
    tradeId: trade.tradeId,
    status: trade.status,
    externalId: trade.externalId,
    offerId: trade.offerId,
    failReason: trade.failReason,
    errorCode: trade.errorCode,
  };
  return JSON.stringify(body);
}

export async function replayLog(store: LocalStore): Promise<WebhookReplayRecord[]> {
  const log = await store.getMeta(REPLAY_LOG_META);
  return Array.isArray(log) ? (log as WebhookReplayRecord[]) : [];
}

const keyOf = (trade: Trade) => `${trade.tradeId} ${trade.status}`;

export class WebhookReplayer {
  private running = false;

  async replay(
    ctx: ReplayContext,
    input: ReplayChoice & { again: boolean; dryRun: boolean },
  ): Promise<WebhookReplayOutcome> {
    if (!ctx.enabled || ctx.url === null)
      throw new EngineError(
        'unavailable',
        'Webhook replay is off: switch it on under Settings → Webhook replay, with your webhook URL',
      );
    const url = ctx.url;
    const urlProblem = replayUrlProblem(url, ctx.allowPrivateAddresses);
    if (urlProblem) throw new EngineError('invalid_input', urlProblem);
    if (ctx.apiKey === null)
      throw new EngineError('unavailable', 'A replay is signed with the API key: enter it in Settings first');
    const trades = await this.chosen(ctx, input);
    const replayed = await replayedMap(ctx.store);
    const already = trades.filter((t) => replayed[keyOf(t)] !== undefined);
    const toSend = input.again ? trades : trades.filter((t) => replayed[keyOf(t)] === undefined);
    const host = new URL(url).host;
    const outcome = { chosen: trades.length, alreadyReplayed: already.length, toSend: toSend.length, host };
    if (input.dryRun) return { ...outcome, record: null };
    if (toSend.length === 0)
      throw new EngineError(
        'conflict',
        `${already.length === 1 ? 'This delivery was' : `All ${already.length} deliveries were`} replayed already: ` +
          'confirm to send again',
      );
    if (this.running) throw new EngineError('unavailable', 'A replay is under way: wait for it to finish');
    this.running = true;
    try {
      const { record, unsent } = await this.send(ctx, url, host, toSend, trades.length - toSend.length, input);
      await this.remember(ctx.store, record, unsent);
      return { ...outcome, record };
    } finally {
      this.running = false;
    }
  }

  /** The failed deliveries the input names; a clear refusal when it names none, or names them wrongly. */
  private async chosen(ctx: ReplayContext, input: ReplayChoice): Promise<Trade[]> {
    if ('tradeIds' in input) {
      const ids = [...new Set(input.tradeIds)];
      const { trades } = await ctx.store.webhookReplayCandidates({ tradeIds: ids });
      const found = new Set(trades.map((t) => t.tradeId));
      const missing = ids.find((id) => !found.has(id));
      if (missing !== undefined) throw new EngineError('not_found', `Trade ${missing} is not in the local cache`);
      const delivered = trades.find((t) => t.webhookStatus !== 'failed');
      if (delivered)
        throw new EngineError(
          'invalid_input',
          `Trade ${delivered.tradeId}'s delivery did not fail (webhookStatus ${delivered.webhookStatus ?? 'none yet'}): ` +
            'only failed deliveries are replayed',
        );
      return trades;
    }
    const { from, to } = input;
    if (from > to)
      throw new EngineError('invalid_input', `The range is reversed: its start ${from} is after its end ${to}`);
    const { trades, history } = await ctx.store.webhookReplayCandidates({ from, to, limit: MAX_REPLAY_TRADES + 1 });
    if (history.from === null || history.to === null)
      throw new EngineError('invalid_input', 'The local cache holds no trades yet');
    if (from < history.from || to > history.to)
      throw new EngineError(
        'invalid_input',
        `The range reaches beyond the cached history (${history.from} to ${history.to}): choose times within it`,
      );
    if (trades.length === 0)
      throw new EngineError(
        'invalid_input',
        `The range is empty: no failed delivery between ${from} and ${to}, nothing to replay`,
      );
    if (trades.length > MAX_REPLAY_TRADES)
      throw new EngineError(
        'invalid_input',
        `More than ${MAX_REPLAY_TRADES} failed deliveries in this range: replay it in shorter parts`,
      );
    return trades;
  }

  private async send(
    ctx: ReplayContext,
    url: string,
    host: string,
    trades: Trade[],
    skipped: number,
    input: ReplayChoice,
  ): Promise<{ record: WebhookReplayRecord; unsent: Set<string> }> {
    const results: WebhookReplayRecord['results'] = [];
    // Bodies that never left (no connection was made): not replayed, so a later replay sends them without asking.
    const unsent = new Set<string>();
    const apiKey = ctx.apiKey as string;
    for (const trade of trades) {
      const body = tradeUpdatedBody(trade);
      const headers = { 'x-webhook-type': 'trade_updated', 'x-signature': signWebhookBody(body, apiKey) };
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(TIMEOUT_MS)]);
      try {
        const answer = await postBody(url, body, headers, signal, {
          allowPrivateAddresses: ctx.allowPrivateAddresses,
        });
        const ok = answer.status >= 200 && answer.status < 300;
        results.push({
          tradeId: trade.tradeId,
          status: trade.status,
          httpStatus: answer.status,
          error: ok ? null : `HTTP ${answer.status}`,
        });
      } catch (error) {
        if (neverSent(error)) unsent.add(keyOf(trade));
        results.push({
          tradeId: trade.tradeId,
          status: trade.status,
          httpStatus: null,
          error: failureText(error, host),
        });
      }
      if (ctx.signal.aborted) break;
    }
    const record: WebhookReplayRecord = {
      id: randomUUID(),
      at: toUtcIso(ctx.now()),
      range: 'from' in input ? { from: input.from, to: input.to } : null,
      host,
      sent: results.length,
      delivered: results.filter((r) => r.error === null).length,
      skipped,
      results,
    };
    return { record, unsent };
  }

  private async remember(store: LocalStore, record: WebhookReplayRecord, unsent: Set<string>): Promise<void> {
    const replayed = await replayedMap(store);
    for (const result of record.results) {
      const key = `${result.tradeId} ${result.status}`;
      if (!unsent.has(key)) replayed[key] = record.id;
    }
    const log = [...(await replayLog(store)), record].slice(-LOG_KEPT);
    await store.setMeta(REPLAYED_META, replayed);
    await store.setMeta(REPLAY_LOG_META, log);
  }
}

async function replayedMap(store: LocalStore): Promise<Record<string, string>> {
  const map = await store.getMeta(REPLAYED_META);
  return map !== null && typeof map === 'object' ? { ...(map as Record<string, string>) } : {};
}

/** Connecting failed: the receiver cannot have seen the body (a time-out or a cut connection may have delivered it). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function neverSent(error: unknown): boolean {
  if (error instanceof NotPublicAddressError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NOT_CONNECTED.has(code);
}

/** What went wrong, naming the host only and nothing of what listens there beyond that. */
function failureText(error: unknown, host: string): string {
  if (error instanceof NotPublicAddressError) return `${host} is not a public address: nothing was sent`;
  if (neverSent(error)) return `could not connect to ${host}: nothing was sent`;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `no answer from ${host} within ${TIMEOUT_MS / 1000} s`;
  return `could not reach ${host}`;
}
