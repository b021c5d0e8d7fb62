import { EventEmitter } from 'node:events';
import type { PriceChange, TradeUpdatedWebhook } from '../../shared/api';
import type { ItemRecord } from './itemRecord';

/**
 * What happened inside the sandbox, for the WebSocket feed and webhooks.
 * Emitted after the change is committed.
 */
export interface SandboxEventMap {
  tradeUpdated: [merchantId: string, update: TradeUpdatedWebhook];
  itemsRemoved: [itemIds: number[]];
  itemsUpserted: [items: ItemRecord[]];
  pricesChanged: [changes: PriceChange[]];
  catalogRebuilt: [lastUpdate: string];
}

export class SandboxEvents extends EventEmitter<SandboxEventMap> {}
