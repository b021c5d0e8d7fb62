/** Limits named by the Merchant Trading API spec ("Limits" section). */

export const RATE_LIMIT_WINDOW_MS = 60_000;
/** GET /Items/GetAllItemsOnSale requests per window. */
export const CATALOG_RATE_LIMIT_PER_MINUTE = 10;
/** Every other endpoint, per window. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 300;

export const SEARCH_MAX_NAMES = 10;
export const SEARCH_MAX_ITEM_IDS = 500;

export const HISTORY_DEFAULT_LIMIT = 50;
export const HISTORY_MAX_LIMIT = 500;
export const HISTORY_DEFAULT_PAGE = 1;

/** `isActive=true` returns trades created within this window, unpaged. */
export const ACTIVE_TRADES_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

export const TRADE_DURATION_MIN_SECONDS = 600;
export const TRADE_DURATION_MAX_SECONDS = 43_200;
export const TRADE_DURATION_DEFAULT_SECONDS = 1800;

/** Active offers (PENDING, SENT, CREATING) per trade URL owner. */
export const MAX_ACTIVE_TRADES_PER_OWNER = 30;
/** Active offers per platform account holding the item. */
export const MAX_ACTIVE_TRADES_PER_HOLDER = 5;

/** Declines or expiries within the window that block a trade URL owner. */
export const PARTNER_BLOCK_THRESHOLD = 10;
export const PARTNER_BLOCK_WINDOW_MS = 24 * 60 * 60 * 1000;

export const IP_ALLOWLIST_MAX_ENTRIES = 20;
export const WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT = 3;

export const WEBHOOK_FIRST_PAUSE_MS = 15 * 60 * 1000;
export const WEBHOOK_MAX_PAUSE_MS = 4 * 60 * 60 * 1000;

/** The n-th pause (1-based) of a merchant's webhook breaker: 15, 30, 60, 120, 240, 240… minutes. */
export function webhookPauseMs(pause: number): number {
  return Math.min(WEBHOOK_FIRST_PAUSE_MS * 2 ** Math.max(0, pause - 1), WEBHOOK_MAX_PAUSE_MS);
}

/** The on-sale list is rebuilt about this often. */
export const CATALOG_REBUILD_INTERVAL_MS = 5 * 60 * 1000;

export const PAINT_SEED_MAX = 999;
