import { feedFrameSchema } from '../../../shared/api';

/**
 * zod builds a schema's fast path the first time it parses a value, and V8 compiles the code on that
 * path when it first runs: the first `item_upserted` frame of a process took 4–5 ms to validate, against
 * ~2 µs later. That frame may be the one an auto-buy races for, so the feed validates one sample frame
 * of each kind when it starts, before anything arrives. Once per process; nothing is kept.
 */
let warmed = false;

const SAMPLE_ITEM = {
  itemId: 1,
  assetId: '1',
  classId: '1',
  instanceId: '0',
  paintIndex: 1,
  paintSeed: 1,
  rarityColor: null,
  market_hash_name: 'Warm-up',
  img: null,
  phase: null,
  price: 1,
  float: 0.5,
  stickers: [{ name: 'Sticker', img: '', slot: 0, wear: 0.5, wearPercent: '50%' }],
  keyChains: [{ name: 'Charm', img: '', slot: 0, pattern: 1 }],
  steamId: null,
  inspectInGame: null,
  tradeUrl: null,
};

const SAMPLE_FRAMES: readonly { type: string; [field: string]: unknown }[] = [
  { type: 'connected', merchantId: 'warm-up' },
  { type: 'item_upserted', items: [SAMPLE_ITEM] },
  { type: 'price_changed', items: [{ itemId: 1, price: 1 }] },
  { type: 'item_removed', itemIds: [1] },
];

/** Whether every sample validated, and their kinds (a test checks both: a sample the schema refuses warms only the error path). */
export function warmFrameValidation(): { valid: boolean; kinds: string[] } {
  let valid = true;
  for (const frame of SAMPLE_FRAMES) valid = feedFrameSchema.safeParse(frame).success && valid;
  warmed = true;
  return { valid, kinds: SAMPLE_FRAMES.map((frame) => frame.type) };
}

export function warmFrameValidationOnce(): void {
  if (!warmed) warmFrameValidation();
}
