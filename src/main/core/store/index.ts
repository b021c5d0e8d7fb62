export { LocalStore, resolveWorkerEntry, type CatalogSyncOptions, type LocalStoreOptions } from './localStore';
export { CatalogSyncError, StoreError, type CatalogSyncFailure, type StoreErrorCode } from './errors';
export { CACHE_VERSION, SCHEMA_VERSION } from './schema';
export { itemFilter, type ItemTest } from './worker/catalogQuery';
export { packPriceChanges, priceChangeOutcome } from './priceChanges';
export type * from './types';
