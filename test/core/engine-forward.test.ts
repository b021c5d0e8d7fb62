import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, tradeUrlFor } from '../support/sandboxHttp';

describe('forwarding from the engine to a chat webhook, against the real sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;
  let receiver: http.Server;
  let status = 204;
  const bodies: { path: string; body: Record<string, unknown> }[] = [];

  // The sandbox and the engine run on a fake clock that flows with real time: the forwarder's gathering, pacing and
  // retries are fast-forwarded.
  beforeEach(async () => {
    useFlowingFakeClock();
    sb = await startSandbox({ items: 40, seed: 5 });
    // Mixed case and characters that URL-encoding changes, so each written form of the key is a different text.
    merchant = await adminApi(sb).createMerchant({
      balance: 1_000_000,
      apiKey: 'Mk_Live+Mixed/Case=Key-0123456789abcdefXYZ',
    });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-forward-'));
    bodies.length = 0;
    status = 204;
    receiver = http.createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      request.on('end', () => {
        bodies.push({ path: request.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
        response.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    // The receiver listens on loopback: the test-only opt-in (no setting reaches it).
    app = await startEngine(
      dataDir,
      { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant },
      { forwardToPrivateAddresses: true },
    );
    await waitFor(() => app.session().connection.state === 'connected', 20_000, 'the feed');
  });

  afterEach(async () => {
    await app.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
    useRealClock();
  });

  it('refuses a bad URL with the reason and keeps the settings; forwards trade notifications; a failing receiver shows in the centre', async () => {
    const refused = await dispatchIpc(app.engine, 'settings.update', { forwardUrl: 'ftp://example.com/hook' });
    expect(refused).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'invalid_input',
        message: 'settings.update: forwardUrl: Only http:// and https:// webhook URLs are allowed (not ftp:)',
      }),
    });
    const noChat = await dispatchIpc(app.engine, 'settings.update', {
      forwardUrl: 'https://api.telegram.org/bot1:A/sendMessage',
      theme: 'light',
    });
    expect(noChat.ok).toBe(false);
    const before = await app.call('app.snapshot');
    expect(before.settings).toMatchObject({ forwardUrl: null, theme: 'dark' });
    expect(before.forwarding).toMatchObject({ host: null, pending: 0 });

    const port = (receiver.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/api/webhooks/7/SECRET-TOKEN`;
    const saved = await app.call('settings.update', { forwardUrl: url, forwardCategories: ['trade'] });
    expect(saved.forwardUrl).toBe(url);

    const item = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: [{ itemId: 96_000_001, price: 777, steamId: null }],
      })
    ).body.items[0] as Item;
    const tradeId = sb.core.buying.buy(merchant.merchantId, {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(40_001),
    }).tradeId;
    await adminApi(sb).transition(tradeId, { status: 'SENT' });
    await reach(() => bodies.length > 0, 20_000, 'a forwarded message');
    expect(bodies[0]?.path).toBe('/api/webhooks/7/SECRET-TOKEN');
    expect(bodies[0]?.body).toMatchObject({ username: 'Merchant Desk', allowed_mentions: { parse: [] } });
    // Discord shows an escaped character as itself: the name as written.
    expect(String(bodies[0]?.body.content).replace(/\\(.)/g, '$1')).toContain(item.market_hash_name);
    expect(JSON.stringify(bodies)).not.toContain(merchant.apiKey);
    expect(JSON.stringify(bodies)).not.toContain('AbCd1234');

    // The receiver fails: the failure is a notification in the centre (by host, never the token), and the message is kept.
    status = 500;
    await adminApi(sb).transition(tradeId, { status: 'COMPLETED' });
    const failure = await reach(
      async () => (await app.call('notifications.list', {})).rows.find((row) => row.title.startsWith('Forwarding to')),
      30_000,
      'the failure in the centre',
    );
    expect(failure).toMatchObject({
      title: `Forwarding to 127.0.0.1:${port} failed`,
      category: 'connection',
      severity: 'danger',
    });
    expect(JSON.stringify(failure)).not.toContain('SECRET-TOKEN');
    expect((await app.call('app.snapshot')).forwarding).toMatchObject({
      host: `127.0.0.1:${port}`,
      pending: 1,
      problem: expect.stringMatching(/HTTP 500/),
    });
  });

  it('a message shows no part of the API key, no trade URL token in any form, and no Markdown of an item name', async () => {
    const port = (receiver.address() as AddressInfo).port;
    await app.call('settings.update', {
      forwardUrl: `http://127.0.0.1:${port}/api/webhooks/7/SECRET-TOKEN`,
      forwardCategories: ['trade'],
    });
    const key = merchant.apiKey;
    // An item's name is the server's free text: here it carries the key and a token as an echo of them would.
    const echoes = [
      `prefix ${key.slice(0, 16)}`,
      `encoded ${encodeURIComponent(key)}`,
      `lower ${key.toLowerCase()}`,
      `upper ${key.toUpperCase()}`,
      'offer ?partner=40002&amp;token=AbCd1234',
      'encoded partner%3D40002%26token%3DAbCd1234',
      'bare token=AbCd1234',
    ].join('; ');
    const name = `Karambit [claim your prize](http://evil.example/claim) @everyone ${echoes}`;
    const item = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: [{ itemId: 96_000_002, price: 555, steamId: null, market_hash_name: name }],
      })
    ).body.items[0] as Item;
    const tradeId = sb.core.buying.buy(merchant.merchantId, {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(40_002),
    }).tradeId;
    await adminApi(sb).transition(tradeId, { status: 'SENT' });
    await reach(() => bodies.length > 0, 20_000, 'a forwarded message');
    const content = String(bodies[0]?.body.content);
    for (const form of ['prefix', 'encoded', 'lower', 'upper']) expect(content).toContain(`${form} \\[redacted\\]`);
    for (const part of [key.slice(0, 8), key.slice(-8), encodeURIComponent(key).slice(8, 24), 'Cd1234']) {
      expect(content.toLowerCase()).not.toContain(part.toLowerCase());
    }
    // The item's name as written, no masked link and no mention.
    expect(content.startsWith('Karambit \\[claim your prize\\]\\(http://evil.example/claim\\) \\@everyone')).toBe(true);
  });
});
