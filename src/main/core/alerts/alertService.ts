import type { Item } from '../../../shared/api';
import type { AlertRule, AppSettings, AutoBuyPreview, AutoBuySkipLine, AutoBuyStatus } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { toUtcIso } from '../../../shared/time';
import type { BuyService } from '../buy/buyService';
import type { AccountSession } from '../engine/session';
import type { EventBatcher } from '../events/batcher';
import { EngineError } from '../ipc/engineService';
import type { ParsedAlertRuleInput } from '../store/types';
import { armAutoBuy, autoBuyRuleProblem, previewMatches, ruleOfInput } from './arming';
import { AutoBuyGuard, type Reservation } from './guard';
import { catalogQueryOfRule, compileRule, type CompiledRule, filtersOfRule, utcDayStart } from './rules';
import { foldSkipLines } from './skips';

/** What a firing and its buy need of a match (an Item or a catalog row). */
type Candidate = Pick<Item, 'itemId' | 'assetId' | 'market_hash_name' | 'phase' | 'price'>;

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

/** What auto-buy does with one match, decided in the match's own task. */
/** A sent buy's outcome for its firing; `bought`: a trade this buy created (its spend stays counted). */
interface AutoBuyOutcome {
  tradeId: string | null;
  error: string | null;
  bought: boolean;
}

type AutoBuyDecision =
  | { kind: 'buy'; outcome: Promise<AutoBuyOutcome>; reservation: Reservation }
  | { kind: 'dry-run' }
  | { kind: 'skip'; reason: string };

const ONLY_NEW_REASON = 'listed before the rule was armed (only new listings)';

/** Rows of the catalog a rule is checked against after each sync. */
const SYNC_MATCH_LIMIT = 100;

/**
 * Watchlist rules: evaluated on item_upserted, price_changed and after each
 * catalog sync. A firing is stored once per (rule, item, price) and raised as
 * a notification. Auto-buy (off by default) acts only on a firing that is
 * new, so a replayed frame or a restart never buys again: the stored firings'
 * keys are held in memory (loaded with the rules), so the buy goes out before
 * the firing's database round trip (a race with other buyers). It buys through
 * the idempotent buy path with an externalId derived from (rule, item, price),
 * and spend is added only for a trade that buy created (never for one the
 * order id already had). The guard rails (guard.ts) decide each buy; a skip is
 * stored folded into its rule's line for the day, a dry run as "would buy".
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

  constructor(
    private readonly session: () => AccountSession | null,
    private readonly buying: BuyService,
    private readonly events: EventBatcher,
    private readonly settings: () => AppSettings,
    private readonly log: (line: string) => void,
  ) {
    this.guard = new AutoBuyGuard(
      settings,
      () => this.session()?.balance ?? null,
      () => {
        const session = this.session();
        if (!session) return Promise.reject(new Error('no account session'));
        return session.client.getBalance();
      },
      log,
    );
  }

  async reload(): Promise<AlertRule[]> {
    const session = this.session();
    if (!session) {
      this.rules = [];
      this.live = [];
      this.guard.reset();
      return [];
    }
    const generation = this.guard.beginLoad();
    this.rules = await session.store.listAlertRules();
    this.live = this.rules.filter((rule) => rule.enabled).map(compileRule);
    this.fired = new Set(await session.store.firingKeys());
    this.recipients = new Map((await session.store.listRecipients()).map((recipient) => [recipient.id, recipient.tradeUrl]));
    this.baseline = new Set(await session.store.autoBuyBaseline());
    for (const rule of this.rules) this.ruleNames.set(rule.id, rule.name);
    const day = utcDayStart(Date.now());
    const rows = await session.store.autoBuyDay(toUtcIso(day));
    this.guard.load({
      day,
      spentByRule: new Map(rows.map((row) => [row.ruleId, row.spent])),
      skippedByRule: new Map(rows.map((row) => [row.ruleId, row.skipped])),
    }, generation);
    this.publishStatus();
    return this.rules;
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
    const session = this.requireSession();
    const problem = autoBuyRuleProblem(input);
    if (problem) throw new EngineError('invalid_input', problem);
    const rule = await session.store.saveAlertRule(input);
    if (rule.enabled) await armAutoBuy(session.store, rule, input.existingListings);
    await this.reload();
    void this.evaluateCatalog().catch((error: unknown) => this.log(`alerts: ${String(error)}`));
    return rule;
  }

  /** Re-arming forgets the rule's firings so the same items can fire again; auto-buy buys only new listings unless 'buy'. */
  async rearm(id: string, existing: 'skip' | 'buy'): Promise<AlertRule | null> {
    const store = this.requireSession().store;
    await store.deleteFiringsForRule(id);
    const rule = await store.setAlertRuleEnabled(id, true);
    if (rule) await armAutoBuy(store, rule, existing);
    await this.reload();
    this.events.push({ unacknowledgedFirings: await store.unacknowledgedFiringCount() });
    void this.evaluateCatalog().catch((error: unknown) => this.log(`alerts: ${String(error)}`));
    return rule;
  }

  async preview(input: ParsedAlertRuleInput): Promise<AutoBuyPreview> {
    return previewMatches(this.requireSession().store, ruleOfInput(input));
  }

  async skips(): Promise<AutoBuySkipLine[]> {
    const session = this.session();
    return session ? foldSkipLines(await session.store.autoBuySkips()) : [];
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
      rules.push({ ruleId: rule.id, ruleName: rule.name, spentToday: spent, skippedToday: skipped, dryRun: rule.autoBuy.dryRun === true, enabled: rule.enabled && rule.autoBuy.enabled });
    }
    for (const [ruleId, spent] of today.spentByRule) {
      if (listed.has(ruleId) || spent === 0) continue;
      rules.push({ ruleId, ruleName: this.ruleNames.get(ruleId) ?? 'a deleted rule', spentToday: spent, skippedToday: today.skippedByRule.get(ruleId) ?? 0, dryRun: false, enabled: false });
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

  private requireSession(): AccountSession {
    const session = this.session();
    if (!session) throw new EngineError('unavailable', 'No account connected: configure one in Settings or use the demo sandbox');
    return session;
  }

  /**
   * Items from a frame (whole, before they are written), ids whose rows changed (looked up in the cache), or
   * ids of items just written. A rule is decided from the item alone, at once; one that filters on the market
   * standing (which a frame does not carry) is asked of the store once the change is written.
   */
  async evaluate(source: { items?: Item[]; itemIds?: number[]; writtenIds?: number[] }): Promise<void> {
    if (this.live.length === 0) return;
    const session = this.session();
    if (!session) return;
    let items = source.items ?? [];
    if (source.itemIds && source.itemIds.length > 0) items = items.concat(await session.store.findItemsByIds(source.itemIds));
    for (const item of items) {
      for (const compiled of this.live) if (!compiled.needsStanding && compiled.test(item, null)) await this.fire(compiled.rule, item, true);
    }
    const written = [...(source.itemIds ?? []), ...(source.writtenIds ?? [])];
    if (written.length === 0) return;
    const byId = new Map(items.map((item) => [item.itemId, item]));
    for (const { rule, needsStanding } of this.live) {
      if (!needsStanding) continue;
      const matched = await session.store.matchingItemIds(filtersOfRule(rule), written);
      const unknown = matched.filter((itemId) => !byId.has(itemId));
      if (unknown.length > 0) for (const item of await session.store.findItemsByIds(unknown)) byId.set(item.itemId, item);
      for (const itemId of matched) {
        const item = byId.get(itemId);
        if (item) await this.fire(rule, item, true);
      }
    }
  }

  /** After a sync: each rule's cheapest matches in the whole cached catalog. */
  async evaluateCatalog(): Promise<void> {
    const session = this.session();
    if (!session) return;
    for (const rule of this.rules.filter((r) => r.enabled)) {
      const page = await session.store.queryCatalog(catalogQueryOfRule(rule, { anyPrice: false, offset: 0, limit: SYNC_MATCH_LIMIT }));
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
    const session = this.session();
    if (!session) return false;
    const key = `${rule.id}:${item.itemId}:${item.price}`;
    if (this.fired.has(key)) return false;
    this.fired.add(key);
    const settings = this.settings();
    // Sent before the firing is stored: a buyer's race is won or lost in milliseconds.
    const decision = this.autoBuy(rule, item, settings.alertsPaused);
    const buy = decision?.kind === 'buy' ? decision : null;
    const autoBuy = buy?.outcome ?? null;
    // The request is written on the next tick (when node:http hands it its socket): store the firing after it.
    if (autoBuy) await nextTick();
    const firing = await session.store.recordFiring({
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
      if (buy) this.guard.settle(buy.reservation, (await buy.outcome).bought);
      return false;
    }
    if (decision?.kind === 'skip') {
      this.skipped(rule, decision.reason, firing.firedAt);
      return true;
    }
    const notify = notifyEach && settings.notifyAlerts && !settings.alertsPaused;
    const title = decision?.kind === 'dry-run' ? `Dry run: ${rule.name}` : `Alert: ${rule.name}`;
    const price = decision?.kind === 'dry-run' ? `would buy at ${formatCents(item.price)}` : `at ${formatCents(item.price)}`;
    this.events.push({
      firings: [firing],
      unacknowledgedFirings: await session.store.unacknowledgedFiringCount(),
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
    if (buy) void this.recordOutcome(session, firing.id, buy.outcome, buy.reservation);
    return true;
  }

  /** Stores a buy's outcome on its firing; only then is it settled (a reload reads it from the store from then on). */
  private async recordOutcome(session: AccountSession, firingId: string, outcome: Promise<AutoBuyOutcome>, reservation: Reservation): Promise<void> {
    const { bought, ...autoBuy } = await outcome;
    try {
      const updated = await session.store.setFiringAutoBuy(firingId, autoBuy);
      if (updated) this.events.push({ firings: [updated] });
    } catch (error) {
      this.log(`auto-buy: could not record an outcome: ${(error as Error).message}`);
    }
    this.guard.settle(reservation, bought);
    this.publishStatus();
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
  private autoBuy(rule: AlertRule, item: Candidate, paused: boolean): AutoBuyDecision | null {
    if (!rule.autoBuy.enabled) return null;
    if (this.baseline.has(`${rule.id}:${item.itemId}`)) return { kind: 'skip', reason: ONLY_NEW_REASON };
    const verdict = this.guard.verdict(rule, item.price, paused);
    if (!verdict.buy) return { kind: 'skip', reason: verdict.reason };
    if (rule.autoBuy.dryRun === true) return { kind: 'dry-run' };
    const recipientId = rule.autoBuy.recipientId as string;
    const tradeUrl = this.recipients.get(recipientId);
    // Counted now, in the task that sends the request: a burst of matches cannot overshoot a cap, the budget or the floor.
    const reservation = this.guard.reserve(rule, item.price);
    const outcome = this.buying
      .placeById(
        {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          recipient: tradeUrl ? { tradeUrl } : { recipientId },
          externalId: `auto-${rule.id.slice(0, 12)}-${item.itemId}-${item.price}`,
        },
        // The order id is this firing's own and a firing is never repeated (see `fired`): skip the cache
        // look-up; should the server know it already, its duplicate_external_id answer is looked up instead.
        { cacheLookup: false },
      )
      .then(async ({ outcome, placed }): Promise<AutoBuyOutcome> => {
        if (outcome.ok && placed) {
          this.log(`auto-buy: rule ${rule.name} bought item ${item.itemId} for ${formatCents(item.price)}`);
          try {
            await this.session()?.store.addAlertRuleSpend(rule.id, item.price);
          } catch (error) {
            this.log(`auto-buy: could not store the spend: ${(error as Error).message}`);
          }
          return { tradeId: outcome.trade.tradeId, error: null, bought: true };
        }
        if (outcome.ok) {
          // The order id already had this trade (bought and counted before): not spent again. Left without a
          // trade id on this firing, because the daily cap sums the firings that carry one.
          return { tradeId: null, error: `Already bought earlier (trade ${outcome.trade.tradeId}); not counted again`, bought: false };
        }
        return { tradeId: null, error: outcome.failure.message, bought: false };
      })
      .catch((error: unknown): AutoBuyOutcome => ({ tradeId: null, error: (error as Error).message, bought: false }));
    return { kind: 'buy', outcome, reservation };
  }
}
