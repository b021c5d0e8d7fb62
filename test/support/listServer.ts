/**
 * Syncs a writer (in-process) from a one-off loopback HTTP server that answers with
 * exactly these items as the on-sale list.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Item } from '../../src/shared/api';
import type { CatalogSyncResult } from '../../src/main/core/store';
import type { WriterService } from '../../src/main/core/store/worker/writer';

export async function syncWriterWithList(
  writer: WriterService,
  items: Item[],
  progress: () => void = () => {},
): Promise<CatalogSyncResult> {
  const body = JSON.stringify({
    totalItems: items.length,
    totalValue: items.reduce((sum, item) => sum + item.price, 0),
    items,
    lastUpdate: '2026-11-01T00:00:00.000Z',
  });
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/list`;
  try {
    return await writer.syncCatalog({ url, headers: {} }, { signal: new AbortController().signal, progress });
  } finally {
    await new Promise((done) => server.close(done));
  }
}
