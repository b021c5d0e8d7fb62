import { z } from 'zod';
import { utcTimestampSchema } from '../time';
import { tradeStatusSchema } from './enums';
import { itemSchema } from './resources';

/** The fields shared by the trade_updated webhook body and WebSocket frame. */
export const tradeUpdateFields = {
  tradeId: z.string(),
  status: tradeStatusSchema,
  externalId: z.string().nullable(),
  offerId: z.string().nullable(),
  failReason: z.string().nullable(),
  errorCode: z.int().nullable(),
};

// ---- Webhook bodies (header x-webhook-type names the kind)

export const tradeUpdatedWebhookSchema = z.object(tradeUpdateFields);
export type TradeUpdatedWebhook = z.infer<typeof tradeUpdatedWebhookSchema>;

export const itemRemovedWebhookSchema = z.object({ itemId: z.int().positive() });
export type ItemRemovedWebhook = z.infer<typeof itemRemovedWebhookSchema>;

export const refreshCatalogWebhookSchema = z.object({ type: z.literal('refresh_catalog') });
export type RefreshCatalogWebhook = z.infer<typeof refreshCatalogWebhookSchema>;

export const testWebhookSchema = z.object({
  event: z.literal('test'),
  message: z.string(),
  timestamp: utcTimestampSchema,
});
export type TestWebhook = z.infer<typeof testWebhookSchema>;

export const webhookBodySchemas = {
  trade_updated: tradeUpdatedWebhookSchema,
  item_removed: itemRemovedWebhookSchema,
  refresh_catalog: refreshCatalogWebhookSchema,
  test: testWebhookSchema,
} as const;

export type WebhookBodyByKind = { [K in keyof typeof webhookBodySchemas]: z.infer<(typeof webhookBodySchemas)[K]> };

// ---- WebSocket frames

export const connectedFrameSchema = z.object({ type: z.literal('connected'), merchantId: z.string() });
export const tradeUpdatedFrameSchema = z.object({ type: z.literal('trade_updated'), ...tradeUpdateFields });
export const itemRemovedFrameSchema = z.object({
  type: z.literal('item_removed'),
  itemIds: z.array(z.int().positive()),
});
export const itemUpsertedFrameSchema = z.object({ type: z.literal('item_upserted'), items: z.array(itemSchema) });
export const priceChangeSchema = z.object({ itemId: z.int().positive(), price: z.int() });
export const priceChangedFrameSchema = z.object({
  type: z.literal('price_changed'),
  items: z.array(priceChangeSchema),
});

export const feedFrameSchema = z.discriminatedUnion('type', [
  connectedFrameSchema,
  tradeUpdatedFrameSchema,
  itemRemovedFrameSchema,
  itemUpsertedFrameSchema,
  priceChangedFrameSchema,
]);
export type FeedFrame = z.infer<typeof feedFrameSchema>;
export type TradeUpdatedFrame = z.infer<typeof tradeUpdatedFrameSchema>;
export type ItemUpsertedFrame = z.infer<typeof itemUpsertedFrameSchema>;
export type PriceChange = z.infer<typeof priceChangeSchema>;

/**
 * Close codes of the sandbox's feed (the spec does not give them; docs/sandbox.md).
 * 4001 bad credentials after upgrade is never used: the upgrade itself is refused with 401.
 */
export const FEED_CLOSE_CODES = {
  connectionLimit: 4008,
  maintenance: 4503,
  credentialsChanged: 4001,
} as const;
