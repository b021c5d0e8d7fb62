import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/privateFiles';

/** Above this size the log is moved to `main.old.log` at start (one generation kept). */
export const MAX_LOG_BYTES = 5 * 1024 * 1024;

/**
 * The shell's log: one timestamped line per event to stderr and to
 * `<dataDir>/logs/main.log`. Lines are single-line (newlines escaped) and
 * callers never pass secrets (the engine never logs its key).
 */
export function createLog(dataDir: string, options: { echo?: (line: string) => void } = {}): (line: string) => void {
  const dir = join(dataDir, 'logs');
  const file = join(dir, 'main.log');
  let writable = true;
  try {
    // Created owner-only, the data folder too when the log comes first (src/main/core/privateFiles.ts).
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) > MAX_LOG_BYTES)
      renameSync(file, join(dir, 'main.old.log'));
  } catch {
    writable = false;
  }
  const echo = options.echo ?? ((line: string) => process.stderr.write(`${line}\n`));
  return (line: string) => {
    const text = `${new Date().toISOString()} ${line.replace(/\r?\n/g, '\\n')}`;
    echo(text);
    if (!writable) return;
    try {
      appendFileSync(file, `${text}\n`, { mode: PRIVATE_FILE_MODE });
    } catch {
      writable = false;
    }
  };
}
