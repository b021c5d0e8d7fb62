import { z } from 'zod';
import { MAX_EXTERNAL_ID_LENGTH, TRADE_DURATION_MAX_SECONDS, TRADE_DURATION_MIN_SECONDS } from '../api';

/** The fields the contract's input schemas share. */
export const id = z.string().min(1).max(128);
export const cents = z.int().min(0).max(1e12);
/** Up to a year of a busy merchant's ledger (about 11 million entries) and more. */
export const offset = z.int().min(0).max(100_000_000).default(0);
export const pageLimit = z.int().min(1).max(1000).default(200);
export const tradeDuration = z.int().min(TRADE_DURATION_MIN_SECONDS).max(TRADE_DURATION_MAX_SECONDS);
export const externalId = z.string().min(1).max(MAX_EXTERNAL_ID_LENGTH);
