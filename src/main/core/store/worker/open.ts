import Database, { type Statement } from 'better-sqlite3';
import { classifySqliteError } from '../errors';
import { checkSchemaVersion, prepareSchema, SCHEMA_VERSION, SET_META_SQL } from '../schema';

export type Db = Database.Database;
export type Prepare = <P extends unknown[] = unknown[], R = unknown>(sql: string) => Statement<P, R>;

/** Prepared statements kept by their SQL, so each can be written at its one use (the oldest dropped past 100). */
export function statementCache(db: Db): Prepare {
  const statements = new Map<string, Statement>();
  return <P extends unknown[], R>(sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= 100) statements.delete(statements.keys().next().value as string);
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement as unknown as Statement<P, R>;
  };
}

/** The size the WAL file is cut back to after a checkpoint emptied it (a sync can grow it to hundreds of MB). */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * A connection, the version of its file checked BEFORE anything is written (a newer or foreign file is refused
 * untouched). The writer's (`readonly` false, the only one): WAL, synchronous=NORMAL (durable at checkpoints,
 * never corrupt), foreign keys on, SQLite's own auto-checkpoint keeping the WAL short; it creates and migrates the
 * schema. A reader's: query-only on a file the writer has prepared.
 */
export function openConnection(file: string, readonly: boolean): { db: Db; migratedFrom: number | null } {
  let db: Db | null = null;
  try {
    db = new Database(file, readonly ? { readonly: true, fileMustExist: true } : {});
    // Reading user_version reads the header: a file that is not SQLite fails here (SQLITE_NOTADB).
    checkSchemaVersion(db.pragma('user_version', { simple: true }) as number, file);
    db.pragma('busy_timeout = 5000');
    if (readonly) {
      db.pragma('cache_size = -32768'); // 32 MB; no mmap: mapped pages count against the process's memory
      db.pragma('query_only = ON');
      return { db, migratedFrom: null };
    }
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('cache_size = -65536'); // 64 MB
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    const found = prepareSchema(db, file);
    // A read-only file opens fine and fails on the first write: find out now, with a clear error.
    db.prepare(SET_META_SQL).run('store.openedAt', JSON.stringify(new Date().toISOString()));
    return { db, migratedFrom: found === SCHEMA_VERSION ? null : found };
  } catch (error) {
    try {
      db?.close();
    } catch {
      // Closing a half-open handle can fail too; the first error is the one to report.
    }
    throw classifySqliteError(error, file);
  }
}
