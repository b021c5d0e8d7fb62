import type { PriceChange, TradeUpdatedWebhook } from '../../shared/api';
import type { ItemRecord, Reveal } from '../domain/itemRecord';
import { serializeItem } from '../domain/itemRecord';

/**
 * Feed frames as JSON text, built by concatenation: item JSON is stored as text
 * already, and a frame goes to many sockets, so nothing is parsed or re-stringified.
 */

/** Largest item array in one frame; a bigger batch goes out as several frames of the same type, in order. */
export const MAX_ITEMS_PER_FRAME = 10_000;

export function connectedFrame(merchantId: string): string {
  return `{"type":"connected","merchantId":${JSON.stringify(merchantId)}}`;
}

export function tradeUpdatedFrame(update: TradeUpdatedWebhook): string {
  return JSON.stringify({
    type: 'trade_updated',
    tradeId: update.tradeId,
    status: update.status,
    externalId: update.externalId,
    offerId: update.offerId,
    failReason: update.failReason,
    errorCode: update.errorCode,
  });
}

export function itemRemovedFrame(itemIds: readonly number[]): string {
  return `{"type":"item_removed","itemIds":[${itemIds.join(',')}]}`;
}

export function priceChangedFrame(changes: readonly PriceChange[]): string {
  let body = '';
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i] as PriceChange;
    body += `${i === 0 ? '' : ','}{"itemId":${change.itemId},"price":${change.price}}`;
  }
  return `{"type":"price_changed","items":[${body}]}`;
}

export function itemUpsertedFrame(records: readonly ItemRecord[], reveal: Reveal): string {
  let body = '';
  for (let i = 0; i < records.length; i++) {
    body += (i === 0 ? '' : ',') + serializeItem(records[i] as ItemRecord, reveal);
  }
  return `{"type":"item_upserted","items":[${body}]}`;
}

/** The 8 combinations of reveal flags, as a small integer: one serialization per combination. */
export function revealKey(reveal: Reveal): number {
  return (reveal.steamId ? 1 : 0) | (reveal.inspectInGame ? 2 : 0) | (reveal.tradeUrl ? 4 : 0);
}

/** One pending frame (or run of frames, when over MAX_ITEMS_PER_FRAME) of the current event-loop turn. */
export type PendingFrame =
  | { type: 'item_removed'; parts: (readonly number[])[]; count: number }
  | { type: 'price_changed'; parts: (readonly PriceChange[])[]; count: number }
  | { type: 'item_upserted'; parts: (readonly ItemRecord[])[]; count: number }
  | { type: 'trade_updated'; merchantId: string; update: TradeUpdatedWebhook };

type ItemFrameType = Exclude<PendingFrame['type'], 'trade_updated'>;
type PartOf<T extends ItemFrameType> = Extract<PendingFrame, { type: T }>['parts'][number];

/**
 * Events of one event-loop turn, in order. Consecutive events of one item type
 * merge into one frame; any other event in between starts a new frame, so the
 * order seen by a client is the order of the events.
 */
export class FrameQueue {
  private frames: PendingFrame[] = [];

  get isEmpty(): boolean {
    return this.frames.length === 0;
  }

  addItems<T extends ItemFrameType>(type: T, part: PartOf<T>): void {
    if (part.length === 0) return;
    const last = this.frames[this.frames.length - 1];
    if (last && last.type === type) {
      // The array is kept as given (never copied or mutated) and read at flush time.
      (last.parts as PartOf<T>[]).push(part);
      last.count += part.length;
      return;
    }
    this.frames.push({ type, parts: [part], count: part.length } as PendingFrame);
  }

  addTrade(merchantId: string, update: TradeUpdatedWebhook): void {
    this.frames.push({ type: 'trade_updated', merchantId, update });
  }

  take(): PendingFrame[] {
    const frames = this.frames;
    this.frames = [];
    return frames;
  }
}

/** The parts of a merged frame cut into arrays of at most `max` elements, in order. */
export function chunked<T>(
  parts: readonly (readonly T[])[],
  count: number,
  max = MAX_ITEMS_PER_FRAME,
): readonly (readonly T[])[] {
  if (parts.length === 1 && count <= max) return parts;
  const chunks: T[][] = [];
  let current: T[] = [];
  for (const part of parts) {
    for (const element of part) {
      current.push(element);
      if (current.length === max) {
        chunks.push(current);
        current = [];
      }
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
