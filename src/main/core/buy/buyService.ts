import { randomUUID } from 'node:crypto';
import type { BuyByNameRequest, BuyRequest, BuyResult, Trade } from '../../../shared/api';
import {
  MAX_ACTIVE_TRADES_PER_HOLDER,
  MAX_ACTIVE_TRADES_PER_OWNER,
  PARTNER_BLOCK_THRESHOLD,
  PARTNER_BLOCK_WINDOW_MS,
  buyByNameRequestChecks,
  buyRequestChecks,
  firstFailedCheck,
  parseTradeUrl,
} from '../../../shared/api';
import type { BuyByIdInput, BuyByNameInput, BuyOutcome, BuyWarning } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { toUtcIso } from '../../../shared/time';
import { ApiRequestError } from '../api';
import type { AccountSession } from '../engine/session';
import { EngineError } from '../ipc/engineService';
import { describeBuyFailure } from './failures';

/** After a lost answer, how often and how long to look for the trade by its externalId. */
const LOOKUP_ATTEMPTS = 4;
const LOOKUP_DELAY_MS = 750;

type Recipient = BuyByIdInput['recipient'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Buying, idempotent end to end: every attempt carries an externalId (the
 * user's or a fresh UUID). When the answer is lost (time-out, dropped
 * connection, 5xx) the trade is looked up by that externalId before anything
 * else, so one click is never two trades; a retry reuses the same externalId.
 */
export class BuyService {
  /** Order ids whose last attempt got no answer: looked up on the server before a retry is sent. */
  private readonly unanswered = new Set<string>();

  constructor(private readonly session: () => AccountSession) {}

  /** Warnings from what we know locally; the server's answer is not guessed. */
  async check(input: BuyByIdInput): Promise<BuyWarning[]> {
    const session = this.session();
    const warnings: BuyWarning[] = [];
    const tradeUrl = await this.resolveRecipient(input.recipient);
    const owner = parseTradeUrl(tradeUrl)?.partner;
    const active = await session.store.activeTrades();
    if (owner) {
      const ownerActive = active.filter((t) => parseTradeUrl(t.tradeUrl)?.partner === owner).length;
      if (ownerActive >= MAX_ACTIVE_TRADES_PER_OWNER - 3) {
        warnings.push({
          code: 'owner-near-limit',
          message: `This recipient already has ${ownerActive} of ${MAX_ACTIVE_TRADES_PER_OWNER} active offers from you.`,
        });
      }
      const since = toUtcIso(Date.now() - PARTNER_BLOCK_WINDOW_MS);
      const recent = await session.store.queryTrades({
        statuses: ['CANCELLED', 'EXPIRED'],
        activeOnly: false,
        from: since,
        to: null,
        externalId: '',
        tradeId: '',
        webhookFailed: false,
        offset: 0,
        limit: 1000,
      });
      const strikes = recent.rows.filter(
        (t) => parseTradeUrl(t.tradeUrl)?.partner === owner && (t.errorCode === 504 || t.errorCode === 503),
      ).length;
      if (strikes >= PARTNER_BLOCK_THRESHOLD - 3) {
        warnings.push({
          code: 'owner-near-block',
          message: `${strikes} of your offers to this recipient were declined or expired in 24 h; at ${PARTNER_BLOCK_THRESHOLD} the marketplace blocks them.`,
        });
      }
    }
    const [item] = await session.store.findItemsByIds([input.itemId]);
    if (item?.steamId) {
      // Only what the cache still knows: items of our active trades that it holds.
      const activeItems = await session.store.findItemsByIds(active.map((t) => t.itemId));
      const sameHolder = activeItems.filter((i) => i.steamId === item.steamId).length;
      if (sameHolder >= MAX_ACTIVE_TRADES_PER_HOLDER - 1) {
        warnings.push({
          code: 'holder-near-limit',
          message: `The account holding this item has at least ${sameHolder} of ${MAX_ACTIVE_TRADES_PER_HOLDER} active offers.`,
        });
      }
    }
    const available = session.balance ? session.balance.total_available : null;
    if (available !== null && input.price > available) {
      warnings.push({ code: 'low-funds', message: `Only ${formatCents(available)} available for a ${formatCents(input.price)} buy.` });
    }
    return warnings;
  }

  async buyById(input: BuyByIdInput): Promise<BuyOutcome> {
    const externalId = input.externalId ?? `md-${randomUUID()}`;
    const body: BuyRequest = {
      itemId: input.itemId,
      assetId: input.assetId,
      price: input.price,
      tradeUrl: await this.resolveRecipient(input.recipient),
      externalId,
      ...(input.tradeDurationSeconds !== undefined ? { tradeDurationSeconds: input.tradeDurationSeconds } : {}),
    };
    const refused = firstFailedCheck(buyRequestChecks, body);
    if (refused) return this.refuse(externalId, refused.code, refused.message, input.price);
    return this.send(externalId, input.price, input.itemId, () => this.session().client.buy(body));
  }

  async buyByName(input: BuyByNameInput): Promise<BuyOutcome> {
    const externalId = input.externalId ?? `md-${randomUUID()}`;
    const body: BuyByNameRequest = {
      market_hash_name: input.market_hash_name,
      tradeUrl: await this.resolveRecipient(input.recipient),
      maxPrice: input.maxPrice,
      externalId,
      ...(input.phase !== undefined ? { phase: input.phase } : {}),
      ...(input.tradeDurationSeconds !== undefined ? { tradeDurationSeconds: input.tradeDurationSeconds } : {}),
      ...(input.itemId !== undefined ? { itemId: input.itemId, assetId: input.assetId } : {}),
    };
    const refused = firstFailedCheck(buyByNameRequestChecks, body);
    if (refused) return this.refuse(externalId, refused.code, refused.message, input.maxPrice);
    return this.send(externalId, input.maxPrice, input.itemId ?? null, () => this.session().client.buyByName(body));
  }

  private async resolveRecipient(recipient: Recipient): Promise<string> {
    if ('tradeUrl' in recipient) return recipient.tradeUrl;
    const saved = await this.session().store.getRecipient(recipient.recipientId);
    if (!saved) throw new EngineError('not_found', `No saved recipient ${recipient.recipientId}`);
    return saved.tradeUrl;
  }

  private async refuse(externalId: string, code: string, message: string, price: number): Promise<BuyOutcome> {
    const session = this.session();
    const available = session.balance ? session.balance.total_available : null;
    return { ok: false, externalId, failure: describeBuyFailure({ code, message, retryable: false, available, price }) };
  }

  private async send(externalId: string, price: number, itemId: number | null, request: () => Promise<BuyResult>): Promise<BuyOutcome> {
    const session = this.session();
    const available = session.balance?.total_available ?? null;
    if (available !== null && price > available && itemId !== null) {
      return this.refuse(externalId, 'insufficient_balance', 'Insufficient merchant balance', price);
    }
    // One order id, one trade: an id we already hold a trade for is answered from the cache,
    // and one whose last attempt ended without an answer is looked up before anything is sent.
    const known = await session.store.findTradeByExternalId(externalId);
    if (known) return { ok: true, trade: known, externalId };
    if (this.unanswered.has(externalId)) {
      const found = await this.lookup(externalId, 1);
      if (found) {
        this.unanswered.delete(externalId);
        await session.upsertTrades([found], 'buy');
        return { ok: true, trade: found, externalId };
      }
    }
    let result: BuyResult;
    try {
      result = await request();
      this.unanswered.delete(externalId);
    } catch (error) {
      if (!(error instanceof ApiRequestError)) throw error;
      if (this.outcomeUnknown(error)) return this.recover(externalId, price, error);
      if (error.code === 'duplicate_external_id') {
        // Our own earlier attempt with this id went through: that trade is the answer.
        const found = await this.lookup(externalId, 1);
        if (found) return { ok: true, trade: found, externalId };
      }
      let failureAvailable = available;
      if (error.code === 'insufficient_balance') failureAvailable = (await session.refreshBalance())?.total_available ?? available;
      return {
        ok: false,
        externalId,
        failure: describeBuyFailure({ code: error.code, message: error.message, retryable: error.retryable, available: failureAvailable, price }),
      };
    }
    const trade = (await this.lookup(externalId, 1)) ?? synthesizePending(result, itemId);
    await session.upsertTrades([trade], 'buy');
    session.walletChanged();
    return { ok: true, trade, externalId };
  }

  /** No answer, or one that says nothing about the buy: the trade may or may not exist. */
  private outcomeUnknown(error: ApiRequestError): boolean {
    return error.kind === 'timeout' || error.kind === 'network' || (error.status !== null && error.status >= 500 && error.status !== 503);
  }

  private async recover(externalId: string, price: number, error: ApiRequestError): Promise<BuyOutcome> {
    const found = await this.lookup(externalId, LOOKUP_ATTEMPTS);
    if (!found) this.unanswered.add(externalId);
    if (found) {
      await this.session().upsertTrades([found], 'buy');
      this.session().walletChanged();
      return { ok: true, trade: found, externalId };
    }
    return {
      ok: false,
      externalId,
      failure: describeBuyFailure({
        code: 'outcome_unknown',
        message: `No answer from the marketplace (${error.message}), and no trade with order id ${externalId} exists yet.`,
        retryable: true,
        price,
      }),
    };
  }

  /** Finds our trade by externalId, retrying while the network recovers. */
  private async lookup(externalId: string, attempts: number): Promise<Trade | null> {
    for (let attempt = 0; attempt < attempts; attempt++) {
      try {
        const page = await this.session().client.tradeHistory({ externalId });
        const trade = page.trades.find((t) => t.externalId === externalId);
        return trade ?? null;
      } catch {
        if (attempt < attempts - 1) await sleep(LOOKUP_DELAY_MS * (attempt + 1));
      }
    }
    return null;
  }
}

/** When the full record cannot be fetched right away, the buy answer is enough to show a PENDING trade. */
function synthesizePending(result: BuyResult, itemId: number | null): Trade {
  const now = toUtcIso(Date.now());
  return {
    tradeId: result.tradeId,
    externalId: result.externalId,
    status: 'PENDING',
    price: result.price,
    itemId: itemId ?? 0,
    assetId: result.assetId,
    offerId: null,
    tradeUrl: result.tradeUrl,
    market_hash_name: result.market_hash_name,
    phase: result.phase,
    float: result.float,
    webhookStatus: null,
    failReason: null,
    errorCode: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    cancelledAt: null,
    endProtection: null,
    rollbackAt: null,
    stage: 1,
  };
}
