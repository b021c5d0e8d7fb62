import { z } from 'zod';
import {
  MAX_EXTERNAL_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_TRADE_URL_LENGTH,
  TRADE_DURATION_MAX_SECONDS,
  TRADE_DURATION_MIN_SECONDS,
  TRADE_STATUSES_ACCEPTED,
  TRANSACTION_TYPES,
} from '../api';
import {
  CHARM_PATTERN_MAX,
  formatNumberList,
  LISTINGS_MIN_MAX,
  MAX_LIST_ENTRIES,
  parseNumberList,
  SEED_MAX,
  WEARS,
} from '../filters';
import { MAX_LINK_LENGTH, type SearchLinkResult } from '../deepLinks';
import { MAX_FORWARD_URL_LENGTH, parseForwardUrl } from '../forwardUrl';
import { BULK_SHARE_PERCENT_MAX, BULK_SHARE_PERCENT_MIN } from '../requestBudget';
import { RUNWAY_ALERT_MAX_HOURS } from '../runway';
import { SEED_LIST_NAME_MAX, SEED_LISTS_MAX } from '../seedLists';
import { utcTimestampSchema } from '../time';
import {
  MAX_FAILURE_DAYS,
  MAX_REPLAY_TRADES,
  type BuyRefusal,
  type FailuresBoard,
  type RecipientSummary,
  type ReversalExposure,
  type RecipientsPage,
  type WebhookHealth,
  type WebhookReplayOutcome,
} from './operations';
import type {
  AlertFiring,
  AlertRule,
  AppSettings,
  AppSnapshot,
  AutoBuyPreview,
  AutoBuySkipLine,
  BalancePoint,
  BalanceRunway,
  BuyOutcome,
  BuyWarning,
  CatalogRow,
  ConnectionTestResult,
  ExportStatus,
  ItemDetail,
  LedgerRow,
  NotificationPage,
  OrderChain,
  OrderLookupResult,
  Page,
  Recipient,
  TradeDetail,
} from './models';
import type { EngineEventBatch } from './events';
import type { UpdateInstallResult, UpdateStatus } from './updates';
import type { Trade } from '../api';

/**
 * The one contract between the engine and any UI: method name → input schema
 * (validated in main before anything reaches the core) and result type. The
 * Electron preload and the web host both implement it, so the renderer cannot
 * tell them apart.
 */

const id = z.string().min(1).max(128);
const cents = z.int().min(0).max(1e12);
/** Up to a year of a busy merchant's ledger (about 11 million entries) and more. */
const offset = z.int().min(0).max(100_000_000).default(0);
const pageLimit = z.int().min(1).max(1000).default(200);
const tradeDuration = z.int().min(TRADE_DURATION_MIN_SECONDS).max(TRADE_DURATION_MAX_SECONDS);
const externalId = z.string().min(1).max(MAX_EXTERNAL_ID_LENGTH);

export const CATALOG_SORT_COLUMNS = [
  'price',
  'name',
  'float',
  'paintSeed',
  'phase',
  'stickers',
  'keychains',
  'listedAt',
  'rarity',
  'discount',
  'floatRank',
] as const;

/** Ranges of whole numbers within 0..max, sorted and not overlapping (as parseNumberList gives them). */
const numberRanges = (max: number) =>
  z
    .array(
      z
        .tuple([z.int().min(0).max(max), z.int().min(0).max(max)])
        .refine(([low, high]) => low <= high, 'a range runs backwards'),
    )
    .max(MAX_LIST_ENTRIES)
    .refine(
      (ranges) => ranges.every((range, i) => i === 0 || range[0] > (ranges[i - 1] as [number, number])[1]),
      'ranges must be sorted and apart',
    )
    .default([]);

/** The catalog's filters: one model for the catalog, saved searches and alert rules (a filter is written once). */
export const catalogFiltersSchema = z.strictObject({
  search: z.string().max(MAX_NAME_LENGTH).default(''),
  priceMin: cents.nullable().default(null),
  priceMax: cents.nullable().default(null),
  rarityColors: z.array(z.string().max(16)).max(10).default([]),
  floatMin: z.number().min(0).max(1).nullable().default(null),
  floatMax: z.number().min(0).max(1).nullable().default(null),
  phase: z.string().max(64).nullable().default(null),
  statTrak: z.boolean().nullable().default(null),
  souvenir: z.boolean().nullable().default(null),
  hasStickers: z.boolean().nullable().default(null),
  stickerName: z.string().max(MAX_NAME_LENGTH).default(''),
  /** Paint seeds (a pasted list, parsed by parseNumberList). */
  seeds: numberRanges(SEED_MAX),
  /** Wear bands; a float in any of them matches. */
  wears: z.array(z.enum(WEARS)).max(WEARS.length).default([]),
  hasCharm: z.boolean().nullable().default(null),
  /** A charm name holding the text. */
  charmName: z.string().max(MAX_NAME_LENGTH).default(''),
  charmPatterns: numberRanges(CHARM_PATTERN_MAX),
  stickerCountMin: z.int().min(1).max(10).nullable().default(null),
  /** At least this many of one sticker ("4× the same"). */
  sameStickerMin: z.int().min(2).max(10).nullable().default(null),
  /** Any of these sticker names (each held by one of the item's sticker names). */
  stickerNames: z.array(z.string().trim().min(1).max(MAX_NAME_LENGTH)).max(20).default([]),
  /** Words the item's name must not hold (space-separated). */
  excludeWords: z.string().max(MAX_NAME_LENGTH).default(''),
  /** At least this many percent under its name's reference price. */
  discountMin: z.number().min(-1000).max(100).nullable().default(null),
  /** Among the lowest floats of its name: rank at most this. */
  floatRankMax: z.int().min(1).max(1_000_000).nullable().default(null),
  /** At least this many of its name (and phase) on sale: a discount in a thin market says little. */
  listingsMin: z
    .int('listings on sale: a whole number')
    .min(1, 'listings on sale: at least 1')
    .max(LISTINGS_MIN_MAX, `listings on sale: at most ${LISTINGS_MIN_MAX}`)
    .nullable()
    .default(null),
});
export type CatalogFilters = z.output<typeof catalogFiltersSchema>;
export type CatalogFiltersInput = z.input<typeof catalogFiltersSchema>;

export const catalogQuerySchema = catalogFiltersSchema.extend({
  sort: z.enum(CATALOG_SORT_COLUMNS).default('price'),
  direction: z.enum(['asc', 'desc']).default('asc'),
  offset,
  limit: pageLimit,
});
export type CatalogQuery = z.input<typeof catalogQuerySchema>;

/** A saved search's query: the catalog query without paging (re-checked with this schema whenever it is read back). */
export const savedSearchQuerySchema = catalogQuerySchema.omit({ offset: true, limit: true });
export type SavedSearchQuery = z.output<typeof savedSearchQuerySchema>;
export const SAVED_SEARCH_NAME_MAX = 80;
/** Saved searches one account keeps: more than a sidebar and a palette can offer usefully. */
export const MAX_SAVED_SEARCHES = 200;

export const savedSearchInputSchema = z.strictObject({
  /** Absent: a new search; present: rename or replace that one. */
  id: id.optional(),
  name: z
    .string()
    .trim()
    .min(1, 'Name the search')
    .max(SAVED_SEARCH_NAME_MAX, `A name is at most ${SAVED_SEARCH_NAME_MAX} characters`),
  query: savedSearchQuerySchema,
});
export type SavedSearchInput = z.input<typeof savedSearchInputSchema>;
export type ParsedSavedSearchInput = z.output<typeof savedSearchInputSchema>;

export interface SavedSearch {
  id: string;
  name: string;
  query: SavedSearchQuery;
  createdAt: string;
  updatedAt: string;
}

/** A recipient as the trades filter names it: the partner number of their trade URL (an unsigned 32-bit account id). */
export const partnerIdSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/, 'A recipient is the number after partner= in their trade URL')
  .refine((partner) => Number(partner) <= 0xffff_ffff, 'A partner number is at most 4294967295');

const idPrefix = (what: string, max: number) =>
  z.string().max(max, `${what} filter is at most ${max} characters (the start of the id)`).default('');

export const tradeQuerySchema = z.strictObject({
  statuses: z.array(z.enum(TRADE_STATUSES_ACCEPTED)).max(10).default([]),
  activeOnly: z.boolean().default(false),
  from: utcTimestampSchema.nullable().default(null),
  to: utcTimestampSchema.nullable().default(null),
  externalId: idPrefix('The order id', MAX_EXTERNAL_ID_LENGTH),
  tradeId: idPrefix('The trade id', 128),
  /** The recipient: trades whose trade URL has this partner number. */
  partner: partnerIdSchema.nullable().default(null),
  webhookFailed: z.boolean().default(false),
  /** The trades of one outcome code (503, 504, …); 0: those with none (Operations → Failures opens its cells so). */
  errorCode: z.int().min(0).max(999).nullable().default(null),
  offset,
  limit: pageLimit,
});
export type TradeQuery = z.input<typeof tradeQuerySchema>;

export const ledgerQuerySchema = z.strictObject({
  types: z.array(z.enum(TRANSACTION_TYPES)).max(10).default([]),
  tradeId: idPrefix('The trade id', 128),
  from: utcTimestampSchema.nullable().default(null),
  to: utcTimestampSchema.nullable().default(null),
  offset,
  limit: pageLimit,
});
export type LedgerQuery = z.input<typeof ledgerQuerySchema>;

/** Operations → Recipients: sort, filter (a label or partner number; who needs attention) and page. */
export const recipientsQuerySchema = z.strictObject({
  sort: z
    .enum(['partner', 'trades', 'active', 'strikes', 'delivered', 'cancelled', 'reversed', 'value', 'lastAt'], {
      error: 'sort must be one of partner, trades, active, strikes, delivered, cancelled, reversed, value, lastAt',
    })
    .default('active'),
  descending: z.boolean().default(true),
  search: z.string().trim().max(100, 'The recipient filter is at most 100 characters').default(''),
  only: z.enum(['all', 'active', 'attention'], { error: 'only must be all, active or attention' }).default('all'),
  offset: z.number().int().min(0).max(1_000_000).default(0),
  limit: z.number().int().min(1).max(200).default(100),
});
export type RecipientsQuery = z.infer<typeof recipientsQuerySchema>;

/** Operations → Reversals: where its page of reversed trades starts. */
export const reversalsQuerySchema = z
  .strictObject({ offset: z.number().int().min(0).max(1_000_000).default(0) })
  .default({ offset: 0 });

export const recipientPartnerSchema = z.strictObject({ partner: partnerIdSchema });

/** A recipient is a saved trade URL or one pasted for this buy. */
const recipientChoice = z.union([
  z.strictObject({ recipientId: id }),
  z.strictObject({ tradeUrl: z.string().max(MAX_TRADE_URL_LENGTH) }),
]);

export const buyByIdInputSchema = z.strictObject({
  itemId: z.int().positive(),
  assetId: z.string().min(1).max(64),
  /** The price the user confirmed, cents. */
  price: z.int().positive(),
  recipient: recipientChoice,
  tradeDurationSeconds: tradeDuration.optional(),
  externalId: externalId.optional(),
});
export type BuyByIdInput = z.infer<typeof buyByIdInputSchema>;

export const buyByNameInputSchema = z
  .strictObject({
    market_hash_name: z.string().min(1).max(MAX_NAME_LENGTH),
    phase: z.string().min(1).max(64).optional(),
    maxPrice: z.int().positive(),
    recipient: recipientChoice,
    tradeDurationSeconds: tradeDuration.optional(),
    externalId: externalId.optional(),
    itemId: z.int().positive().optional(),
    assetId: z.string().min(1).max(64).optional(),
  })
  .refine((b) => (b.itemId === undefined) === (b.assetId === undefined), { message: 'itemId and assetId go together' });
export type BuyByNameInput = z.infer<typeof buyByNameInputSchema>;

/** An order's chain ("buy the next one") starts from one of its trades, or from a refused buy by name's order id. */
export const orderChainInputSchema = z.union([
  z.strictObject({ tradeId: id }),
  z.strictObject({ refusedExternalId: externalId }),
]);
export type OrderChainInput = z.infer<typeof orderChainInputSchema>;

/** The next attempt as the user reviewed it: its order id, and a maximum no higher than the original's. */
export const buyNextInputSchema = z.strictObject({
  from: orderChainInputSchema,
  externalId,
  maxPrice: z.int().positive(),
  tradeDurationSeconds: tradeDuration.optional(),
});
export type BuyNextInput = z.infer<typeof buyNextInputSchema>;

/** The longest order look-up text: a trade URL is at most MAX_TRADE_URL_LENGTH. */
export const MAX_LOOKUP_LENGTH = MAX_TRADE_URL_LENGTH;
export const orderLookupInputSchema = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1, { error: 'Type an order id, trade id, trade URL, partner id, offer id or item name to look up' })
    .max(MAX_LOOKUP_LENGTH, { error: `A look-up is at most ${MAX_LOOKUP_LENGTH} characters` }),
});

export const recipientInputSchema = z.strictObject({
  id: id.optional(),
  label: z.string().trim().min(1).max(80),
  tradeUrl: z.string().max(MAX_TRADE_URL_LENGTH),
});
export type RecipientInput = z.infer<typeof recipientInputSchema>;

/** The conditions a rule held before it held the catalog's filters (older rules and callers): folded into `filters`. */
export interface LegacyRuleFields {
  namePattern?: string | undefined;
  phase?: string | null | undefined;
  floatMin?: number | null | undefined;
  floatMax?: number | null | undefined;
  stickerNames?: readonly string[] | undefined;
}

/** A rule's filters with an older rule's conditions folded in: its name pattern as the search words, its sticker names as the wanted stickers. */
export function ruleFiltersInput(
  rule: LegacyRuleFields & { filters?: CatalogFiltersInput | undefined },
): CatalogFiltersInput {
  const filters: CatalogFiltersInput = { ...rule.filters };
  if (rule.namePattern !== undefined && rule.namePattern.trim() !== '') filters.search = rule.namePattern;
  if (rule.phase != null) filters.phase = rule.phase;
  if (rule.floatMin != null) filters.floatMin = rule.floatMin;
  if (rule.floatMax != null) filters.floatMax = rule.floatMax;
  const stickers = (rule.stickerNames ?? []).map((name) => name.trim()).filter((name) => name !== '');
  if (stickers.length > 0) filters.stickerNames = stickers;
  return filters;
}

export const alertRuleInputSchema = z
  .strictObject({
    id: id.optional(),
    name: z.string().trim().min(1).max(80),
    enabled: z.boolean().default(true),
    /** What the rule matches: the catalog's filters. */
    filters: catalogFiltersSchema.optional(),
    namePattern: z.string().max(MAX_NAME_LENGTH).optional(),
    phase: z.string().max(64).nullable().optional(),
    floatMin: z.number().min(0).max(1).nullable().optional(),
    floatMax: z.number().min(0).max(1).nullable().optional(),
    stickerNames: z.array(z.string().min(1).max(MAX_NAME_LENGTH)).max(10).optional(),
    /** The most one item may cost, cents (auto-buy needs it). */
    maxPrice: cents.nullable().default(null),
    autoBuy: z
      .strictObject({
        enabled: z.boolean(),
        recipientId: id.nullable(),
        spendCap: cents,
        dailyCap: cents,
        /** Record "would buy at $X" and send nothing. */
        dryRun: z.boolean().default(false),
      })
      .default({ enabled: false, recipientId: null, spendCap: 0, dailyCap: 0, dryRun: false }),
    /**
     * On save with auto-buy on: 'skip' (the default) never buys what is on sale now, only new listings;
     * 'buy' also buys the matches listed now (the preview's N).
     */
    existingListings: z.enum(['skip', 'buy']).default('skip'),
  })
  .transform(({ namePattern, phase, floatMin, floatMax, stickerNames, filters, ...rule }, context) => {
    const folded = catalogFiltersSchema.safeParse(
      ruleFiltersInput({ namePattern, phase, floatMin, floatMax, stickerNames, filters }),
    );
    if (folded.success) return { ...rule, filters: folded.data };
    for (const issue of folded.error.issues)
      context.addIssue({ code: 'custom', message: issue.message, path: ['filters', ...issue.path] });
    return z.NEVER;
  });
export type AlertRuleInput = z.input<typeof alertRuleInputSchema>;

/** A named seed list: its name, and its seeds as formatNumberList writes them. */
const seedListSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'Name the seed list')
    .max(SEED_LIST_NAME_MAX, `A seed list's name is at most ${SEED_LIST_NAME_MAX} characters`),
  seeds: z
    .string()
    .max(20_000, 'The seed list is too long')
    .transform((text, context) => {
      const parsed = parseNumberList(text, SEED_MAX);
      if (parsed.ok && parsed.ranges.length > 0) return formatNumberList(parsed.ranges);
      context.addIssue({ code: 'custom', message: parsed.ok ? 'The seed list holds no seed' : parsed.error });
      return z.NEVER;
    }),
});

/** Every saved list; names differ (letter case aside). */
export const seedListsSchema = z
  .array(seedListSchema)
  .max(SEED_LISTS_MAX, `At most ${SEED_LISTS_MAX} seed lists`)
  .superRefine((lists, context) => {
    const seen = new Set<string>();
    lists.forEach((list, i) => {
      const key = list.name.toLowerCase();
      if (seen.has(key))
        context.addIssue({ code: 'custom', message: `Two seed lists are named "${list.name}"`, path: [i, 'name'] });
      seen.add(key);
    });
  });

/** A chat webhook URL: http(s) only; a Telegram sendMessage URL must name its chat (see shared/forwardUrl). */
const forwardUrlSchema = z
  .string()
  .max(MAX_FORWARD_URL_LENGTH + 64)
  .transform((value, context) => {
    const parsed = parseForwardUrl(value);
    if (parsed.ok) return parsed.target.url;
    context.addIssue({ code: 'custom', message: parsed.problem });
    return z.NEVER;
  });

/** The balance runway's alert threshold: hours, more than 0, at most RUNWAY_ALERT_MAX_HOURS. */
const runwayHoursSchema = z
  .number({ error: 'the runway threshold must be a number of hours' })
  .positive({ error: 'the runway threshold must be more than 0 hours' })
  .max(RUNWAY_ALERT_MAX_HOURS, { error: `the runway threshold must be at most ${RUNWAY_ALERT_MAX_HOURS} hours` });

/** The merchant's own webhook URL a replay posts to: http(s) only (main refuses non-public addresses, see docs/operations.md). */
const replayUrlSchema = z
  .string()
  .trim()
  .max(2048, 'The webhook URL is too long')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'The webhook URL must be an http:// or https:// address');

export const settingsPatchSchema = z.strictObject({
  theme: z.enum(['dark', 'light']).optional(),
  notifyStatuses: z.array(z.enum(TRADE_STATUSES_ACCEPTED)).max(10).optional(),
  notifyAlerts: z.boolean().optional(),
  alertsPaused: z.boolean().optional(),
  demoSandbox: z.boolean().optional(),
  closeToTray: z.boolean().optional(),
  autoBuyStopped: z.boolean().optional(),
  autoBuyDailyBudget: cents.nullable().optional(),
  autoBuyBalanceFloor: cents.optional(),
  forwardUrl: forwardUrlSchema.nullable().optional(),
  forwardCategories: z
    .array(z.enum(['trade', 'alert', 'auto-buy', 'connection']))
    .max(4)
    .optional(),
  soundCategories: z
    .array(z.enum(['trade', 'alert', 'auto-buy', 'connection']))
    .max(4)
    .optional(),
  soundMuted: z.boolean().optional(),
  /** Every named seed list (a change sends the whole set). */
  seedLists: seedListsSchema.optional(),
  bulkSharePercent: z.int().min(BULK_SHARE_PERCENT_MIN).max(BULK_SHARE_PERCENT_MAX).optional(),
  runwayAlertHours: runwayHoursSchema.nullable().optional(),
  webhookReplayEnabled: z.boolean().optional(),
  webhookReplayUrl: replayUrlSchema.nullable().optional(),
  startWithSession: z.boolean().optional(),
  checkForUpdates: z.boolean().optional(),
});
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

const notificationCategory = z.enum(['trade', 'alert', 'auto-buy', 'connection']);
const notificationSeverity = z.enum(['success', 'danger', 'warning', 'neutral']);

export const notificationQuerySchema = z.strictObject({
  categories: z.array(notificationCategory).max(4).default([]),
  severities: z.array(notificationSeverity).max(4).default([]),
  unreadOnly: z.boolean().default(false),
  offset,
  limit: pageLimit,
});
export type NotificationQuery = z.input<typeof notificationQuerySchema>;
export type ParsedNotificationQuery = z.output<typeof notificationQuerySchema>;

/** Some notifications by id, or every unread one raised at or before `through` (default: now). */
export const notificationMarkReadSchema = z.union([
  z.strictObject({ ids: z.array(id).min(1).max(1000) }),
  z.strictObject({ all: z.literal(true), through: utcTimestampSchema.optional() }),
]);
export type NotificationMarkRead = z.infer<typeof notificationMarkReadSchema>;

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
const wsUrl = z.url({ protocol: /^wss?$/ }).max(2048);

export const accountInputSchema = z.strictObject({
  baseUrl: httpUrl,
  wsUrl,
  merchantId: z.string().trim().min(1).max(128),
  /** Absent: keep the key already stored for this merchant. */
  apiKey: z.string().min(8).max(512).optional(),
});
export type AccountInput = z.infer<typeof accountInputSchema>;

const replayOptions = {
  /** Send again what an earlier replay sent (asked of the user each time). */
  again: z.boolean().default(false),
  /** Only count what would be sent. */
  dryRun: z.boolean().default(false),
};
/** A replay of failed deliveries: those whose status time lies in [from, to], or the trades chosen. */
export const webhookReplayInputSchema = z.union([
  z.strictObject({ from: utcTimestampSchema, to: utcTimestampSchema, ...replayOptions }),
  z.strictObject({
    tradeIds: z
      .array(z.string().min(1).max(128))
      .min(1, 'Choose at least one trade')
      .max(MAX_REPLAY_TRADES, `At most ${MAX_REPLAY_TRADES} trades a replay`),
    ...replayOptions,
  }),
]);
export type WebhookReplayInput = z.input<typeof webhookReplayInputSchema>;

/** The buy refusals the failures board counts (the spec's buy errors, and the rate limit and maintenance waits). */
export const REFUSAL_CODES = [
  'item_unavailable',
  'price_changed',
  'price_too_high',
  'too_many_active_trades',
  'insufficient_balance',
  'partner_blocked',
  'rate_limited',
  'maintenance',
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

const utcDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'A day is written YYYY-MM-DD (UTC)')
  .refine((day) => {
    const ms = Date.parse(`${day}T00:00:00.000Z`);
    return Number.isFinite(ms) && new Date(ms).toISOString().startsWith(day);
  }, 'Not a calendar day');

/** A range of UTC days, both ends included: not reversed, at most MAX_FAILURE_DAYS. */
function dayRangeProblem(from: string | undefined, to: string | undefined): string | null {
  if (from === undefined || to === undefined) return null;
  // A malformed day has its own message.
  if (!Number.isFinite(Date.parse(from)) || !Number.isFinite(Date.parse(to))) return null;
  if (from > to) return `The range is reversed: it starts ${from}, after its end ${to}`;
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  if (days > MAX_FAILURE_DAYS) return `A range is at most ${MAX_FAILURE_DAYS} days (${from} to ${to} is ${days})`;
  return null;
}
const checkDayRange = (range: { from?: string | undefined; to?: string | undefined }, ctx: z.RefinementCtx) => {
  const problem = dayRangeProblem(range.from, range.to);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['from'] });
};

/** The failures board's days (UTC, inclusive); left out: the last 30 days to today. */
export const failuresInputSchema = z
  .strictObject({ from: utcDay.optional(), to: utcDay.optional() })
  .default({})
  .superRefine(checkDayRange);
export type FailuresInput = z.input<typeof failuresInputSchema>;

/** The refusals behind one cell of the board: a code over days, or one hour of a day. */
export const refusalsInputSchema = z
  .strictObject({
    from: utcDay,
    to: utcDay,
    hour: z.int().min(0).max(23).nullable().default(null),
    code: z.enum(REFUSAL_CODES).nullable().default(null),
  })
  .superRefine(checkDayRange);
export type RefusalsInput = z.input<typeof refusalsInputSchema>;

const none = z.strictObject({}).default({});
const byTradeId = z.strictObject({ tradeId: id });
const byItemId = z.strictObject({ itemId: z.int().positive() });
const byId = z.strictObject({ id });
/** Re-arming switches a rule on again: its auto-buy buys only new listings unless 'buy' is chosen. */
/** "Restart and install"; `confirmed`: the merchant said yes to installing with auto-buy armed. */
const installUpdateInput = z.strictObject({ confirmed: z.boolean().default(false) });
/** A search link's filters: the text after `search?` (the web host's `#/search?…` route), read and checked in main. */
const searchLinkInput = z.strictObject({ query: z.string().max(MAX_LINK_LENGTH) });
const rearmInput = z.strictObject({ id, existingListings: z.enum(['skip', 'buy']).default('skip') });

/** Every method: its input schema and (as a phantom) its result type. */
function method<I extends z.ZodType, R>(input: I) {
  return { input, result: undefined as unknown as R };
}

export const IPC_METHODS = {
  'app.snapshot': method<typeof none, AppSnapshot>(none),
  'catalog.query': method<typeof catalogQuerySchema, Page<CatalogRow>>(catalogQuerySchema),
  'catalog.item': method<typeof byItemId, ItemDetail | null>(byItemId),
  'catalog.refresh': method<typeof none, { started: boolean; reason: string }>(none),
  'trades.query': method<typeof tradeQuerySchema, Page<Trade>>(tradeQuerySchema),
  'trades.get': method<typeof byTradeId, TradeDetail | null>(byTradeId),
  /** Starts writing the matching trades to a CSV file in the engine; progress and the end come as `exports` events. */
  'trades.exportCsv': method<typeof tradeQuerySchema, ExportStatus>(tradeQuerySchema),
  'wallet.ledger': method<typeof ledgerQuerySchema, Page<LedgerRow>>(ledgerQuerySchema),
  'wallet.balanceSeries': method<typeof ledgerQuerySchema, BalancePoint[]>(ledgerQuerySchema),
  'wallet.exportCsv': method<typeof ledgerQuerySchema, ExportStatus>(ledgerQuerySchema),
  /** Stops a running export; its file is not left behind. */
  'exports.cancel': method<typeof byId, { cancelled: boolean }>(byId),
  /** Desktop only: shows a finished export's file in its folder. */
  'exports.reveal': method<typeof byId, { shown: boolean }>(byId),
  /** The balance runway now; null while no balance is known. */
  'operations.runway': method<typeof none, BalanceRunway | null>(none),
  /** An order's attempts (`ORDER`, `ORDER#2`…) and what "buy the next one" would buy, or why it cannot. */
  'operations.orderChain': method<typeof orderChainInputSchema, OrderChain>(orderChainInputSchema),
  /** Buys the next one of an order, as reviewed (core/operations/nextBuy.ts). */
  'operations.buyNext': method<typeof buyNextInputSchema, BuyOutcome>(buyNextInputSchema),
  /** Trades by order id, trade id, trade URL or partner id, offer id, or item name, from the local history. */
  'operations.lookup': method<typeof orderLookupInputSchema, OrderLookupResult>(orderLookupInputSchema),
  'buy.check': method<typeof buyByIdInputSchema, BuyWarning[]>(buyByIdInputSchema),
  'buy.byId': method<typeof buyByIdInputSchema, BuyOutcome>(buyByIdInputSchema),
  'buy.byName': method<typeof buyByNameInputSchema, BuyOutcome>(buyByNameInputSchema),
  'recipients.list': method<typeof none, Recipient[]>(none),
  'recipients.save': method<typeof recipientInputSchema, Recipient>(recipientInputSchema),
  'recipients.delete': method<typeof byId, { deleted: boolean }>(byId),
  /** Saved catalog searches, by name. */
  'searches.list': method<typeof none, SavedSearch[]>(none),
  'searches.save': method<typeof savedSearchInputSchema, SavedSearch>(savedSearchInputSchema),
  'searches.delete': method<typeof byId, { deleted: boolean }>(byId),
  /** A search link's filters as a saved search's query, or why the link is refused (nothing is saved or opened). */
  'links.search': method<typeof searchLinkInput, SearchLinkResult>(searchLinkInput),
  'alerts.rules': method<typeof none, AlertRule[]>(none),
  'alerts.saveRule': method<typeof alertRuleInputSchema, AlertRule>(alertRuleInputSchema),
  'alerts.deleteRule': method<typeof byId, { deleted: boolean }>(byId),
  'alerts.firings': method<typeof none, AlertFiring[]>(none),
  'alerts.acknowledge': method<typeof byId, AlertFiring | null>(byId),
  'alerts.rearm': method<typeof rearmInput, AlertRule | null>(rearmInput),
  /** What a rule (as it would be saved) matches in the cached catalog now. */
  'alerts.preview': method<typeof alertRuleInputSchema, AutoBuyPreview>(alertRuleInputSchema),
  /** Auto-buy skips folded per rule and UTC day, newest first. */
  'alerts.skips': method<typeof none, AutoBuySkipLine[]>(none),
  'settings.update': method<typeof settingsPatchSchema, AppSettings>(settingsPatchSchema),
  'account.configure': method<typeof accountInputSchema, ConnectionTestResult>(accountInputSchema),
  'account.test': method<typeof accountInputSchema, ConnectionTestResult>(accountInputSchema),
  'account.useDemo': method<typeof none, ConnectionTestResult>(none),
  /** Leave the demo sandbox for the account saved in Settings (its key from the keychain); the choice is kept across restarts. */
  'account.useSaved': method<typeof none, ConnectionTestResult>(none),
  /** "Retry now": reconnect the feed and reconcile at once, without waiting for the next backed-off attempt. */
  'connection.retryNow': method<typeof none, { started: boolean }>(none),
  /** The notification centre: newest first, with the unread count. */
  'notifications.list': method<typeof notificationQuerySchema, NotificationPage>(notificationQuerySchema),
  /** Webhook health: failed deliveries, the pause the cache suggests, the replay log. */
  'operations.webhookHealth': method<typeof none, WebhookHealth>(none),
  /** Recipients: one row per trade-URL owner, with the marketplace's per-recipient limits. */
  'operations.recipients': method<typeof recipientsQuerySchema, RecipientsPage>(recipientsQuerySchema),
  /** One recipient's row; an unknown partner (no trade, no block) is `not_found`. */
  'operations.recipient': method<typeof recipientPartnerSchema, RecipientSummary>(recipientPartnerSchema),
  /** Reversals: the value still reversible, its release by day, the reversed trades and who reversed. */
  'operations.reversals': method<typeof reversalsQuerySchema, ReversalExposure>(reversalsQuerySchema),
  /** The recipients who reversed, as CSV (partner, label, reversed, delivered, trades). */
  'operations.reversersCsv': method<typeof none, { filename: string; csv: string }>(none),
  /** Re-sends failed deliveries' trade_updated bodies to the merchant's webhook, signed as the marketplace signs them. */
  'operations.replayWebhooks': method<typeof webhookReplayInputSchema, WebhookReplayOutcome>(webhookReplayInputSchema),
  /** The failures board: failed trades by outcome code and buy refusals by code, per day and per hour of today. */
  'operations.failures': method<typeof failuresInputSchema, FailuresBoard>(failuresInputSchema),
  'operations.failuresCsv': method<typeof failuresInputSchema, { filename: string; csv: string }>(failuresInputSchema),
  /** The buy refusals behind a cell of the board, newest first (at most REFUSAL_LIST_LIMIT). */
  'operations.refusals': method<typeof refusalsInputSchema, BuyRefusal[]>(refusalsInputSchema),
  /** Desktop only: the app update's state (null in the web host, which has no updates). */
  'updates.status': method<typeof none, UpdateStatus | null>(none),
  /** Desktop only: install a downloaded update now (see UpdateInstallResult). */
  'updates.install': method<typeof installUpdateInput, UpdateInstallResult>(installUpdateInput),
  'notifications.markRead': method<typeof notificationMarkReadSchema, { marked: number; unread: number }>(
    notificationMarkReadSchema,
  ),
  /** Desktop only: shows a desktop notification now (Settings → "Send a test notification"); `detail` says what happened. */
  'notifications.test': method<typeof none, { shown: boolean; detail: string }>(none),
} as const;

export type IpcMethod = keyof typeof IPC_METHODS;
export type IpcInput<M extends IpcMethod> = z.input<(typeof IPC_METHODS)[M]['input']>;
export type IpcParsedInput<M extends IpcMethod> = z.output<(typeof IPC_METHODS)[M]['input']>;
export type IpcResult<M extends IpcMethod> = (typeof IPC_METHODS)[M]['result'];

/** Errors cross the boundary as data (Electron reduces thrown errors to their message). */
export interface IpcError {
  code: 'invalid_input' | 'not_found' | 'unavailable' | 'internal' | string;
  message: string;
}

export type IpcEnvelope<T> = { ok: true; value: T } | { ok: false; error: IpcError };

/** What the renderer holds: one call function and one event subscription. */
export interface MerchantDeskBridge {
  call<M extends IpcMethod>(method: M, input: IpcInput<M>): Promise<IpcEnvelope<IpcResult<M>>>;
  /** Coalesced event batches; returns an unsubscribe function. */
  subscribe(listener: (batch: EngineEventBatch) => void): () => void;
  /** Which host the renderer runs in, for the few things that differ (web notifications). */
  readonly host: 'electron' | 'web';
}

export const IPC_EVENT_CHANNEL = 'merchant-desk:events';
export const IPC_CALL_CHANNEL = 'merchant-desk:call';
