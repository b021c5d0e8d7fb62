import type { Item, Trade } from '../../../shared/api';
import type { AlertRule, AppSettings, AutoBuyPreview, AutoBuySkipLine, AutoBuyStatus } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { toUtcIso } from '../../../shared/time';
import { Throttler } from '../async';
import type { BuyService } from '../buy/buyService';
import type { BuyingAccount } from '../buy/buyingAccount';
import type { EventBatcher } from '../events/batcher';
import { EngineError } from '../ipc/engineService';
import type { ParsedAlertRuleInput } from '../store/types';
import { armAutoBuy, autoBuyRuleProblem, previewMatches, ruleOfInput } from './arming';
import { AutoBuyGuard, type Reservation } from './guard';
import { catalogQueryOfRule, compileRule, type CompiledRule, filtersOfRule, utcDayStart } from './rules';
import { foldSkipLines } from './skips';

/** What a firing and its buy need of a match (an Item or a catalog row). */
type Candidate = Pick<Item, 'itemId' | 'assetId' | 'market_hash_name' | 'phase' | 'price'>;

/**
 * What became of a sent auto-buy, for its record and its firing; `heldBack`: the guard rails' reason not to
 * send it after all (stop-all while it waited for a rate slot), counted as a skip.
 */
interface AutoBuyOutcome {
  state: 'bought' | 'unknown' | 'not_bought';
  tradeId: string | null;
  error: string | null;
  heldBack: string | null;
}

/** What auto-buy does with one match, decided in the match's own task. */
type AutoBuyDecision =
  | { kind: 'buy'; outcome: Promise<AutoBuyOutcome>; reservation: Reservation }
  | { kind: 'dry-run' }
  | { kind: 'skip'; reason: string };

const ONLY_NEW_REASON = 'listed before the rule was armed (only new listings)';

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

/** Rows of the catalog a rule is checked against after each sync. */
const SYNC_MATCH_LIMIT = 100;

/**
 * Watchlist rules: evaluated on item_upserted, price_changed and after each
 * catalog sync. A firing is stored once per (rule, item, price) and raised as
 * a notification. Auto-buy (off by default) acts only on a firing that is
 * new, so a replayed frame or a restart never buys again: the stored firings'
 * keys are held in memory (loaded with the rules), so the buy goes out before
 * the firing's database round trip (a race with other buyers). Its order id
 * is derived from (rule, item, price) and written to the store's journal
 * before the request leaves, so neither a lost answer nor a kill can make the
 * app forget it: it counts against the caps and the budget until its order id
 * is known not to have bought (see resolveUnknown); its outcome goes to the
 * table auto_buys. The guard rails (guard.ts) decide each buy, and again right
 * before its request is written; a skip is stored folded into its rule's line
 * for the day, a dry run as "would buy".
 */
export class AlertService {
  private rules: AlertRule[] = [];
  /** The enabled rules, each as one test of an item. */
  private live: CompiledRule[] = [];
  /** `ruleId:itemId:price` of every firing stored (loaded with the rules, added to as they fire). */
  private fired = new Set<string>();
  /** Saved recipients' trade URLs, so an auto-buy sends without a database round trip (reloaded with the rules). */
  private recipients = new Map<string, string>();
  /** `ruleId:itemId` of listings on sale when a rule was armed with "only new listings". */
  private baseline = new Set<string>();
  /** Rules whose first skip today was announced (one notification per rule and day). */
  private announcedSkips = new Set<string>();
  private readonly guard: AutoBuyGuard;
  /** Names of rules seen with spend or skips (kept for deleted rules' lines in the status). */
  private ruleNames = new Map<string, string>();
  /** The look-ups of unknown outcomes: one run at a time; asked meanwhile, one more run after it. */
  private readonly resolver = new Throttler();
  /** Whether the next run asks the server too; a run for trades just stored reads the cache alone. */
  private serverAsked = false;

  constructor(
    private readonly account: () => BuyingAccount | null,
    private readonly buying: BuyService,
    private readonly events: EventBatcher,
    private readonly settings: () => AppSettings,
    private readonly log: (line: string) => void,
  ) {
    this.guard = new AutoBuyGuard(
      settings,
      () => this.account()?.balance ?? null,
      () => {
        const account = this.account();
        if (!account) return Promise.reject(new Error('no account account'));
        return account.client.getBalance();
      },
      log,
    );
    buying.watchManualBuys((price) => this.guard.holdManual(price));
  }

  async reload(): Promise<AlertRule[]> {
    const account = this.account();
    if (!account) {
      this.rules = [];
      this.live = [];
      this.guard.reset();
      return [];
    }
    this.rules = await account.store.listAlertRules();
    this.live = this.rules.filter((rule) => rule.enabled).map(compileRule);
    this.fired = new Set(await account.store.firingKeys());
    this.recipients = new Map(
      (await account.store.listRecipients()).map((recipient) => [recipient.id, recipient.tradeUrl]),
    );
    this.baseline = new Set(await account.store.autoBuyBaseline());
    for (const rule of this.rules) this.ruleNames.set(rule.id, rule.name);
    const day = utcDayStart(Date.now());
    const rows = await account.store.autoBuyDay(toUtcIso(day));
    if (!this.guard.isOpen) {
      // Once per account, before its first auto-buy: from then on the guard keeps the count itself.
      const unresolved = await account.store.unresolvedAutoBuys();
      this.guard.open({
        day,
        boughtToday: new Map(rows.map((row) => [row.ruleId, row.spent])),
        boughtTotal: new Map(this.rules.map((rule) => [rule.id, rule.autoBuy.spent])),
        unresolved: unresolved.map(({ externalId, ruleId, itemId, price, at }) => ({
          externalId,
          ruleId,
          itemId,
          price,
          at,
        })),
      });
    }
    this.guard.loadSkips(day, new Map(rows.map((row) => [row.ruleId, row.skipped])));
    // Auto-buys waiting for a rate slot whose rule no longer buys them are dropped now.
    account.limiter.review();
    this.publishStatus();
    return this.rules;
  }

  /** Settings changed: stop-all, pause, budget and floor hold the next match, and auto-buys waiting for a rate slot now. */
  settingsChanged(): void {
    this.account()?.limiter.review();
    this.publishStatus();
  }

  /** An account switch: nothing in flight belongs to the next account. */
  accountChanged(): void {
    this.guard.reset();
    this.announcedSkips.clear();
  }

  // ---- rules: save, re-arm, preview (the engine's handlers)

  /**
   * Saves a rule. Auto-buy needs a maximum price per item (refused otherwise). Saving or enabling an
   * auto-buy rule arms it: by default ("only new listings") nothing on sale now is bought.
   */
  async saveRule(input: ParsedAlertRuleInput): Promise<AlertRule> {
    const account = this.requireAccount();
    const problem = autoBuyRuleProblem(input);
    if (problem) throw new EngineError('invalid_input', problem);
    const rule = await account.store.saveAlertRule(input);
    if (rule.enabled) await armAutoBuy(account.store, rule, input.existingListings);
    await this.reload();
    void this.evaluateCatalog().catch((error: unknown) => this.log(`alerts: ${String(error)}`));
    return rule;
  }

  /** Re-arming forgets the rule's firings so the same items can fire again; auto-buy buys only new listings unless 'buy'. */
  async rearm(id: string, existing: 'skip' | 'buy'): Promise<AlertRule | null> {
    const store = this.requireAccount().store;
    await store.deleteFiringsForRule(id);
    const rule = await store.setAlertRuleEnabled(id, true);
    if (rule) await armAutoBuy(store, rule, existing);
    await this.reload();
    this.events.push({ unacknowledgedFirings: await store.unacknowledgedFiringCount() });
    void this.evaluateCatalog().catch((error: unknown) => this.log(`alerts: ${String(error)}`));
    return rule;
  }

  async preview(input: ParsedAlertRuleInput): Promise<AutoBuyPreview> {
    return previewMatches(this.requireAccount().store, ruleOfInput(input));
  }

  async skips(): Promise<AutoBuySkipLine[]> {
    const account = this.account();
    return account ? foldSkipLines(await account.store.autoBuySkips()) : [];
  }

  /** Auto-buy today: spend per rule and in total, skips, budget, floor and stop-all. */
  status(): AutoBuyStatus {
    const settings = this.settings();
    const today = this.guard.today;
    const rules: AutoBuyStatus['rules'] = [];
    const listed = new Set<string>();
    for (const rule of this.rules) {
      const spent = today.spentByRule.get(rule.id) ?? 0;
      const skipped = today.skippedByRule.get(rule.id) ?? 0;
      if (!rule.autoBuy.enabled && spent === 0 && skipped === 0) continue;
      listed.add(rule.id);
      rules.push({
        ruleId: rule.id,
        ruleName: rule.name,
        spentToday: spent,
        skippedToday: skipped,
        dryRun: rule.autoBuy.dryRun === true,
        enabled: rule.enabled && rule.autoBuy.enabled,
      });
    }
    for (const [ruleId, spent] of today.spentByRule) {
      if (listed.has(ruleId) || spent === 0) continue;
      rules.push({
        ruleId,
        ruleName: this.ruleNames.get(ruleId) ?? 'a deleted rule',
        spentToday: spent,
        skippedToday: today.skippedByRule.get(ruleId) ?? 0,
        dryRun: false,
        enabled: false,
      });
    }
    return {
      stopped: settings.autoBuyStopped === true,
      day: toUtcIso(today.day).slice(0, 10),
      spentToday: today.spentTotal,
      dailyBudget: settings.autoBuyDailyBudget ?? null,
      balanceFloor: settings.autoBuyBalanceFloor ?? 0,
      rules,
    };
  }

  publishStatus(): void {
    this.events.push({ autoBuy: this.status() });
  }

  private requireAccount(): BuyingAccount {
    const account = this.account();
    if (!account)
      throw new EngineError('unavailable', 'No account connected: configure one in Settings or use the demo sandbox');
    return account;
  }

  /**
   * The exception to evaluating after the write, kept for latency: the items of an item_upserted frame, before they
   * are written, for auto-buy rules only (a buyer's race is won or lost in milliseconds; the write and a read would
   * cost tens). Every rule, auto-buy's included, is evaluated again once the write is done (evaluateWritten), and a
   * firing is stored once per rule, item and price, so nothing fires or buys twice.
   */
  async evaluateFrame(items: readonly Item[]): Promise<void> {
    const autoBuyRules = this.live.filter((compiled) => compiled.rule.autoBuy.enabled && !compiled.needsStanding);
    if (autoBuyRules.length === 0) return;
    for (const item of items) {
      for (const compiled of autoBuyRules) if (compiled.test(item, null)) await this.fire(compiled.rule, item, true);
    }
  }

  /**
   * The one evaluation path: the items the writer reports as written (new, changed or repriced), read from the cache.
   * A rule is decided from the item alone; one that filters on the market standing (which only the store knows) is
   * asked of the store.
   */
  async evaluateWritten(itemIds: readonly number[]): Promise<void> {
    if (this.live.length === 0 || itemIds.length === 0) return;
    const account = this.account();
    if (!account) return;
    const items = await account.store.findItemsByIds([...itemIds]);
    const byId = new Map(items.map((item) => [item.itemId, item]));
    for (const compiled of this.live) {
      const matched = compiled.needsStanding
        ? await account.store.matchingItemIds(filtersOfRule(compiled.rule), [...itemIds])
        : items.filter((item) => compiled.test(item, null)).map((item) => item.itemId);
      for (const itemId of matched) {
        const item = byId.get(itemId);
        if (item) await this.fire(compiled.rule, item, true);
      }
    }
  }

  /** After a sync: each rule's cheapest matches in the whole cached catalog. */
  async evaluateCatalog(): Promise<void> {
    const account = this.account();
    if (!account) return;
    for (const rule of this.rules.filter((r) => r.enabled)) {
      const page = await account.store.queryCatalog(
        catalogQueryOfRule(rule, { anyPrice: false, offset: 0, limit: SYNC_MATCH_LIMIT }),
      );
      let fired = 0;
      for (const row of page.rows) if (await this.fire(rule, row, false)) fired++;
      // Listings already on sale when a rule is saved (or after a sync) are stored as firings but
      // announced once per rule, not once per listing.
      const settings = this.settings();
      if (fired > 0 && settings.notifyAlerts && !settings.alertsPaused) {
        this.events.push({
          notifications: [
            {
              id: `alert-summary:${rule.id}:${Date.now()}`,
              kind: 'alert',
              title: `Alert: ${rule.name}`,
              body: `${fired} listing${fired === 1 ? '' : 's'} on sale match${fired === 1 ? 'es' : ''} this rule`,
              target: null,
              at: toUtcIso(Date.now()),
            },
          ],
        });
      }
    }
  }

  private async fire(rule: AlertRule, item: Candidate, notifyEach: boolean): Promise<boolean> {
    const account = this.account();
    if (!account) return false;
    const key = `${rule.id}:${item.itemId}:${item.price}`;
    if (this.fired.has(key)) return false;
    this.fired.add(key);
    const settings = this.settings();
    // Sent before the firing is stored: a buyer's race is won or lost in milliseconds.
    const decision = this.autoBuy(account, rule, item, settings.alertsPaused);
    const buy = decision?.kind === 'buy' ? decision : null;
    // The request is written on the next tick (when node:http hands it its socket): store the firing after it.
    if (buy) await nextTick();
    const firing = await account.store.recordFiring({
      ruleId: rule.id,
      ruleName: rule.name,
      itemId: item.itemId,
      market_hash_name: item.market_hash_name,
      price: item.price,
      ...(decision?.kind === 'skip' ? { autoBuySkipped: decision.reason } : {}),
      ...(decision?.kind === 'dry-run' ? { autoBuyDryRun: true } : {}),
    });
    // Stored meanwhile by another path: no notification (an auto-buy already sent is idempotent by its order id).
    if (!firing) {
      if (buy) await this.recordOutcome(account, rule, null, buy.outcome, buy.reservation);
      return false;
    }
    if (decision?.kind === 'skip') {
      this.skipped(rule, decision.reason, firing.firedAt);
      return true;
    }
    const notify = notifyEach && settings.notifyAlerts && !settings.alertsPaused;
    const title = decision?.kind === 'dry-run' ? `Dry run: ${rule.name}` : `Alert: ${rule.name}`;
    const price =
      decision?.kind === 'dry-run' ? `would buy at ${formatCents(item.price)}` : `at ${formatCents(item.price)}`;
    this.events.push({
      firings: [firing],
      unacknowledgedFirings: await account.store.unacknowledgedFiringCount(),
      ...(notify
        ? {
            notifications: [
              {
                id: `alert:${firing.id}`,
                kind: 'alert' as const,
                title,
                body: `${item.market_hash_name}${item.phase ? ` · ${item.phase}` : ''} ${price}`,
                target: { type: 'item' as const, itemId: item.itemId },
                at: firing.firedAt,
              },
            ],
          }
        : {}),
    });
    // The next match is decided without waiting for this answer (the guard has counted this buy already).
    if (buy) void this.recordOutcome(account, rule, firing.id, buy.outcome, buy.reservation);
    return true;
  }

  /**
   * Stores what became of a buy (its record, its rule's spend and its firing, in one transaction), then settles
   * it in the guard. Should the store fail, its journal line stays: in flight at the next start, and looked up.
   */
  private async recordOutcome(
    account: BuyingAccount,
    rule: AlertRule,
    firingId: string | null,
    outcome: Promise<AutoBuyOutcome>,
    reservation: Reservation,
  ): Promise<void> {
    const { state, tradeId, error, heldBack } = await outcome;
    const { token: _token, day: _day, ...record } = reservation;
    /** What the guard keeps of it: an order id bought earlier is not counted twice. */
    let kept: 'bought' | 'unknown' | 'not_bought' = state;
    try {
      const settled = await account.store.settleAutoBuy({
        ...record,
        state,
        tradeId,
        error,
        ...(heldBack ? { skipped: heldBack } : {}),
      });
      let firing = settled.firing;
      if (settled.earlier) {
        // The order id was bought by an earlier attempt (a re-armed rule's same listing): not counted again.
        kept = 'not_bought';
        const message = `Already bought earlier (trade ${settled.earlier.tradeId ?? 'not known'}); not counted again`;
        if (firingId !== null)
          firing = await account.store.setFiringAutoBuy(firingId, { tradeId: null, error: message });
      }
      if (firing)
        this.events.push({
          firings: [firing],
          ...(heldBack ? { unacknowledgedFirings: await account.store.unacknowledgedFiringCount() } : {}),
        });
    } catch (failure) {
      this.log(`auto-buy: could not record an outcome: ${(failure as Error).message}`);
    }
    this.guard.settle(reservation, kept);
    // A look-up run under way took its list before this outcome was unknown: one more run after it looks this one up
    // too. Idle, the server is not asked (the buy's own look-ups just failed; the next reconcile asks), but the cache
    // is: the feed may have brought the trade already.
    if (kept === 'unknown') void (this.resolver.busy ? this.resolveUnknown() : this.resolveFromCache());
    if (heldBack) this.skipped(rule, heldBack, toUtcIso(Date.now()));
    else this.publishStatus();
  }

  /**
   * Looks up by order id each auto-buy whose outcome is unknown (after every reconcile: at start-up, after each
   * reconnect, while polling), in the cache first: a trade found is bought (stored, its spend added), none found on
   * the server gives its share of the caps and the budget back. A failed look-up leaves it counted until the next
   * reconcile, or until the feed brings its trade (tradesStored). A run takes its list
   * when it starts: asked while one runs (a reconcile, or a buy whose outcome became unknown meanwhile), one more
   * run follows it, so an outcome unknown after the list was taken is not left for the next reconcile.
   */
  resolveUnknown(): Promise<void> {
    this.serverAsked = true;
    return this.resolver.queue(() => this.runResolve());
  }

  /**
   * Trades just stored (a feed frame, a reconcile, a page): a buy whose outcome is unknown and whose order id is among
   * them is settled from the cache, with no request, since the API may be the part that failed while the feed is up.
   */
  tradesStored(trades: readonly Trade[]): void {
    const unresolved = new Set(this.guard.unresolved().map((reservation) => reservation.externalId));
    if (unresolved.size > 0 && trades.some((trade) => trade.externalId !== null && unresolved.has(trade.externalId)))
      void this.resolveFromCache();
  }

  private resolveFromCache(): Promise<void> {
    return this.resolver.queue(() => this.runResolve());
  }

  private async runResolve(): Promise<void> {
    const account = this.account();
    if (!account?.live) return;
    let askServer = this.serverAsked;
    this.serverAsked = false;
    for (const reservation of this.guard.unresolved()) {
      const { token: _token, day: _day, ...record } = reservation;
      const { externalId } = record;
      let trade: Trade | null;
      try {
        const cached = (await account.store.orderChainTrades(externalId)).find((t) => t.externalId === externalId);
        if (!cached && !askServer) continue;
        trade =
          cached ??
          (await account.client.tradeHistory({ externalId })).trades.find((t) => t.externalId === externalId) ??
          null;
        if (this.account() !== account) return;
        if (trade && !cached) await account.upsertTrades([trade], 'reconcile');
        const settled = await account.store.settleAutoBuy({
          ...record,
          state: trade ? 'bought' : 'not_bought',
          tradeId: trade?.tradeId ?? null,
          error: trade ? null : `Its answer was lost, and no trade has order id ${externalId}: nothing was bought`,
        });
        if (settled.firing) this.events.push({ firings: [settled.firing] });
      } catch (error) {
        this.log(
          `auto-buy: order ${externalId}: its outcome is still unknown (${(error as Error).message}); counted until it is looked up`,
        );
        // One failed look-up is enough for this run: the others are still settled from the cache where it has them.
        askServer = false;
        continue;
      }
      this.guard.settle(reservation, trade ? 'bought' : 'not_bought');
      this.log(
        `auto-buy: order ${externalId} looked up: ${trade ? `bought (trade ${trade.tradeId})` : 'no trade, not counted'}`,
      );
      this.publishStatus();
    }
  }

  /** A skip is counted on its rule's line for the day; only the rule's first skip of the day is announced. */
  private skipped(rule: AlertRule, reason: string, at: string): void {
    this.guard.skipped(rule.id);
    this.publishStatus();
    const key = `${rule.id}:${at.slice(0, 10)}`;
    const settings = this.settings();
    if (this.announcedSkips.has(key) || !settings.notifyAlerts || reason === ONLY_NEW_REASON) return;
    this.announcedSkips.add(key);
    this.events.push({
      notifications: [
        {
          id: `auto-buy-skip:${key}`,
          kind: 'alert',
          title: `Auto-buy skipping: ${rule.name}`,
          body: `A match was not bought: ${reason}. Further skips today are counted on the Alerts screen.`,
          target: null,
          at,
        },
      ],
    });
  }

  /** Decides at once what auto-buy does with a match; a buy's request leaves in this task. */
  private autoBuy(account: BuyingAccount, rule: AlertRule, item: Candidate, paused: boolean): AutoBuyDecision | null {
    if (!rule.autoBuy.enabled) return null;
    if (this.baseline.has(`${rule.id}:${item.itemId}`)) return { kind: 'skip', reason: ONLY_NEW_REASON };
    const verdict = this.guard.verdict(rule, item.price, paused);
    if (!verdict.buy) return { kind: 'skip', reason: verdict.reason };
    if (rule.autoBuy.dryRun === true) return { kind: 'dry-run' };
    const externalId = `auto-${rule.id.slice(0, 12)}-${item.itemId}-${item.price}`;
    // A re-armed rule meets the same listing again: its first attempt's outcome comes first.
    if (this.guard.holds(externalId))
      return { kind: 'skip', reason: 'an earlier attempt at this listing and price has no known outcome yet' };
    const record = { externalId, ruleId: rule.id, itemId: item.itemId, price: item.price, at: toUtcIso(Date.now()) };
    try {
      // Written before the request: a lost answer or a kill cannot make the app forget this buy.
      account.store.journalAutoBuy(record);
    } catch (error) {
      return { kind: 'skip', reason: `it could not be recorded first (${(error as Error).message})` };
    }
    // Counted now, in the task that sends the request: a burst of matches cannot overshoot a cap, the budget or the floor.
    const reservation = this.guard.reserve(record);
    return { kind: 'buy', outcome: this.send(account, rule, item, reservation), reservation };
  }

  /** Buys through the idempotent buy path; the guard rails are asked again right before the request is written. */
  private async send(
    account: BuyingAccount,
    rule: AlertRule,
    item: Candidate,
    reservation: Reservation,
  ): Promise<AutoBuyOutcome> {
    const recipientId = rule.autoBuy.recipientId as string;
    const tradeUrl = this.recipients.get(recipientId);
    let heldBack: string | null = null;
    try {
      const { outcome } = await this.buying.placeById(
        {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          recipient: tradeUrl ? { tradeUrl } : { recipientId },
          externalId: reservation.externalId,
        },
        // The order id is this buy's own: skip the cache look-up; should the server know it already (an earlier
        // attempt), its duplicate_external_id answer is looked up instead.
        { cacheLookup: false, admit: () => (heldBack = this.admit(account, reservation)) },
      );
      if (outcome.ok) {
        this.log(`auto-buy: rule ${rule.name} bought item ${item.itemId} for ${formatCents(item.price)}`);
        return { state: 'bought', tradeId: outcome.trade.tradeId, error: null, heldBack: null };
      }
      const state = outcome.failure.code === 'outcome_unknown' ? 'unknown' : 'not_bought';
      // Held back by the last look at the guard rails: not sent, counted as a skip.
      if (heldBack !== null && outcome.failure.code === 'not_sent')
        return { state, tradeId: null, error: null, heldBack };
      return { state, tradeId: null, error: outcome.failure.message, heldBack: null };
    } catch (error) {
      // Whether it left is not known: counted until its order id is looked up.
      return { state: 'unknown', tradeId: null, error: (error as Error).message, heldBack: null };
    }
  }

  /** The guard rails asked again right before an auto-buy's request is written: why not to send it, or null. */
  private admit(account: BuyingAccount, reservation: Reservation): string | null {
    if (this.account() !== account) return 'another account was opened before it was sent';
    const rule = this.rules.find((candidate) => candidate.id === reservation.ruleId);
    if (!rule?.enabled || !rule.autoBuy.enabled || rule.autoBuy.dryRun === true)
      return 'the rule stopped auto-buying before it was sent';
    const verdict = this.guard.verdict(rule, reservation.price, this.settings().alertsPaused, reservation);
    return verdict.buy ? null : verdict.reason;
  }
}
