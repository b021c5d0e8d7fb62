import { z } from 'zod';
import {
  API_ERROR_CODES,
  RARITY_COLORS,
  TRADE_STATUSES_ACCEPTED,
  TRANSACTION_TYPES,
  WEBHOOK_KINDS,
  WEBHOOK_STATUSES,
} from './values';

export * from './values';

export const tradeStatusSchema = z.enum(TRADE_STATUSES_ACCEPTED);
export const transactionTypeSchema = z.enum(TRANSACTION_TYPES);
export const webhookStatusSchema = z.enum(WEBHOOK_STATUSES);
export const webhookKindSchema = z.enum(WEBHOOK_KINDS);
export const rarityColorSchema = z.enum(RARITY_COLORS);
export const apiErrorCodeSchema = z.enum(API_ERROR_CODES);
