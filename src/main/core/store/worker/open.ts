import Database from 'better-sqlite3';
import { classifySqliteError, StoreVersionError } from '../errors';
import { migrate, SCHEMA_VERSION } from '../migrations';

export type Db = Database.Database;

/**
 * The write connection: WAL, synchronous=NORMAL (durable at checkpoints, never
 * corrupt), foreign keys on. The schema version is checked BEFORE anything is
 * written, so a newer or foreign file is refused untouched.
 */
export function openWriteConnection(file: string): { db: Db; migratedFrom: number | null } {
  let db: Db | null = null;
  try {
    db = new Database(file);
    // Reading user_version reads the header: a file that is not SQLite fails here (SQLITE_NOTADB).
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new StoreVersionError(file, version, SCHEMA_VERSION);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -131072'); // 128 MB: the catalog diff touches every index
    db.pragma('journal_size_limit = 67108864'); // shrink the WAL back to 64 MB after a big sync
    db.pragma('temp_store = FILE'); // the sync's staging table can be hundreds of MB
    const outcome = migrate(db, file);
    // A read-only file opens fine and fails on the first write: find out now, with a clear error.
    db.prepare("INSERT INTO meta(key, value) VALUES ('store.openedAt', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
      JSON.stringify(new Date().toISOString()),
    );
    return { db, migratedFrom: outcome.from === outcome.to ? null : outcome.from };
  } catch (error) {
    try {
      db?.close();
    } catch {
      // Closing a half-open handle can fail too; the first error is the one to report.
    }
    throw classifySqliteError(error, file);
  }
}

/** A read-only connection for queries; the writer has migrated the file already. */
export function openReadConnection(file: string): Db {
  let db: Db | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new StoreVersionError(file, version, SCHEMA_VERSION);
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -65536');
    db.pragma('mmap_size = 268435456');
    db.pragma('query_only = ON');
    return db;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // See above.
    }
    throw classifySqliteError(error, file);
  }
}
