import { z } from 'zod';
import type { Trade } from '../api';
import { MAX_LINK_LENGTH, type SearchLinkResult } from '../deepLinks';
import { alertRuleInputSchema } from './alertSchemas';
import {
  buyByIdInputSchema,
  buyByNameInputSchema,
  buyNextInputSchema,
  buyRecipientInputSchema,
  orderChainInputSchema,
  orderLookupInputSchema,
  recipientInputSchema,
} from './buySchemas';
import { catalogQuerySchema, savedSearchInputSchema, type SavedSearch } from './catalogSchemas';
import type { EngineEventBatch } from './events';
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
import { notificationMarkReadSchema, notificationQuerySchema } from './notificationSchemas';
import type {
  BuyRefusal,
  FailuresBoard,
  RecipientStanding,
  RecipientSummary,
  ReversalExposure,
  RecipientsPage,
  WebhookHealth,
  WebhookReplayOutcome,
} from './operations';
import {
  failuresInputSchema,
  recipientPartnerSchema,
  recipientsQuerySchema,
  reversalsQuerySchema,
  refusalsInputSchema,
  webhookReplayInputSchema,
} from './operationsSchemas';
import { id } from './schemaFields';
import { accountInputSchema, settingsPatchSchema } from './settingsSchemas';
import { ledgerQuerySchema, tradeQuerySchema } from './tradeSchemas';
import type { UpdateInstallResult, UpdateStatus } from './updates';

// The input schemas, by area; this file composes them into the method table.
export * from './alertSchemas';
export * from './buySchemas';
export * from './catalogSchemas';
export * from './notificationSchemas';
export * from './operationsSchemas';
export * from './settingsSchemas';
export * from './tradeSchemas';

/**
 * The one contract between the engine and any UI: method name → input schema
 * (validated in main before anything reaches the core) and result type. The
 * Electron preload and the web host both implement it, so the renderer cannot
 * tell them apart.
 */

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
  /** The chosen recipient's standing against the per-recipient limits, from the cache (the dialogs, before Review). */
  'buy.recipient': method<typeof buyRecipientInputSchema, RecipientStanding>(buyRecipientInputSchema),
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
  /** The recipients who reversed a trade themselves, as CSV (partner, label, reversed_by_recipient, reversed, delivered, trades). */
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
