import { z } from 'zod';
import { MAX_EXTERNAL_ID_LENGTH, TRADE_STATUSES_ACCEPTED, TRANSACTION_TYPES } from '../api';
import { utcTimestampSchema } from '../time';
import { offset, pageLimit } from './schemaFields';

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
