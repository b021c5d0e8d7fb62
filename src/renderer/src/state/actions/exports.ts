import type { IpcEnvelope } from '../../../../shared/ipc/contract';
import type { ExportStatus } from '../../../../shared/ipc/models';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { downloadExport } from '../../platform/exportDownload';
import { update } from '../store';
import { toast } from './toast';

/**
 * Starts a CSV export in the engine (the file is written there; the status bar follows its progress from the
 * `exports` events and offers the file once it is done).
 */
export async function startExport(start: () => Promise<IpcEnvelope<ExportStatus>>): Promise<void> {
  try {
    const started = await unwrap(start());
    update('conn', (c) =>
      c.exports.some((e) => e.id === started.id) ? c : { ...c, exports: [started, ...c.exports] },
    );
  } catch (error) {
    toast('error', 'Export failed', errorMessage(error));
  }
}

export async function cancelExport(id: string): Promise<void> {
  try {
    await unwrap(api().exports.cancel({ id }));
  } catch (error) {
    toast('error', 'Could not cancel the export', errorMessage(error));
  }
}

/** The finished file: downloaded from the web host, or shown in its folder by the desktop shell. */
export async function openExport(done: ExportStatus): Promise<void> {
  try {
    if (done.delivery === 'download') await downloadExport(done.id, done.filename);
    else await unwrap(api().exports.reveal({ id: done.id }));
  } catch (error) {
    toast('error', done.delivery === 'download' ? 'Download failed' : 'Could not show the file', errorMessage(error));
  }
}

export function dismissExport(id: string): void {
  update('conn', (c) => ({ ...c, dismissedExports: [...c.dismissedExports, id] }));
}
