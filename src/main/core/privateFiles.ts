import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data folder holds an account's whole history and its settings: only its user may read it.
 * Folders are 0700 and files 0600 (SQLite gives a database's -wal and -shm the database's own mode).
 * POSIX modes only: on Windows the folder inherits the user profile's ACL.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Sub-folders of the data folder the app writes to. */
const OUR_FOLDERS = ['accounts', join('accounts', 'demo'), 'logs'];
/** Files the app writes there (a --data-dir may be a folder with other things in it: those are left alone). */
const OUR_FILE =
  /^(?:.+\.sqlite(?:-wal|-shm|-journal|\.auto-buys)?|.+\.json(?:\.broken-\d+|\.\d+\.tmp)?|.+\.lock|.+\.log)$/;

const posix = process.platform !== 'win32';
const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(4, '0');
const openToOthers = (mode: number): boolean => (mode & 0o077) !== 0;

/**
 * Creates the data folder and its accounts/ folder owner-only, or makes an existing one so: a folder
 * other users could read is tightened with a warning; the app's files in it are made 0600.
 * Never throws for a mode it cannot change (a folder owned by someone else): it says so instead.
 */
export function preparePrivateDataDir(dataDir: string, log: (line: string) => void): void {
  mkdirSync(join(dataDir, 'accounts'), { recursive: true, mode: PRIVATE_DIR_MODE });
  if (!posix) return;
  // Only an open data folder exposed anything: what is inside a private one is tightened without a word.
  let opened: string | null = null;
  for (const dir of [dataDir, ...OUR_FOLDERS.map((name) => join(dataDir, name))]) {
    const stat = statSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) continue;
    if (openToOthers(stat.mode)) {
      if (!tighten(dir, PRIVATE_DIR_MODE, log)) continue;
      if (dir === dataDir) opened = octal(stat.mode);
    }
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isFile() || !OUR_FILE.test(entry.name)) continue;
      const file = join(dir, entry.name);
      const mode = statSync(file, { throwIfNoEntry: false })?.mode;
      if (mode !== undefined && openToOthers(mode)) tighten(file, PRIVATE_FILE_MODE, log);
    }
  }
  if (opened !== null) {
    log(
      `warning: the data folder ${dataDir} was open to other users of this machine (mode ${opened}); ` +
        `made it owner-only (${octal(PRIVATE_DIR_MODE)}, its files ${octal(PRIVATE_FILE_MODE)})`,
    );
  }
}

function tighten(path: string, mode: number, log: (line: string) => void): boolean {
  try {
    chmodSync(path, mode);
    return true;
  } catch (error) {
    log(`warning: could not make ${path} private (${octal(mode)}): ${(error as Error).message}`);
    return false;
  }
}

/**
 * Creates `file` empty with mode 0600 unless it exists, so that what opens it next (SQLite, which then
 * gives its -wal and -shm the same mode) never makes it readable by others. A failure is left to that
 * opener to report, with its own words for a read-only or missing folder.
 */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch {
    // Exists already (its mode is preparePrivateDataDir's business), or the opener will say why not.
  }
}
