/**
 * The API's enumerations as plain values, without zod: the renderer imports
 * these (a zod import would put the whole schema library into its bundle).
 * enums.ts adds the schemas.
 */
/** Statuses listed in "States and transitions", in lifecycle order. */
export const TRADE_STATUSES = [
  'PENDING',
  'SENT',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REVERSED',
  'REJECTED',
] as const;
/**
 * The active-trade limit names `CREATING` although the status list does not:
 * clients accept it, the sandbox never emits it (docs/sandbox.md).
 */
export const TRADE_STATUSES_ACCEPTED = [...TRADE_STATUSES, 'CREATING'] as const;

/** Statuses that count against the active-offer limits. */
export const ACTIVE_TRADE_STATUSES = ['PENDING', 'SENT', 'CREATING'] as const satisfies readonly TradeStatus[];
/** Statuses from which a trade never moves again. */
export const FINAL_TRADE_STATUSES = [
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REVERSED',
  'REJECTED',
] as const satisfies readonly TradeStatus[];

export function isActiveStatus(status: TradeStatus): boolean {
  return (ACTIVE_TRADE_STATUSES as readonly TradeStatus[]).includes(status);
}

export const TRANSACTION_TYPES = [
  'ADMIN TOP UP',
  'BUY COMPLETED',
  'BUY CANCELLED',
  'ADMIN DEDUCT',
  'TRADE ROLLBACK',
  'CRYPTO DEPOSIT',
  'FREEZE',
] as const;

export const WEBHOOK_STATUSES = ['sent', 'failed'] as const;

export const WEBHOOK_KINDS = ['trade_updated', 'item_removed', 'refresh_catalog', 'test'] as const;

export const RARITY_COLORS = ['#b0c3d9', '#5e98d9', '#4b69ff', '#8847ff', '#d32ce6', '#eb4b4b', '#e4ae39'] as const;

/** Trade errorCode values of the outcome table. */
export const TRADE_ERROR_CODES = {
  failed: 500,
  expired: 503,
  declined: 504,
  itemsInvalid: 505,
  countered: 506,
  reversed: 512,
} as const;

/**
 * `error` codes of the error envelope. The spec leaves the 429 and 500 codes
 * unnamed; `rate_limited`, `internal_error`, `not_found`, `payload_too_large`
 * and `request_timeout` are the sandbox's choice (docs/sandbox.md). Clients
 * must accept unknown codes.
 */
export const API_ERROR_CODES = [
  'unauthorized',
  'ip_not_allowed',
  'maintenance',
  'unavailable',
  'rate_limited',
  'internal_error',
  'not_found',
  'payload_too_large',
  'request_timeout',
  'invalid_request',
  'item_unavailable',
  'asset_mismatch',
  'price_changed',
  'price_too_high',
  'invalid_tradeurl',
  'duplicate_external_id',
  'insufficient_balance',
  'invalid_price',
  'invalid_trade_duration',
  'partner_blocked',
  'too_many_active_trades',
] as const;

export type TradeStatus = (typeof TRADE_STATUSES_ACCEPTED)[number];
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];
export type RarityColor = (typeof RARITY_COLORS)[number];
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];
