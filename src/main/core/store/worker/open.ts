import Database from 'better-sqlite3';
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { classifySqliteError, StoreVersionError } from '../errors';
import { migrate, SCHEMA_VERSION } from '../migrations';

export type Db = Database.Database;

/** The size the WAL file is cut back to when the writer starts it over (journal_size_limit). */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * The writer's own checkpoint threshold under live writes: the WAL's size limit (16K pages at 4 KB).
 * The WAL starts over from its beginning only at a write that begins once every frame is copied, and
 * under a steady flow the background checkpoint (~20–60 ms, two fsyncs) never finishes in the moment
 * between one writer call's commit and the next one's start: the WAL only started over when the writer
 * checkpointed itself. At 256 MB that took ~5 s at 50,000 events/s, a writer event's CPU grew from ~11 to
 * ~20 µs as the WAL grew (its commit 1.1 → 4.7 µs), and cutting the file back to 64 MB took 70–90 ms. At
 * 64 MB the writer's checkpoint (the last frames the background one had not copied, two fsyncs) runs
 * every ~2 s under that flow and the cut is nothing (bench: live-events, docs/performance.md).
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 16_384;
/** While a catalog sync streams hundreds of MB into the WAL the background checkpoint copies it; the writer only past 256 MB. */
export const SYNC_AUTOCHECKPOINT_PAGES = 65_536;
/**
 * The background checkpoint runs once the WAL holds this much not yet copied into the database file (~4
 * times a second under 50,000 live events/s). Each checkpoint ends with an fsync, and on ext4 that commit
 * also writes out the WAL's dirty pages and holds the writer's next write until it is done: at 64 MB the
 * writer stalled 150–290 ms at a time, where 16 MB keeps each stall short.
 */
export const CHECKPOINT_WAL_BYTES = 16 * 1024 * 1024;
/** The WAL-index header is in the machine's byte order. */
const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * A connection that only checkpoints the WAL (copies committed pages into the
 * database file), run from a reader thread so the writer never spends its
 * time on it: after a 500k-item sync that is ~0.6 GB of copying. PASSIVE
 * checkpoints never block the writer or readers. It writes no data, so the
 * store still has one writer.
 */
export class CheckpointService {
  private readonly db: Db;
  private readonly shm: string;
  private readonly pageSize: number;
  private shmFd: number | null = null;
  private readonly header = Buffer.alloc(100);

  constructor(
    file: string,
    private readonly thresholdBytes = CHECKPOINT_WAL_BYTES,
  ) {
    this.shm = `${file}-shm`;
    this.db = new Database(file, { fileMustExist: true });
    this.db.pragma('wal_autocheckpoint = 0');
    this.pageSize = this.db.pragma('page_size', { simple: true }) as number;
  }

  /** Checkpoints once the WAL holds more than thresholdBytes not yet copied into the file; returns whether it ran. */
  maybeCheckpoint(): boolean {
    const frames = this.uncheckpointedFrames();
    if (frames === null || frames * this.pageSize < this.thresholdBytes) return false;
    this.db.pragma('wal_checkpoint(PASSIVE)');
    return true;
  }

  /**
   * Frames in the WAL not yet copied into the database file, from the WAL-index header in the -shm file
   * (sqlite.org/walformat.html: mxFrame at byte 16, the checkpoint's nBackfill at byte 96, native byte
   * order). Not the WAL file's size: the writer reuses the file from its start after a checkpoint and
   * keeps it at journal_size_limit, so past that size every check checkpointed (five times a second under
   * live events, each copying the same hot pages again). Null when the header cannot be read.
   */
  private uncheckpointedFrames(): number | null {
    try {
      this.shmFd ??= openSync(this.shm, 'r');
      if (readSync(this.shmFd, this.header, 0, this.header.length, 0) < this.header.length) return null;
    } catch {
      this.closeShm();
      return null;
    }
    const mxFrame = LITTLE_ENDIAN ? this.header.readUInt32LE(16) : this.header.readUInt32BE(16);
    const backfilled = LITTLE_ENDIAN ? this.header.readUInt32LE(96) : this.header.readUInt32BE(96);
    return Math.max(0, mxFrame - backfilled);
  }

  private closeShm(): void {
    if (this.shmFd === null) return;
    try {
      closeSync(this.shmFd);
    } catch {
      // Already gone.
    }
    this.shmFd = null;
  }

  close(): void {
    this.closeShm();
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
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`); // shrink the WAL back after a big sync
    // A migration may rewrite whole tables: its sorts and journals on disk, as a sync's.
    useWriterSettings(db, 'sync');
    const outcome = migrate(db, file);
    useWriterSettings(db, 'live');
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

/**
 * The write connection's settings for what it writes: live writes (the default) or a catalog sync.
 * - The writer's checkpoint threshold: see WRITER_AUTOCHECKPOINT_PAGES and SYNC_AUTOCHECKPOINT_PAGES (a reader
 *   thread checkpoints in the background: CheckpointService).
 * - Where temporary data goes. Live writes keep it in memory: the statement journal of a statement that writes
 *   many rows (a fold of pending prices, of moves, a trim, a batch of live rows) holds each page it touches,
 *   a few MB at most, and through a temp file it was ~20 % of a live event's writer CPU (writer-alone,
 *   2026-11-25). A sync's staging tables and index builds can be hundreds of MB: on disk. Changing it drops
 *   the connection's temporary tables; a sync creates its own after this and drops them before the switch back.
 */
export function useWriterSettings(db: Db, mode: 'live' | 'sync'): void {
  db.pragma(`wal_autocheckpoint = ${mode === 'live' ? WRITER_AUTOCHECKPOINT_PAGES : SYNC_AUTOCHECKPOINT_PAGES}`);
  db.pragma(`temp_store = ${mode === 'live' ? 'MEMORY' : 'FILE'}`);
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
