/**
 * CSV exports written to a file by the engine, chunk by chunk as the store's reader formats them (exportChunks.ts):
 * the bridge carries progress and the end, never the file's content. A file is written under a hidden temporary
 * name and renamed once complete; a cancelled or failed export removes it, so no half file ever has the final name.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExportStatus } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import { EngineError } from '../ipc/engineService';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../privateFiles';
import type { ExportChunk, ExportKey } from '../store/types';
import { csvHeader, LEDGER_COLUMNS, TRADE_COLUMNS } from './columns';

/**
 * Rows per chunk: one chunk holds the shared reader thread ~10 ms, so the UI's queries wait at most that long
 * behind an export (bench/busy-export.ts measures both).
 */
export const EXPORT_CHUNK_ROWS = 2000;
/** Finished exports listed (and, in a private folder, kept on disk); the oldest goes first. */
const KEPT_EXPORTS = 10;

/** Reads the chunk after `after` (null: the first, which also counts the rows). */
export type ChunkReader = (after: ExportKey | null, limit: number) => Promise<ExportChunk>;

export interface ExportJobsOptions {
  /** Where the files go. */
  dir: string;
  /**
   * The folder is the engine's own (the web host's `<data>/exports`): owner-only files, emptied at start (a file
   * there is reachable by its export's id only, which a restart forgets), and only the last exports kept.
   */
  privateDir: boolean;
  delivery: ExportStatus['delivery'];
  onChange: (exports: ExportStatus[]) => void;
  log: (line: string) => void;
}

interface Job {
  status: ExportStatus;
  file: string;
  abort: AbortController;
  finished: Promise<void>;
}

export class ExportJobs {
  private readonly jobs: Job[] = [];

  constructor(private readonly options: ExportJobsOptions) {
    if (options.privateDir) {
      rmSync(options.dir, { recursive: true, force: true });
      mkdirSync(options.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    }
  }

  /** Newest first. */
  list(): ExportStatus[] {
    return this.jobs.map((job) => ({ ...job.status }));
  }

  /** Starts an export of `kind` read by `read`; one runs at a time. */
  start(kind: ExportStatus['kind'], read: ChunkReader): ExportStatus {
    if (this.jobs.some((job) => job.status.state === 'running'))
      throw new EngineError('conflict', 'An export is already running: wait for it or cancel it first');
    mkdirSync(this.options.dir, { recursive: true, ...(this.options.privateDir ? { mode: PRIVATE_DIR_MODE } : {}) });
    const id = randomUUID();
    const startedAt = toUtcIso(Date.now());
    const filename = this.freeName(`${kind}-${startedAt.replace(/[:.]/g, '-')}`);
    const job: Job = {
      status: {
        id,
        kind,
        filename,
        state: 'running',
        done: 0,
        total: 0,
        startedAt,
        finishedAt: null,
        error: null,
        delivery: this.options.delivery,
      },
      file: join(this.options.dir, filename),
      abort: new AbortController(),
      finished: Promise.resolve(),
    };
    this.jobs.unshift(job);
    this.forgetOld();
    job.finished = this.run(job, kind === 'trades' ? csvHeader(TRADE_COLUMNS) : csvHeader(LEDGER_COLUMNS), read);
    this.changed();
    return { ...job.status };
  }

  cancel(id: string): { cancelled: boolean } {
    const job = this.jobs.find((j) => j.status.id === id);
    if (!job || job.status.state !== 'running') return { cancelled: false };
    job.abort.abort();
    return { cancelled: true };
  }

  /** A finished export's file, or null (unknown id, not done). */
  fileOf(id: string): { path: string; filename: string } | null {
    const job = this.jobs.find((j) => j.status.id === id);
    return job && job.status.state === 'done' ? { path: job.file, filename: job.status.filename } : null;
  }

  /** Cancels what runs and waits for its file to be removed. */
  async close(): Promise<void> {
    for (const job of this.jobs) job.abort.abort();
    await Promise.all(this.jobs.map((job) => job.finished));
  }

  private async run(job: Job, header: string, read: ChunkReader): Promise<void> {
    const { status } = job;
    const temp = join(this.options.dir, `.${status.filename}.${status.id}.part`);
    const signal = job.abort.signal;
    let done: boolean;
    try {
      const handle = await open(temp, 'wx', this.options.privateDir ? PRIVATE_FILE_MODE : 0o666);
      try {
        await handle.write(header);
        let after: ExportKey | null = null;
        do {
          if (signal.aborted) break;
          const chunk: ExportChunk = await read(after, EXPORT_CHUNK_ROWS);
          if (chunk.total !== null) status.total = chunk.total;
          if (chunk.rows > 0) await handle.write(chunk.csv);
          status.done += chunk.rows;
          // Rows added while it runs are newer than its first key: the total counted at the start stays the bound.
          status.total = Math.max(status.total, status.done);
          after = chunk.next;
          if (after !== null) this.changed();
        } while (after !== null);
        done = !signal.aborted;
      } finally {
        await handle.close();
      }
      if (done) await rename(temp, job.file);
      status.state = done ? 'done' : 'cancelled';
    } catch (error) {
      status.state = 'failed';
      status.error = (error as Error).message;
      this.options.log(`export ${status.filename} failed: ${status.error}`);
    } finally {
      if (status.state !== 'done') await rm(temp, { force: true }).catch(() => {});
      status.finishedAt = toUtcIso(Date.now());
      this.changed();
    }
  }

  /** `base.csv`, or `base-2.csv`… when the folder holds it already (the user's downloads may). */
  private freeName(base: string): string {
    let taken: Set<string>;
    try {
      taken = new Set(readdirSync(this.options.dir));
    } catch {
      taken = new Set();
    }
    for (let n = 1; ; n++) {
      const name = n === 1 ? `${base}.csv` : `${base}-${n}.csv`;
      if (!taken.has(name)) return name;
    }
  }

  private forgetOld(): void {
    for (const old of this.jobs.splice(KEPT_EXPORTS)) {
      if (this.options.privateDir && old.status.state === 'done') void rm(old.file, { force: true }).catch(() => {});
    }
  }

  private changed(): void {
    this.options.onChange(this.list());
  }
}
