import type { Item } from '../../../shared/api';
import type { AlertRule, AppSettings, CatalogRow } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { toUtcIso } from '../../../shared/time';
import type { BuyService } from '../buy/buyService';
import type { AccountSession } from '../engine/session';
import type { EventBatcher } from '../events/batcher';
import type { MatchableItem } from './rules';
import { autoBuyVerdict, matchesRule, utcDayStart } from './rules';

interface Candidate extends MatchableItem {
  itemId: number;
  assetId: string;
}

const fromItem = (item: Item): Candidate => ({
  itemId: item.itemId,
  assetId: item.assetId,
  market_hash_name: item.market_hash_name,
  phase: item.phase,
  float: item.float,
  price: item.price,
  stickerNames: item.stickers.map((s) => s.name),
});

const fromRow = (row: CatalogRow): Candidate => ({ ...row, stickerNames: row.stickerNames });

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

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
 * order id already had).
 */
export class AlertService {
  private rules: AlertRule[] = [];
  /** `ruleId:itemId:price` of every firing stored (loaded with the rules, added to as they fire). */
  private fired = new Set<string>();
  /** Auto-buy spend per rule today, kept in memory so a decision needs no database round trip. */
  private spentToday = new Map<string, number>();
  private day = 0;
  /** Saved recipients' trade URLs, so an auto-buy sends without a database round trip (reloaded with the rules). */
  private recipients = new Map<string, string>();

  constructor(
    private readonly session: () => AccountSession | null,
    private readonly buying: BuyService,
    private readonly events: EventBatcher,
    private readonly settings: () => AppSettings,
    private readonly log: (line: string) => void,
  ) {}

  async reload(): Promise<AlertRule[]> {
    const session = this.session();
    if (!session) {
      this.rules = [];
      return [];
    }
    this.rules = await session.store.listAlertRules();
    this.fired = new Set(await session.store.firingKeys());
    this.recipients = new Map((await session.store.listRecipients()).map((recipient) => [recipient.id, recipient.tradeUrl]));
    this.day = utcDayStart(Date.now());
    const since = toUtcIso(this.day);
    this.spentToday = new Map(
      await Promise.all(this.rules.map(async (rule) => [rule.id, await session.store.alertRuleSpentSince(rule.id, since)] as const)),
    );
    return this.rules;
  }

  /** Items from a frame (whole) or ids whose rows changed (looked up in the cache). */
  async evaluate(source: { items?: Item[]; itemIds?: number[] }): Promise<void> {
    if (this.rules.length === 0) return;
    const session = this.session();
    if (!session) return;
    let candidates: Candidate[] = (source.items ?? []).map(fromItem);
    if (source.itemIds && source.itemIds.length > 0) candidates = candidates.concat((await session.store.findItemsByIds(source.itemIds)).map(fromItem));
    await this.fireMatches(candidates);
  }

  /** After a sync: each rule's cheapest matches in the whole cached catalog. */
  async evaluateCatalog(): Promise<void> {
    const session = this.session();
    if (!session) return;
    for (const rule of this.rules.filter((r) => r.enabled)) {
      const page = await session.store.queryCatalog({
        search: rule.namePattern,
        priceMin: null,
        priceMax: rule.maxPrice,
        rarityColors: [],
        floatMin: rule.floatMin,
        floatMax: rule.floatMax,
        phase: rule.phase,
        statTrak: null,
        souvenir: null,
        hasStickers: null,
        stickerName: rule.stickerNames[0] ?? '',
        sort: 'price',
        direction: 'asc',
        offset: 0,
        limit: SYNC_MATCH_LIMIT,
      });
      const fired = await this.fireMatches(page.rows.map(fromRow), [rule], false);
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

  /** Fires every match; returns how many firings were new. */
  private async fireMatches(candidates: Candidate[], rules: AlertRule[] = this.rules, notify = true): Promise<number> {
    let fired = 0;
    for (const item of candidates) {
      for (const rule of rules) {
        if (matchesRule(rule, item) && (await this.fire(rule, item, notify))) fired++;
      }
    }
    return fired;
  }

  private async fire(rule: AlertRule, item: Candidate, notifyEach: boolean): Promise<boolean> {
    const session = this.session();
    if (!session) return false;
    const key = `${rule.id}:${item.itemId}:${item.price}`;
    if (this.fired.has(key)) return false;
    this.fired.add(key);
    const settings = this.settings();
    // Sent before the firing is stored: a buyer's race is won or lost in milliseconds.
    const autoBuy = this.autoBuy(rule, item, settings.alertsPaused);
    // The request is written on the next tick (when node:http hands it its socket): store the firing after it.
    if (autoBuy) await nextTick();
    const firing = await session.store.recordFiring({
      ruleId: rule.id,
      ruleName: rule.name,
      itemId: item.itemId,
      market_hash_name: item.market_hash_name,
      price: item.price,
    });
    // Stored meanwhile by another path: no notification (an auto-buy already sent is idempotent by its order id).
    if (!firing) {
      if (autoBuy) await autoBuy;
      return false;
    }
    const notify = notifyEach && settings.notifyAlerts && !settings.alertsPaused;
    this.events.push({
      firings: [firing],
      unacknowledgedFirings: await session.store.unacknowledgedFiringCount(),
      ...(notify
        ? {
            notifications: [
              {
                id: `alert:${firing.id}`,
                kind: 'alert' as const,
                title: `Alert: ${rule.name}`,
                body: `${item.market_hash_name}${item.phase ? ` · ${item.phase}` : ''} at ${formatCents(item.price)}`,
                target: { type: 'item' as const, itemId: item.itemId },
                at: firing.firedAt,
              },
            ],
          }
        : {}),
    });
    if (autoBuy) {
      const outcome = await autoBuy;
      const updated = await session.store.setFiringAutoBuy(firing.id, outcome);
      if (updated) this.events.push({ firings: [updated] });
    }
    return true;
  }

  /** Starts an auto-buy at once when the rule allows it; resolves to what happened. */
  private autoBuy(rule: AlertRule, item: Candidate, paused: boolean): Promise<{ tradeId: string | null; error: string | null }> | null {
    if (!rule.autoBuy.enabled) return null;
    const today = utcDayStart(Date.now());
    if (today !== this.day) {
      this.day = today;
      this.spentToday.clear();
    }
    const verdict = autoBuyVerdict(rule, item.price, this.spentToday.get(rule.id) ?? 0, paused);
    if (!verdict.buy) return Promise.resolve({ tradeId: null, error: verdict.reason });
    // Count the spend before the answer so a burst cannot overshoot the caps.
    this.spentToday.set(rule.id, (this.spentToday.get(rule.id) ?? 0) + item.price);
    rule.autoBuy.spent += item.price;
    const recipientId = rule.autoBuy.recipientId as string;
    const tradeUrl = this.recipients.get(recipientId);
    const release = () => {
      this.spentToday.set(rule.id, (this.spentToday.get(rule.id) ?? 0) - item.price);
      rule.autoBuy.spent -= item.price;
    };
    return this.buying
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
      .then(async ({ outcome, placed }) => {
        const session = this.session();
        if (outcome.ok && placed) {
          if (session) await session.store.addAlertRuleSpend(rule.id, item.price);
          this.log(`auto-buy: rule ${rule.name} bought item ${item.itemId} for ${formatCents(item.price)}`);
          return { tradeId: outcome.trade.tradeId, error: null };
        }
        release();
        if (outcome.ok) {
          // The order id already had this trade (bought and counted before): not spent again. Left without a
          // trade id on this firing, because the daily cap sums the firings that carry one.
          return { tradeId: null, error: `Already bought earlier (trade ${outcome.trade.tradeId}); not counted again` };
        }
        return { tradeId: null, error: outcome.failure.message };
      })
      .catch((error: unknown) => {
        release();
        return { tradeId: null, error: (error as Error).message };
      });
  }
}
