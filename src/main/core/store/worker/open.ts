import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { classifySqliteError, StoreVersionError } from '../errors';
import { migrate, SCHEMA_VERSION } from '../migrations';

export type Db = Database.Database;

/** The writer's own checkpoint threshold: a safety net (64K pages, 256 MB at 4 KB pages). */
const WRITER_AUTOCHECKPOINT_PAGES = 65_536;
/** The background checkpoint runs once the WAL is bigger than this. */
export const CHECKPOINT_WAL_BYTES = 64 * 1024 * 1024;

/**
 * A connection that only checkpoints the WAL (copies committed pages into the
 * database file), run from a reader thread so the writer never spends its
 * time on it: after a 500k-item sync that is ~0.6 GB of copying. PASSIVE
 * checkpoints never block the writer or readers. It writes no data, so the
 * store still has one writer.
 */
export class CheckpointService {
  private readonly db: Db;
  private readonly wal: string;

  constructor(file: string) {
    this.wal = `${file}-wal`;
    this.db = new Database(file, { fileMustExist: true });
    this.db.pragma('wal_autocheckpoint = 0');
  }

  /** Checkpoints when the WAL has grown past CHECKPOINT_WAL_BYTES; returns whether it ran. */
  maybeCheckpoint(): boolean {
    let size: number;
    try {
      size = statSync(this.wal).size;
    } catch {
      return false;
    }
    if (size < CHECKPOINT_WAL_BYTES) return false;
    this.db.pragma('wal_checkpoint(PASSIVE)');
    return true;
  }

  close(): void {
    this.db.close();
  }
}

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
    db.pragma('cache_size = -65536'); // 64 MB
    // A reader thread checkpoints the WAL in the background (CheckpointService); the writer
    // copies pages into the file itself only if that falls far behind.
    db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
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
    db.pragma('cache_size = -32768'); // 32 MB; no mmap: mapped pages count against the process's memory
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
