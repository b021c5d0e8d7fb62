/**
 * The writer thread's service: the only read-write connection. Catalog changes (../../catalog/catalogWriter.ts, the
 * streaming sync in catalogSync.ts), the user's records (recordsWriter.ts) and a new cache's trade window
 * (tradeWindow.ts) answer its methods.
 */
import type { CatalogSyncRequest, CatalogSyncResult, TradeWindowRequest, TradeWindowResult } from '../types';
import { CatalogWriter } from '../../catalog/catalogWriter';
import { runCatalogSync, type SyncContext } from '../../catalog/catalogSync';
import { openConnection, type Db } from './open';
import { RecordsWriter } from './recordsWriter';
import { runTradeWindow } from './tradeWindow';

export type { SyncContext };

export class WriterService {
  readonly db: Db;
  readonly migratedFrom: number | null;
  readonly catalog: CatalogWriter;
  readonly records: RecordsWriter;

  constructor(readonly file: string) {
    const { db, migratedFrom } = openConnection(file, false);
    this.db = db;
    this.migratedFrom = migratedFrom;
    this.catalog = new CatalogWriter(db);
    this.records = new RecordsWriter(db);
  }

  syncCatalog(request: CatalogSyncRequest, context: SyncContext): Promise<CatalogSyncResult> {
    return runCatalogSync(this.db, this.catalog, this.records, request, context);
  }

  streamTradeWindow(request: TradeWindowRequest, context: SyncContext): Promise<TradeWindowResult> {
    return runTradeWindow(this.records, request, context);
  }

  close(): void {
    try {
      // SQLite's own upkeep of its planner statistics, as it advises before closing.
      this.db.pragma('optimize');
    } catch {
      // Best effort: statistics only.
    }
    this.db.close();
  }
}
