import { randomUUID } from 'node:crypto';
import type { BuyByNameRequest, BuyRequest, BuyResult, Trade } from '../../../shared/api';
import { buyByNameRequestChecks, buyRequestChecks, firstFailedCheck, redactTradeUrl } from '../../../shared/api';
import type {
  BuyByIdInput,
  BuyByNameInput,
  BuyOutcome,
  BuyRecipientInput,
  BuyWarning,
  RecipientStanding,
} from '../../../shared/ipc';
import { nameSearchText, resolveName } from '../../../shared/itemNames';
import { formatCents } from '../../../shared/money';
import { ApiRequestError } from '../api';
import { EngineError } from '../ipc/engineService';
import type { BuyingAccount } from './buyingAccount';
import { buyWarnings, recipientStanding } from './buyWarnings';
import { describeBuyFailure } from './failures';
import { type Order, type Placement, type Recipient, sameOrder, UnknownAttempts } from './orders';
import { RefusalRecords } from './refusalRecords';
import { notSentReason, outcomeUnknown, synthesizePending } from './requestOutcome';

export { UNKNOWN_ATTEMPT_WINDOW_MS, type Placement } from './orders';

/** After a lost answer, how often and how long to look for the trade by its externalId. */
const LOOKUP_ATTEMPTS = 4;
const LOOKUP_DELAY_MS = 750;

type Lookup = { checked: true; trade: Trade | null } | { checked: false; error: string; failure: unknown };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PlaceOptions {
  /**
   * Look the order id up in the cached trades before sending (default true). Auto-buy skips it for
   * speed: its order ids are never reused, and a server that knows one answers duplicate_external_id,
   * which is then looked up.
   */
  cacheLookup?: boolean;
  /**
   * Asked right before the request is written (also when it waited for a rate slot; see CallOptions.admit): a
   * reason ends the buy unsent (`not_sent`). Auto-buy checks its guard rails again here.
   */
  admit?: () => string | null;
}

/**
 * Buying, idempotent end to end: every attempt carries an externalId (the
 * user's or a fresh UUID). When the answer is lost (time-out, dropped
 * connection, 5xx) the trade is looked up by that externalId before anything
 * else, so one click is never two trades. A retry reuses the same externalId,
 * even when the caller does not send it again: attempts whose outcome is
 * unknown are remembered by what they bought.
 */
export class BuyService {
  /** Attempts whose outcome is unknown: a retry reuses their order id, and looks it up before it is sent. */
  private readonly unknownAttempts = new UnknownAttempts();
  private readonly records: RefusalRecords;
  private placing = 0;
  private manualBuys: (price: number) => (mayHaveSpent: boolean) => void = () => () => {};

  /** Buys (a person's or auto-buy's) started and not yet answered, looked up or refused. */
  get inFlight(): number {
    return this.placing;
  }

  /**
   * `onRefusalRecorded`: a refusal the failures board counts was stored (Operations → Failures reads again);
   * `onRecipientsChanged`: a partner_blocked answer was recorded (Operations → Recipients shows the block).
   */
  constructor(
    private readonly account: () => BuyingAccount,
    onRefusalRecorded: () => void = () => {},
    onRecipientsChanged: () => void = () => {},
  ) {
    this.records = new RefusalRecords(account, onRefusalRecorded, onRecipientsChanged);
  }

  /** Warnings from what we know locally; the server's answer is not guessed. */
  async check(input: BuyByIdInput): Promise<BuyWarning[]> {
    const account = this.account();
    const tradeUrl = await this.resolveRecipient(input.recipient);
    return buyWarnings(account, input, tradeUrl);
  }

  /** The chosen recipient against the per-recipient limits (the dialogs, before Review); needs no item. */
  async recipient(input: BuyRecipientInput): Promise<RecipientStanding> {
    const tradeUrl = await this.resolveRecipient(input.recipient);
    return recipientStanding(this.account().store, tradeUrl, Date.now());
  }

  /** Auto-buy's balance floor counts a person's buy (its price) from its start; told whether it may have spent. */
  watchManualBuys(watch: (price: number) => (mayHaveSpent: boolean) => void): void {
    this.manualBuys = watch;
  }

  buyById(input: BuyByIdInput): Promise<BuyOutcome> {
    return this.manual(this.manualBuys(input.price), () => this.placeById(input));
  }

  /** A person's buy by name: the name may be typed without ★ or ™ or in another case (see canonicalName). */
  buyByName(input: BuyByNameInput): Promise<BuyOutcome> {
    return this.manual(this.manualBuys(input.maxPrice), async () => {
      const market_hash_name = await this.canonicalName(input.market_hash_name);
      return this.placeByName({ ...input, market_hash_name });
    });
  }

  private async manual(done: (mayHaveSpent: boolean) => void, place: () => Promise<Placement>): Promise<BuyOutcome> {
    let placement: Placement | null = null;
    try {
      placement = await place();
      return placement.outcome;
    } finally {
      const { outcome, placed } = placement ?? { outcome: null, placed: false };
      done(placement === null || placed || (!outcome?.ok && outcome?.failure.code === 'outcome_unknown'));
    }
  }

  /** The cached listing's exact name that a typed name means (one match), else the name as typed. */
  private async canonicalName(typed: string): Promise<string> {
    try {
      const page = await this.account().store.queryCatalog({ search: nameSearchText(typed), limit: 200 });
      return (
        resolveName(
          typed,
          page.rows.map((row) => row.market_hash_name),
        ) ?? typed
      );
    } catch {
      return typed; // the server judges the name as typed
    }
  }

  /** buyById, also saying whether the trade is new to us (auto-buy's spend). */
  placeById(input: BuyByIdInput, options: PlaceOptions = {}): Promise<Placement> {
    return this.counted(this.sendById(input, options));
  }

  /** buyByName, also saying whether the trade is new to us. */
  placeByName(input: BuyByNameInput): Promise<Placement> {
    return this.counted(this.sendByName(input));
  }

  /** Counted in `inFlight` from its start to its answer (the count rises before the first await). */
  private async counted(placement: Promise<Placement>): Promise<Placement> {
    this.placing++;
    try {
      return await placement;
    } finally {
      this.placing--;
    }
  }

  private async sendById(input: BuyByIdInput, options: PlaceOptions): Promise<Placement> {
    // A trade URL given needs no look-up, and no await: an auto-buy's request goes out in the frame's task.
    const tradeUrl =
      'tradeUrl' in input.recipient ? input.recipient.tradeUrl : await this.resolveRecipient(input.recipient);
    const order: Order = { kind: 'id', itemId: input.itemId, assetId: input.assetId, price: input.price, tradeUrl };
    const externalId = input.externalId ?? this.unknownAttempts.retriedId(order) ?? `md-${randomUUID()}`;
    const body: BuyRequest = {
      itemId: input.itemId,
      assetId: input.assetId,
      price: input.price,
      tradeUrl,
      externalId,
      ...(input.tradeDurationSeconds !== undefined ? { tradeDurationSeconds: input.tradeDurationSeconds } : {}),
    };
    const refused = firstFailedCheck(buyRequestChecks, body);
    if (refused) return this.refuse(externalId, refused.code, refused.message, input.price);
    const admit = options.admit;
    return this.send(
      externalId,
      order,
      input.price,
      input.itemId,
      () => this.account().client.buy(body, admit ? { admit } : undefined),
      options,
    );
  }

  private async sendByName(input: BuyByNameInput): Promise<Placement> {
    const tradeUrl = await this.resolveRecipient(input.recipient);
    const order: Order = {
      kind: 'name',
      market_hash_name: input.market_hash_name,
      phase: input.itemId === undefined ? (input.phase ?? null) : null,
      maxPrice: input.maxPrice,
      itemId: input.itemId ?? null,
      assetId: input.assetId ?? null,
      tradeUrl,
    };
    const externalId = input.externalId ?? this.unknownAttempts.retriedId(order) ?? `md-${randomUUID()}`;
    const body: BuyByNameRequest = {
      market_hash_name: input.market_hash_name,
      tradeUrl,
      maxPrice: input.maxPrice,
      externalId,
      ...(input.phase !== undefined ? { phase: input.phase } : {}),
      ...(input.tradeDurationSeconds !== undefined ? { tradeDurationSeconds: input.tradeDurationSeconds } : {}),
      ...(input.itemId !== undefined ? { itemId: input.itemId, assetId: input.assetId } : {}),
    };
    const refused = firstFailedCheck(buyByNameRequestChecks, body);
    if (refused) return this.refuse(externalId, refused.code, refused.message, input.maxPrice);
    return this.send(externalId, order, input.maxPrice, input.itemId ?? null, () =>
      this.account().client.buyByName(body),
    );
  }

  private async resolveRecipient(recipient: Recipient): Promise<string> {
    if ('tradeUrl' in recipient) return recipient.tradeUrl;
    const saved = await this.account().store.getRecipient(recipient.recipientId);
    if (!saved) throw new EngineError('not_found', `No saved recipient ${recipient.recipientId}`);
    return saved.tradeUrl;
  }

  private refuse(
    externalId: string,
    code: string,
    message: string,
    price: number,
    retryable = false,
    order?: Order,
  ): Placement {
    const account = this.account();
    if (order) void this.records.recordRefusal(externalId, order, code, message, price);
    const available = account.balance ? account.balance.total_available : null;
    return {
      outcome: { ok: false, externalId, failure: describeBuyFailure({ code, message, retryable, available, price }) },
      placed: false,
    };
  }

  private async send(
    externalId: string,
    order: Order,
    price: number,
    itemId: number | null,
    request: () => Promise<BuyResult>,
    options: PlaceOptions = {},
  ): Promise<Placement> {
    const account = this.account();
    const available = account.balance?.total_available ?? null;
    if (available !== null && price > available && itemId !== null) {
      return this.refuse(externalId, 'insufficient_balance', 'Insufficient merchant balance', price, false, order);
    }
    const ours = this.unknownAttempts.has(externalId);
    // One order id, one trade: an id we already hold a trade for is answered from the cache when it is
    // the same order (or our own unanswered attempt), and refused as a duplicate when it is not.
    const known = options.cacheLookup === false ? null : await account.store.findTradeByExternalId(externalId);
    if (known) return this.answerForExisting(externalId, order, known, ours, price);
    // The server asked us to wait (429 / 503): fail fast and say so, rather than wait silently in the limiter.
    const backoffUntil = account.limiter.status().backoffUntil;
    if (backoffUntil) {
      if (account.connection.state === 'maintenance') {
        return this.refuse(
          externalId,
          'maintenance',
          `The marketplace is under maintenance (it asked the app to wait until ${backoffUntil}); nothing was sent. Order id ${externalId}.`,
          price,
          true,
          order,
        );
      }
      return this.refuse(
        externalId,
        'rate_limited',
        `The marketplace asked the app to wait until ${backoffUntil} (rate limit); nothing was sent. Order id ${externalId}.`,
        price,
        true,
        order,
      );
    }
    if (ours) {
      // The last attempt with this id got no answer: did it go through?
      const found = await this.lookup(externalId, 1);
      if (found.checked && found.trade) return this.answerForExisting(externalId, order, found.trade, true, price);
    }
    let result: BuyResult;
    try {
      result = await request();
    } catch (error) {
      if (!(error instanceof ApiRequestError)) throw error;
      const unsent = notSentReason(error);
      if (unsent !== null)
        return this.notSent(externalId, order, price, `The marketplace could not be reached (${unsent})`, ours);
      if (error.code === 'not_sent') return this.notSent(externalId, order, price, error.message, ours);
      if (outcomeUnknown(error)) return this.recover(externalId, order, price, error.message);
      return this.refused(externalId, order, price, error, ours);
    }
    this.unknownAttempts.settled(externalId);
    const found = await this.lookup(externalId, 1);
    const trade = (found.checked ? found.trade : null) ?? synthesizePending(result, itemId);
    await this.remember(trade);
    account.walletChanged(trade.price);
    return { outcome: { ok: true, trade, externalId }, placed: true };
  }

  /** The server refused. For our own unanswered id, a refusal may be caused by the earlier attempt: check first. */
  private async refused(
    externalId: string,
    order: Order,
    price: number,
    error: ApiRequestError,
    ours: boolean,
  ): Promise<Placement> {
    const account = this.account();
    if (ours || error.code === 'duplicate_external_id') {
      // item_unavailable (the earlier attempt bought it) or duplicate_external_id (it holds the id): the
      // trade is found by the id, or the refusal is genuine.
      const found = await this.lookup(externalId, ours ? LOOKUP_ATTEMPTS : 1);
      if (found.checked && found.trade) return this.answerForExisting(externalId, order, found.trade, ours, price);
      if (!found.checked && ours)
        return this.unknown(
          externalId,
          order,
          price,
          `${error.message}; the order could not be checked (${found.error})`,
        );
      if (error.code === 'duplicate_external_id') {
        return this.refuse(
          externalId,
          'duplicate_external_id',
          `Order id ${externalId} is already used by another trade of this merchant.`,
          price,
        );
      }
    }
    this.unknownAttempts.settled(externalId);
    const recorded = this.records.recordRefusal(externalId, order, error.code, error.message, price, true);
    // "Buy the next one" starts from a refused buy by name's record: stored before the answer that offers it.
    if (order.kind === 'name') await recorded;
    let failureAvailable = account.balance?.total_available ?? null;
    if (error.code === 'insufficient_balance')
      failureAvailable = (await account.refreshBalance())?.total_available ?? failureAvailable;
    const failure = describeBuyFailure({
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      available: failureAvailable,
      price,
      byName: order.kind === 'name',
      ...(order.kind === 'name' ? { phase: order.phase, targeted: order.itemId !== null } : {}),
    });
    if (failure.blockedUntil) await this.records.recordBlock(order.tradeUrl, failure.blockedUntil);
    return {
      outcome: { ok: false, externalId, failure },
      placed: false,
    };
  }

  /**
   * A trade already holds this order id. It answers the buy when it is this order: bought by our own
   * unanswered attempt (new to us), or the same item, price and recipient (a repeat). Anything else is
   * another order that used the id: a duplicate_external_id the user must see.
   */
  private async answerForExisting(
    externalId: string,
    order: Order,
    trade: Trade,
    ours: boolean,
    price: number,
  ): Promise<Placement> {
    if (sameOrder(order, trade)) {
      if (ours) {
        this.unknownAttempts.settled(externalId);
        await this.remember(trade);
        this.account().walletChanged(trade.price);
      }
      return { outcome: { ok: true, trade, externalId }, placed: ours };
    }
    return this.refuse(
      externalId,
      'duplicate_external_id',
      `Order id ${externalId} is already used by trade ${trade.tradeId} (${trade.market_hash_name}, ${formatCents(trade.price)}, ${trade.status}), ` +
        `not by this buy of ${order.kind === 'id' ? `item ${order.itemId} at ${formatCents(order.price)}` : `${order.market_hash_name} at up to ${formatCents(order.maxPrice)}`}` +
        `${trade.tradeUrl === order.tradeUrl ? '' : ` to ${redactTradeUrl(order.tradeUrl)}`}.`,
      price,
    );
  }

  /**
   * The request never left (no connection was made, or it was withdrawn before it was written), so this attempt
   * cannot have bought anything. An earlier unanswered attempt with the same order id still may have: that stays
   * an unknown outcome.
   */
  private notSent(externalId: string, order: Order, price: number, reason: string, ours: boolean): Placement {
    if (ours) {
      return this.unknown(
        externalId,
        order,
        price,
        `${reason}; nothing was sent this time, and the earlier attempt with order id ${externalId} is still unconfirmed.`,
      );
    }
    return this.refuse(externalId, 'not_sent', `${reason}; nothing was sent. Order id ${externalId}.`, price, true);
  }

  private async recover(externalId: string, order: Order, price: number, reason: string): Promise<Placement> {
    this.unknownAttempts.remember(externalId, order);
    const found = await this.lookup(externalId, LOOKUP_ATTEMPTS);
    if (found.checked && found.trade) return this.answerForExisting(externalId, order, found.trade, true, price);
    // The API is not answering: the account catches up later (backing off), and an unknown auto-buy is looked up then.
    if (!found.checked) this.account().reportFailure('a buy whose answer was lost, and its look-ups', found.failure);
    return this.unknown(
      externalId,
      order,
      price,
      found.checked
        ? `No answer from the marketplace (${reason}), and no trade with order id ${externalId} exists yet.`
        : `No answer from the marketplace (${reason}), and the order id ${externalId} could not be looked up (${found.error}).`,
    );
  }

  private unknown(externalId: string, order: Order, price: number, message: string): Placement {
    this.unknownAttempts.remember(externalId, order);
    return {
      outcome: {
        ok: false,
        externalId,
        failure: describeBuyFailure({ code: 'outcome_unknown', message, retryable: true, price }),
      },
      placed: false,
    };
  }

  private async remember(trade: Trade): Promise<void> {
    try {
      await this.account().upsertTrades([trade], 'buy');
    } catch {
      // The trade exists on the server whatever the cache says; the next reconcile stores it.
    }
  }

  /** Finds our trade by externalId, retrying while the network recovers; says whether the server could be asked. */
  private async lookup(externalId: string, attempts: number): Promise<Lookup> {
    let last: unknown = new Error('no attempt');
    for (let attempt = 0; attempt < attempts; attempt++) {
      try {
        const page = await this.account().client.tradeHistory({ externalId });
        return { checked: true, trade: page.trades.find((t) => t.externalId === externalId) ?? null };
      } catch (error) {
        last = error;
        if (attempt < attempts - 1) await sleep(LOOKUP_DELAY_MS * (attempt + 1));
      }
    }
    return { checked: false, error: last instanceof Error ? last.message : String(last), failure: last };
  }
}
