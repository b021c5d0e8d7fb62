// A finished export's file from the web host (`GET /exports/:id`, src/web/exportDownloads.ts), with the page's
// bridge token as a bearer credential: never in a URL, where history and logs would keep it.
import { downloadBlob, safeCsvFilename } from '../lib/download';
import { storageTokenStore } from './webBridge';

export async function downloadExport(id: string, filename: string): Promise<void> {
  const token = storageTokenStore(window.localStorage, window).read();
  if (token === null)
    throw new Error('This page holds no token for Merchant Desk: open the URL printed by npm run web');
  const answer = await fetch(`/exports/${encodeURIComponent(id)}`, {
    headers: { authorization: `Bearer ${token}` },
    cache: 'no-store',
  });
  if (!answer.ok) throw new Error((await answer.text()) || `The download failed (HTTP ${answer.status})`);
  downloadBlob(safeCsvFilename(filename, 'export'), await answer.blob());
}
