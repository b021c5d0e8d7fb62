export { LocalStore, resolveWorkerEntry, safeFileName, type CatalogSyncOptions, type LocalStoreOptions, type SlowCall } from './localStore';
export {
  CatalogSyncError,
  StoreClosedError,
  StoreCorruptError,
  StoreError,
  StoreReadOnlyError,
  StoreVersionError,
  type CatalogSyncFailure,
  type StoreErrorCode,
} from './errors';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations';
export { DEFAULT_SETTINGS } from './worker/rows';
export { packPriceChanges, priceChangeOutcome } from './priceChanges';
export type * from './types';
