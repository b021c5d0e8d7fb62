/**
 * "Buy the next one": after a trade ended 505 (sold elsewhere), or a buy by name was refused item_unavailable or
 * price_too_high, buy the cheapest listing of the same name (and phase) for the same recipient, at most at the
 * original's maximum, under the next order id of its chain (`ORDER#2`, `ORDER#3`…).
 *
 * The original's maximum: a trade's price (for a buy by id the price the user confirmed; for a buy by name the price
 * it paid, at or under its maxPrice, which the trade does not keep), or a refused buy by name's maxPrice. Never twice
 * for one order: one attempt at a time per chain, a new one only after the latest ended 505 or was refused, and each
 * attempt's order id makes the marketplace answer a repeat with the same trade (BuyService).
 */
import { isActiveStatus, MAX_EXTERNAL_ID_LENGTH, TRADE_ERROR_CODES, type Trade } from '../../../shared/api';
import type { BuyOutcome, NextBuyPlan, OrderChain, OrderChainAttempt } from '../../../shared/ipc';
import type { BuyNextInput, OrderChainInput } from '../../../shared/ipc/contract';
import { nameKey, nameSearchText } from '../../../shared/itemNames';
import { formatCents } from '../../../shared/money';
import { chainNumber, chainOrderId, chainRoot } from '../../../shared/orderChain';
import type { BuyService } from '../buy/buyService';
import { describeBuyFailure } from '../buy/failures';
import { EngineError } from '../ipc/engineService';
import type { LocalStore } from '../store';
import type { ChainRefusal } from '../store/worker/orderLookup';

/** The refusals of a buy by name after which the next listing is worth buying. */
const NEXT_AFTER_REFUSAL = new Set(['item_unavailable', 'price_too_high']);

/** What the next attempt copies from the original. */
interface Original {
  market_hash_name: string;
  phase: string | null;
  maxPrice: number;
  tradeUrl: string;
}

export class NextBuyService {
  /** The chains with an attempt in flight, by root: a second request gets the same answer, nothing is sent twice. */
  private readonly inFlight = new Map<string, Promise<BuyOutcome>>();

  constructor(
    private readonly store: () => LocalStore,
    private readonly buying: BuyService,
  ) {}

  /** An order's chain (from one of its trades, or a refused buy by name's order id) and its next buy, if any. */
  async chain(from: OrderChainInput): Promise<OrderChain> {
    const store = this.store();
    let externalId: string;
    if ('tradeId' in from) {
      const trade = (await store.getTrade(from.tradeId))?.trade;
      if (!trade) throw new EngineError('not_found', `No trade ${from.tradeId} in the local history.`);
      if (trade.externalId === null) {
        return {
          root: null,
          attempts: [],
          next: null,
          unavailable: 'This trade has no order id to number the next attempt after: buy it by name instead.',
        };
      }
      externalId = trade.externalId;
    } else externalId = from.refusedExternalId;
    const root = chainRoot(externalId);
    const { attempts, original } = await this.attempts(root);
    if (!original) throw new EngineError('not_found', `No trade or refused buy with order id ${externalId} is known.`);
    const { plan, unavailable } = await this.plan(root, attempts, original);
    return { root, attempts, next: plan, unavailable };
  }

  /** Buys the next one, as reviewed: `externalId` is the order id shown, `maxPrice` at most the original's. */
  buyNext(input: BuyNextInput): Promise<BuyOutcome> {
    const root = chainRoot(input.externalId);
    const running = this.inFlight.get(root);
    if (running) return running;
    const attempt = this.attempt(root, input).finally(() => this.inFlight.delete(root));
    this.inFlight.set(root, attempt);
    return attempt;
  }

  private async attempt(root: string, input: BuyNextInput): Promise<BuyOutcome> {
    const chain = await this.chain(input.from);
    if (chain.root !== root)
      throw new EngineError('invalid_input', `Order id ${input.externalId} is not an attempt of this order.`);
    const latest = chain.attempts.at(-1);
    // A repeat of an attempt that made a trade (a second click, a stale dialog): that trade is the answer.
    if (latest?.trade && latest.externalId === input.externalId && !endedForNext(latest))
      return { ok: true, trade: latest.trade, externalId: input.externalId };
    const next = chain.next;
    if (!next) throw new EngineError('invalid_input', chain.unavailable ?? 'There is no next buy for this order.');
    if (next.externalId !== input.externalId) {
      throw new EngineError(
        'invalid_input',
        `The next attempt of this order is ${next.externalId}, not ${input.externalId}: review it again.`,
      );
    }
    if (input.maxPrice > next.maxPrice) {
      throw new EngineError(
        'invalid_input',
        `${formatCents(input.maxPrice)} is above the original maximum of ${formatCents(next.maxPrice)}: the next one is never bought for more.`,
      );
    }
    const cheapest = await this.cheapest(next, input.maxPrice);
    if (!cheapest) {
      return {
        ok: false,
        externalId: input.externalId,
        failure: describeBuyFailure({
          code: 'no_listing_under_max',
          message: `No listing of ${next.market_hash_name}${next.phase ? ` (${next.phase})` : ''} at or under ${formatCents(input.maxPrice)} in the catalog: nothing was bought.`,
          retryable: false,
          price: input.maxPrice,
        }),
      };
    }
    return this.buying.buyByName({
      market_hash_name: next.market_hash_name,
      ...(next.phase !== null ? { phase: next.phase } : {}),
      maxPrice: input.maxPrice,
      recipient: { tradeUrl: next.tradeUrl },
      externalId: input.externalId,
      ...(input.tradeDurationSeconds !== undefined ? { tradeDurationSeconds: input.tradeDurationSeconds } : {}),
    });
  }

  /**
   * The chain's trades and stored refusals by attempt number (a trade wins over a refusal of the same id), and what
   * the next attempt copies: the original order's, else (its record gone) the earliest attempt known.
   */
  private async attempts(root: string): Promise<{ attempts: OrderChainAttempt[]; original: Original | null }> {
    const store = this.store();
    const [trades, refusals] = await Promise.all([store.orderChainTrades(root), store.orderChainRefusals(root)]);
    const byId = new Map<string, { attempt: OrderChainAttempt; original: Original }>();
    // The ranges also hold ids like `ORDER#abc`: only the root and its numbered attempts are the chain.
    for (const refusal of refusals) {
      const externalId = refusal.externalId;
      if (chainRoot(externalId) !== root) continue;
      const { market_hash_name, phase, maxPrice, tradeUrl } = refusal;
      byId.set(externalId, {
        attempt: { externalId, n: chainNumber(externalId), trade: null, refusal: refusalOf(refusal) },
        original: { market_hash_name, phase, maxPrice, tradeUrl },
      });
    }
    for (const trade of trades) {
      const externalId = trade.externalId as string;
      if (chainRoot(externalId) !== root) continue;
      const { market_hash_name, phase, price, tradeUrl } = trade;
      byId.set(externalId, {
        attempt: { externalId, n: chainNumber(externalId), trade, refusal: null },
        original: { market_hash_name, phase, maxPrice: price, tradeUrl },
      });
    }
    const known = [...byId.values()].sort((a, b) => a.attempt.n - b.attempt.n);
    return { attempts: known.map((k) => k.attempt), original: known[0]?.original ?? null };
  }

  private async plan(
    root: string,
    attempts: OrderChainAttempt[],
    original: Original,
  ): Promise<{ plan: NextBuyPlan; unavailable: null } | { plan: null; unavailable: string }> {
    const latest = attempts.at(-1) as OrderChainAttempt;
    if (!endedForNext(latest)) return { plan: null, unavailable: whyNot(latest) };
    const n = latest.n + 1;
    const problem = chainOrderIdProblem(root, n);
    if (problem) return { plan: null, unavailable: problem };
    const plan: NextBuyPlan = { root, externalId: chainOrderId(root, n), ...original, cheapest: null };
    const cheapest = await this.cheapest(plan, plan.maxPrice);
    return {
      plan: { ...plan, cheapest: cheapest ? { itemId: cheapest.itemId, price: cheapest.price } : null },
      unavailable: null,
    };
  }

  /** The cheapest cached listing of exactly the name (and phase) at or under `max`. */
  private async cheapest(order: Pick<NextBuyPlan, 'market_hash_name' | 'phase'>, max: number) {
    const page = await this.store().queryCatalog({
      search: nameSearchText(order.market_hash_name),
      phase: order.phase,
      sort: 'price',
      direction: 'asc',
      offset: 0,
      limit: 400,
    });
    const key = nameKey(order.market_hash_name);
    return (
      page.rows.find(
        (row) =>
          nameKey(row.market_hash_name) === key &&
          (order.phase === null || row.phase === order.phase) &&
          row.price <= max,
      ) ?? null
    );
  }
}

function refusalOf(refusal: ChainRefusal): OrderChainAttempt['refusal'] {
  return { code: refusal.code, message: refusal.message, at: refusal.at };
}

/** The attempt ended so that the next listing is worth buying: sold elsewhere, or a buy by name found none to buy. */
function endedForNext(attempt: OrderChainAttempt): boolean {
  if (attempt.trade)
    return attempt.trade.status === 'CANCELLED' && attempt.trade.errorCode === TRADE_ERROR_CODES.itemsInvalid;
  return attempt.refusal !== null && NEXT_AFTER_REFUSAL.has(attempt.refusal.code);
}

function whyNot(latest: OrderChainAttempt): string {
  const trade: Trade | null = latest.trade;
  if (!trade)
    return `${latest.externalId} was refused (${latest.refusal?.code ?? 'unknown'}): only a buy by name refused item_unavailable or price_too_high is bought again.`;
  if (isActiveStatus(trade.status))
    return `${latest.externalId} is ${trade.status}: this order is being bought already.`;
  if (trade.status === 'COMPLETED') return `${latest.externalId} was delivered: this order is done.`;
  return `${latest.externalId} ended ${trade.status}${trade.errorCode !== null ? ` (${trade.errorCode})` : ''}: only a trade sold elsewhere (505) is bought again.`;
}

/** Why attempt `n` of `root` cannot have an order id (the marketplace takes at most 128 characters), or null. */
function chainOrderIdProblem(root: string, n: number): string | null {
  const id = chainOrderId(root, n);
  return id.length > MAX_EXTERNAL_ID_LENGTH
    ? `The order id ${root.length > 24 ? `${root.slice(0, 24)}…` : root} is ${root.length} characters: with "#${n}" it would pass the ${MAX_EXTERNAL_ID_LENGTH} the marketplace allows. Buy it by name with a new order id instead.`
    : null;
}
