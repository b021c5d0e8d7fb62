/**
 * The bounds of AppSettings.bulkSharePercent, the share of the API's request budget the desk's background work may
 * use: it always gets some, and never all of it (buys and the merchant's own back end share the key).
 */
export const BULK_SHARE_PERCENT_MIN = 10;
export const BULK_SHARE_PERCENT_MAX = 90;
export const DEFAULT_BULK_SHARE_PERCENT = 50;
