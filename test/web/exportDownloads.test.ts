// The web host's download of a finished export: only with the bridge's token, only the file the engine registered
// under that id (no path from the URL reaches the disk), 404 for anything else. A real engine over a real cache.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportStatus } from '../../src/shared/ipc';
import { Engine } from '../../src/main/core/engine/engine';
import { MemorySecretStore } from '../../src/main/core/secrets';
import { startWebHost, type WebHost } from '../../src/web/webHost';
import { cacheHistory } from '../support/cachedHistory';
import { waitFor } from '../support/waitFor';
import { makeRendererDir, rawRequest, SECRET } from './support';

const TOKEN = 'export-route-token-0123456789abcdef';
const TRADES = 3000;

describe('the web host serves a finished export to the page holding its token', () => {
  let dataDir: string;
  let engine: Engine;
  let host: WebHost;
  let tree: ReturnType<typeof makeRendererDir>;
  let done: ExportStatus;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'export-route-'));
    await cacheHistory(dataDir, 'route', { trades: TRADES, ledger: 0 });
    // Something private beside the exports folder that no download may reach.
    writeFileSync(join(dataDir, 'private.txt'), SECRET);
    engine = new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo in this test')),
      override: { baseUrl: 'http://127.0.0.1:9', wsUrl: 'ws://127.0.0.1:9/ws', merchantId: 'route', apiKey: null },
    });
    const seen: ExportStatus[] = [];
    engine.subscribe((batch) => seen.push(...(batch.exports ?? [])));
    await engine.start();
    tree = makeRendererDir();
    host = await startWebHost({ engine, rendererDir: tree.rendererDir, token: TOKEN });
    const started = await engine.handle('trades.exportCsv', {
      statuses: [],
      activeOnly: false,
      from: null,
      to: null,
      externalId: '',
      tradeId: '',
      webhookFailed: false,
      partner: null,
      errorCode: null,
      offset: 0,
      limit: 200,
    });
    done = await waitFor(() => seen.find((e) => e.id === started.id && e.state === 'done'), 60_000, 'the export done');
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    await engine?.close();
    tree?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('answers the file as a CSV attachment with the token', async () => {
    const answer = await rawRequest(host.port, `/exports/${done.id}`, bearer(TOKEN));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="${done.filename}"`);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.body.split('\r\n')).toHaveLength(1 + TRADES + 1);
    expect(answer.body).toBe(readFileSync(join(dataDir, 'exports', done.filename), 'utf8'));
  });

  it('refuses a request without the token, with another, or with a one-time code', async () => {
    for (const headers of [
      {},
      bearer('someone-elses-token-0123456789'),
      { authorization: TOKEN },
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      bearer(new URL(host.openUrl()).searchParams.get('code') ?? ''),
    ]) {
      const answer = await rawRequest(host.port, `/exports/${done.id}`, headers);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatch(/^unauthorized/);
      expect(answer.body).not.toContain('tradeId');
    }
  });

  it('answers 404 for an unknown id and for any path that tries to leave the exports folder', async () => {
    for (const path of [
      '/exports/00000000-0000-4000-8000-000000000000',
      `/exports/${done.filename}`,
      '/exports/..%2Fprivate.txt',
      '/exports/..%2F..%2Fprivate.txt',
      '/exports/%2e%2e/private.txt',
      '/exports/../private.txt',
      `/exports/${done.id}%2F..%2F..%2Fprivate.txt`,
      '/exports/',
    ]) {
      const answer = await rawRequest(host.port, path, bearer(TOKEN));
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain(SECRET);
      expect(answer.body, path).not.toContain('tradeId');
    }
  });
});
