import type { UpdateStatus } from '../../shared/ipc';
import type { UpdatePlan } from './updatePolicy';

/** What electron-updater reported, reduced to what the status bar needs. */
export type UpdaterEvent =
  | { type: 'checking' }
  | { type: 'available'; version: string; notes: string | null }
  | { type: 'not-available' }
  | { type: 'progress'; percent: number; transferred: number; total: number }
  | { type: 'downloaded'; version: string; notes: string | null }
  | { type: 'error'; error: unknown };

export const IDLE: UpdateStatus = Object.freeze({ state: 'idle' });

/** The status after one updater event, for a plan that checks (self-update or notify). */
export function nextUpdateStatus(current: UpdateStatus, event: UpdaterEvent, plan: UpdatePlan): UpdateStatus {
  switch (event.type) {
    case 'checking':
      // A 6-hourly check does not hide a download under way, an update ready, or one the merchant must install.
      return current.state === 'downloading' || current.state === 'ready' || current.state === 'manual'
        ? current
        : { state: 'checking' };
    case 'available':
      // A later check finds the version already downloaded: it stays ready to install.
      if (current.state === 'ready' && current.version === event.version) return current;
      return plan.mode === 'notify'
        ? { state: 'manual', version: event.version, notes: event.notes, reason: plan.reason }
        : { state: 'available', version: event.version, notes: event.notes };
    case 'not-available':
      return current.state === 'ready' || current.state === 'manual' ? current : IDLE;
    case 'progress': {
      if (current.state === 'ready') return current;
      const version = current.state === 'available' || current.state === 'downloading' ? current.version : '';
      const total = Math.max(0, Math.round(event.total));
      const transferred = Math.min(total, Math.max(0, Math.round(event.transferred)));
      const percent = Math.min(100, Math.max(0, Math.floor(Number.isFinite(event.percent) ? event.percent : 0)));
      return { state: 'downloading', version, percent, transferred, total };
    }
    case 'downloaded':
      return { state: 'ready', version: event.version, notes: event.notes };
    case 'error':
      // An update already downloaded stays installable when a later check fails.
      return current.state === 'ready' ? current : { state: 'error', message: updateErrorMessage(event.error) };
  }
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** A plain sentence for an updater error: its code decides, its message (a stack, a URL, a yml dump) never shows. */
export function updateErrorMessage(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : '';
  if (code === 'ERR_CHECKSUM_MISMATCH')
    return 'The downloaded update did not match its sha512 checksum and was discarded; the next check tries again.';
  if (code === 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND')
    return 'The update feed has no release for this system (not found); the next check tries again.';
  if (
    code === 'ERR_UPDATER_INVALID_UPDATE_INFO' ||
    code === 'ERR_UPDATER_NO_FILES_PROVIDED' ||
    code === 'ERR_UPDATER_NO_CHECKSUM' ||
    code === 'ERR_UPDATER_INVALID_VERSION'
  )
    return 'The update feed’s release information could not be read (malformed); nothing was downloaded.';
  if (typeof code === 'string' && code.startsWith('HTTP_ERROR_'))
    return `The update server answered HTTP ${code.slice('HTTP_ERROR_'.length)}; the next check tries again.`;
  if ((typeof code === 'string' && UNREACHABLE.has(code)) || /net::ERR_/.test(message))
    return 'The update server could not be reached; the next check tries again.';
  return 'Checking for updates failed; the next check tries again (details are in the log).';
}
