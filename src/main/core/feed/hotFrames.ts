import type { FeedFrame } from '../../../shared/api';

/**
 * `price_changed` and `item_removed` are what a busy market sends most, and the feed's thread relays every
 * event: their schema check cost as much again as JSON.parse of the frame (~0.2 µs an event warm, ~0.01 µs
 * by hand; zod was 1.4 s of that thread's CPU in a profiled live-events run). They are checked here by
 * hand, to the letter of their schemas (shared/api/events.ts: safe integers, ids positive, unknown keys
 * dropped). A frame these checks refuse, and every other kind, goes through the schema, which also words
 * the error: this only ever accepts what the schema accepts (test/core/hotFrames.test.ts).
 */
export function parseHotFrame(json: unknown): FeedFrame | null {
  if (typeof json !== 'object' || json === null) return null;
  const frame = json as { type?: unknown; items?: unknown; itemIds?: unknown };
  if (frame.type === 'price_changed') return priceChanged(frame.items);
  if (frame.type === 'item_removed') return itemRemoved(frame.itemIds);
  return null;
}

const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

function priceChanged(items: unknown): FeedFrame | null {
  if (!Array.isArray(items)) return null;
  const changes: { itemId: number; price: number }[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
    const { itemId, price } = item as { itemId?: unknown; price?: unknown };
    if (!isId(itemId) || !Number.isSafeInteger(price)) return null;
    changes[i] = { itemId, price: price as number };
  }
  return { type: 'price_changed', items: changes };
}

function itemRemoved(itemIds: unknown): FeedFrame | null {
  if (!Array.isArray(itemIds)) return null;
  for (let i = 0; i < itemIds.length; i++) if (!isId(itemIds[i])) return null;
  return { type: 'item_removed', itemIds: itemIds as number[] };
}
