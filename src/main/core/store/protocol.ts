/**
 * What the host and a store worker say to each other: the calls each worker object serves (the host's LocalStore
 * is built from this list and typed from those objects' methods), and the messages that carry them.
 */
import type { SerializedStoreError } from './errors';
import type { CatalogSyncProgress } from './types';
import type { CatalogWriter } from '../catalog/catalogWriter';
import type { ReaderService } from './worker/reader';
import type { RecordsWriter } from './worker/recordsWriter';

/** The store's calls by the worker object that serves them; a worker serves these names and no others. */
export const STORE_METHODS = {
  reader: [
    'queryCatalog',
    'getItem',
    'findItemsByIds',
    'nameMarkets',
    'matchingItemIds',
    'catalogInfo',
    'queryTrades',
    'getTrade',
    'activeTrades',
    'findTradeByExternalId',
    'queryLedger',
    'balanceSeries',
    'exportTradesChunk',
    'exportLedgerChunk',
    'latestLedgerCreatedAt',
    'ledgerSpend',
    'orderChainTrades',
    'orderChainRefusals',
    'lookupTrades',
    'listRecipients',
    'getRecipient',
    'listAlertRules',
    'listFirings',
    'firingKeys',
    'unacknowledgedFiringCount',
    'autoBuyDay',
    'unresolvedAutoBuys',
    'autoBuySkips',
    'autoBuyBaseline',
    'getMeta',
    'listNotifications',
    'unreadNotificationCount',
    'listSearches',
    'webhookHealthRows',
    'recipientRows',
    'partnerBlocks',
    'exposureRows',
    'webhookLastDeliveredCreatedAt',
    'webhookNewestFailed',
    'webhookReplayCandidates',
    'failureRows',
    'buyRefusals',
  ],
  catalog: ['applyItemChanges'],
  records: [
    'upsertTrades',
    'applyTradeUpdate',
    'insertLedger',
    'saveRecipient',
    'deleteRecipient',
    'saveAlertRule',
    'deleteAlertRule',
    'setAlertRuleEnabled',
    'replayAutoBuys',
    'settleAutoBuy',
    'recordFiring',
    'acknowledgeFiring',
    'setFiringAutoBuy',
    'deleteFiringsForRule',
    'setAutoBuyBaseline',
    'setMeta',
    'insertNotifications',
    'markNotificationsRead',
    'saveSearch',
    'deleteSearch',
    'recordBuyRefusal',
  ],
} as const satisfies {
  reader: readonly (keyof ReaderService)[];
  catalog: readonly (keyof CatalogWriter)[];
  records: readonly (keyof RecordsWriter)[];
};

export type StoreMethodOwner = keyof typeof STORE_METHODS;
type MethodsOf<O extends StoreMethodOwner> = (typeof STORE_METHODS)[O][number];
type Promised<T> = {
  [M in keyof T]: T[M] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/** The calls as the host makes them: each method of its worker object, answered by a promise. */
export type StoreCalls = Promised<
  Pick<ReaderService, MethodsOf<'reader'>> &
    Pick<CatalogWriter, MethodsOf<'catalog'>> &
    Pick<RecordsWriter, MethodsOf<'records'>>
>;

/** A reader boots at once but opens the file on an `open` message: meanwhile the writer creates and migrates it. */
export interface WorkerInit {
  role: 'writer' | 'reader';
  file: string;
}

// ---- Messages between the host and a worker

export type HostMessage =
  | { kind: 'open' }
  | { kind: 'call'; id: number; method: string; args: unknown[] }
  | { kind: 'abort'; id: number }
  | { kind: 'close'; id: number };

/** A result of id 0 is the thread's first: it opened the file (its value: the writer's migratedFrom), or why not. */
export type WorkerMessage =
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: SerializedStoreError }
  | { kind: 'progress'; id: number; progress: CatalogSyncProgress };
