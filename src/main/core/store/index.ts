export { LocalStore, resolveWorkerEntry, type CatalogSyncOptions, type LocalStoreOptions } from './localStore';
export { CatalogSyncError, StoreError, type CatalogSyncFailure, type StoreErrorCode } from './errors';
export { CACHE_VERSION, SCHEMA_VERSION } from './schema';
export type * from './types';
