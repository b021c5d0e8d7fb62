import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseWindowState, type SavedWindowState } from './windowOptions';

/**
 * The shell's own small files in the data dir, beside the engine's:
 * `window-state.json` (bounds) and `last-quit.json` (when the app last quit
 * cleanly, for the "while you were away" summary). Unreadable files count as
 * absent; writes go through a temp file and a rename.
 */

export const WINDOW_STATE_FILE = 'window-state.json';
export const LAST_QUIT_FILE = 'last-quit.json';

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

export function readWindowState(dataDir: string): SavedWindowState | null {
  return parseWindowState(readJson(join(dataDir, WINDOW_STATE_FILE)));
}

export function writeWindowState(dataDir: string, state: SavedWindowState): void {
  writeJson(join(dataDir, WINDOW_STATE_FILE), state);
}

/** The last clean quit (UTC ISO), or null on a first run, after a crash, or when the file is damaged. */
export function readLastQuit(dataDir: string): string | null {
  const value = readJson(join(dataDir, LAST_QUIT_FILE));
  if (typeof value !== 'object' || value === null) return null;
  const at = (value as Record<string, unknown>).at;
  return typeof at === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(at) &&
    Number.isFinite(Date.parse(at))
    ? at
    : null;
}

export function writeLastQuit(dataDir: string, at: string): void {
  writeJson(join(dataDir, LAST_QUIT_FILE), { at });
}
