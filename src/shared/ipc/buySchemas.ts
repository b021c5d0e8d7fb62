import { z } from 'zod';
import { MAX_NAME_LENGTH, MAX_TRADE_URL_LENGTH } from '../api';
import { externalId, id, tradeDuration } from './schemaFields';

/** A recipient is a saved trade URL or one pasted for this buy. */
const recipientChoice = z.union([
  z.strictObject({ recipientId: id }),
  z.strictObject({ tradeUrl: z.string().max(MAX_TRADE_URL_LENGTH) }),
]);

/** The recipient a buy dialog has chosen, for its standing against the per-recipient limits before Review. */
export const buyRecipientInputSchema = z.strictObject({ recipient: recipientChoice });
export type BuyRecipientInput = z.infer<typeof buyRecipientInputSchema>;

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
    .min(1, { error: 'Type an order id, trade id, trade URL, partner or steam id, offer id or item name to look up' })
    .max(MAX_LOOKUP_LENGTH, { error: `A look-up is at most ${MAX_LOOKUP_LENGTH} characters` }),
});

export const recipientInputSchema = z.strictObject({
  id: id.optional(),
  label: z.string().trim().min(1).max(80),
  tradeUrl: z.string().max(MAX_TRADE_URL_LENGTH),
});
export type RecipientInput = z.infer<typeof recipientInputSchema>;
