import { z } from 'zod';
import { utcTimestampSchema } from '../time';
import { rarityColorSchema, tradeStatusSchema, transactionTypeSchema, webhookStatusSchema } from './enums';
import { PAINT_SEED_MAX } from './limits';

/**
 * Response resources. Objects strip unknown keys (a newer server may add
 * fields); missing or mistyped fields fail with a path-named issue.
 */

const cents = z.int();
const nullableString = z.string().nullable();

/**
 * Percentage points a value may fall short of a whole percent and still count as it: more than
 * binary floating point loses on decimal wears ((1 − 0.9) × 100 = 9.999999999999998; a 32-bit
 * wear of 0.3 is 0.30000001192…, giving 69.9999988), far less than any real difference in wear.
 */
export const WEAR_PERCENT_EPSILON = 1e-5;

/**
 * `floor((1 - wear) * 100)` followed by `%`, null when wear is null: `100%` for wear 0 only (any
 * scratch, even 5.49e-8, is `99%`), `0%` for wear 1, `10%` for wear 0.9 (not the `9%` that plain
 * floating point gives; see WEAR_PERCENT_EPSILON).
 */
export function wearPercentOf(wear: number | null): string | null {
  if (wear === null) return null;
  const percent = Math.floor((1 - wear) * 100 + WEAR_PERCENT_EPSILON);
  // The epsilon must not lift a scratched sticker to 100%: below 100 is exact for any wear > 0.
  const highest = wear > 0 ? 99 : 100;
  return `${Math.min(highest, Math.max(0, percent))}%`;
}

export const stickerSchema = z.object({
  name: z.string(),
  img: z.string(),
  slot: z.int(),
  wear: z.number().min(0).max(1).nullable(),
  wearPercent: z
    .string()
    .regex(/^\d{1,3}%$/)
    .nullable(),
  rotation: z.number().optional(),
  offsetX: z.number().optional(),
  offsetY: z.number().optional(),
});
export type Sticker = z.infer<typeof stickerSchema>;

export const keyChainSchema = z.object({
  name: z.string(),
  img: z.string(),
  slot: z.int(),
  pattern: z.int().optional(),
  rotation: z.number().optional(),
  offsetX: z.number().optional(),
  offsetY: z.number().optional(),
  offsetZ: z.number().optional(),
});
export type KeyChain = z.infer<typeof keyChainSchema>;

export const itemSchema = z.object({
  itemId: z.int().positive(),
  assetId: z.string(),
  classId: z.string(),
  instanceId: z.string(),
  paintIndex: z.int().min(0).nullable(),
  paintSeed: z.int().min(0).max(PAINT_SEED_MAX).nullable(),
  rarityColor: rarityColorSchema.nullable(),
  market_hash_name: z.string(),
  img: nullableString,
  phase: nullableString,
  price: cents,
  float: z.number().min(0).max(1).nullable(),
  stickers: z.array(stickerSchema),
  keyChains: z.array(keyChainSchema),
  steamId: nullableString,
  inspectInGame: nullableString,
  tradeUrl: nullableString,
});
export type Item = z.infer<typeof itemSchema>;

/** The fields an administrator must enable per merchant; null otherwise. */
export const REVEALED_ITEM_FIELDS = ['steamId', 'inspectInGame', 'tradeUrl'] as const;
export type RevealedItemField = (typeof REVEALED_ITEM_FIELDS)[number];

export const catalogEnvelopeSchema = z.object({
  totalItems: z.int().min(0),
  totalValue: cents,
  items: z.array(itemSchema),
  lastUpdate: utcTimestampSchema,
});
export type CatalogEnvelope = z.infer<typeof catalogEnvelopeSchema>;

export const balanceSchema = z.object({
  balance: cents,
  credit_limit: cents,
  total_available: cents,
});
export type Balance = z.infer<typeof balanceSchema>;

export const balanceTransactionSchema = z.object({
  id: z.int(),
  type: transactionTypeSchema,
  amount: cents,
  balanceBefore: cents,
  balanceAfter: cents,
  tradeId: nullableString,
  note: nullableString,
  createdAt: utcTimestampSchema,
  market_hash_name: nullableString,
  phase: nullableString,
});
export type BalanceTransaction = z.infer<typeof balanceTransactionSchema>;

export const buyResultSchema = z.object({
  tradeId: z.string(),
  tradeUrl: z.string(),
  assetId: z.string(),
  market_hash_name: z.string(),
  phase: nullableString,
  float: z.number().nullable(),
  price: cents,
  externalId: nullableString,
});
export type BuyResult = z.infer<typeof buyResultSchema>;

export const tradeStageSchema = z.union([z.literal(1), z.literal(2)]);

export const tradeSchema = z.object({
  tradeId: z.string(),
  externalId: nullableString,
  status: tradeStatusSchema,
  price: cents,
  itemId: z.int(),
  assetId: z.string(),
  offerId: nullableString,
  tradeUrl: z.string(),
  market_hash_name: z.string(),
  phase: nullableString,
  float: z.number().nullable(),
  webhookStatus: webhookStatusSchema.nullable(),
  failReason: nullableString,
  errorCode: z.int().nullable(),
  createdAt: utcTimestampSchema,
  updatedAt: utcTimestampSchema,
  completedAt: utcTimestampSchema.nullable(),
  cancelledAt: utcTimestampSchema.nullable(),
  endProtection: utcTimestampSchema.nullable(),
  rollbackAt: utcTimestampSchema.nullable(),
  stage: tradeStageSchema,
});
export type Trade = z.infer<typeof tradeSchema>;

const pagingFields = {
  total: z.int().min(0),
  limit: z.int().min(0),
  page: z.int().min(1),
};

export const tradeHistoryPageSchema = z.object({ trades: z.array(tradeSchema), ...pagingFields });
export type TradeHistoryPage = z.infer<typeof tradeHistoryPageSchema>;

export const balanceHistoryPageSchema = z.object({ transactions: z.array(balanceTransactionSchema), ...pagingFields });
export type BalanceHistoryPage = z.infer<typeof balanceHistoryPageSchema>;

export const errorEnvelopeSchema = z.object({
  // Any string: clients must cope with codes this version does not know.
  error: z.string(),
  message: z.string(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
