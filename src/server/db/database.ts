import Database from 'better-sqlite3';
import { SANDBOX_MIGRATIONS } from './migrations';

export type SqliteDatabase = Database.Database;

/** Prepared statements kept by their SQL (a question's text varies with its filters), each prepared once. */
export function statementsBySql(db: SqliteDatabase): (sql: string) => ReturnType<SqliteDatabase['prepare']> {
  const statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
}

/**
 * Memory-mapped reads for the snapshot reader that streams the catalog (address space, not RAM:
 * the pages are the OS page cache's). Not on the writing connection: there it slowed commits.
 */
const MMAP_BYTES = 2 * 1024 * 1024 * 1024;

/** Opens (creating if needed) the sandbox database and brings its schema up to date. */
export function openSandboxDatabase(file: string): SqliteDatabase {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/**
 * A read-only second connection: its own snapshot while a long read streams out. Memory-mapped unless `mapped`
 * is false: mapped pages count in the process's RSS, so a read of hundreds of MB (a busy merchant's trades)
 * reads through SQLite's small page cache instead.
 */
export function openSnapshotReader(file: string, mapped = true): SqliteDatabase {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  if (mapped) db.pragma(`mmap_size = ${MMAP_BYTES}`);
  return db;
}

function migrate(db: SqliteDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SANDBOX_MIGRATIONS.length) {
    throw new Error(
      `The sandbox database is from a newer version (schema ${current}, this build knows ${SANDBOX_MIGRATIONS.length}). ` +
        'Use a newer build or another --db file.',
    );
  }
  const apply = db.transaction(() => {
    for (let version = current; version < SANDBOX_MIGRATIONS.length; version++) {
      db.exec(SANDBOX_MIGRATIONS[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    }
  });
  apply();
}

export class MetaStore {
  private readonly getStmt;
  private readonly setStmt;

  constructor(db: SqliteDatabase) {
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
    this.setStmt = db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  get(key: string): string | undefined {
    return this.getStmt.get(key)?.value;
  }

  set(key: string, value: string | number): void {
    this.setStmt.run(key, String(value));
  }
}
