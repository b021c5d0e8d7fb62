// The web host's credential stays with its page. The page and its assets hold no secret and are
// served to anyone who names this host (Host and Origin checked); the /bridge WebSocket, which
// drives the app, opens only for an upgrade that offers the launch token. No cookie: a
// browser would send it to every port of 127.0.0.1, item images included.
import type { Request } from '@playwright/test';
import { WebSocket as NodeWebSocket } from 'ws';
import { catalogGrid, goTo, openApp } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 500, seed: 2 });

const WRONG_TOKEN = 'not-the-token-0123456789abcdef';
const EXPIRED = 'Session expired — open the URL printed by npm run web';

interface BridgeAttempt {
  /** The upgrade's HTTP status (101 when the socket opened). */
  status: number | null;
  /** The close code once it ended (4401: the credential was refused). */
  closeCode: number | null;
  /** Frames received before the close. */
  frames: string[];
}

/**
 * Opens /bridge from Node with `headers` (and an Origin), offering `token` as a page does (none when
 * null), sends `first` as the first frame (a call when absent), and reports how it ended.
 */
function tryBridge(
  origin: string | null,
  headers: Record<string, string>,
  token: string | null,
  first?: Record<string, unknown>,
  query = '',
): Promise<BridgeAttempt> {
  const wsUrl = `${stack().origin.replace(/^http/, 'ws')}/bridge${query}`;
  const protocols = token === null ? [] : ['merchant-desk.bridge', `merchant-desk.token.${token}`];
  return new Promise((done) => {
    const frames: string[] = [];
    let status: number | null = null;
    const ws = new NodeWebSocket(wsUrl, protocols, { headers, ...(origin !== null ? { origin } : {}) });
    ws.on('upgrade', () => (status = 101));
    ws.on('open', () => ws.send(JSON.stringify(first ?? { type: 'call', id: 1, method: 'app.snapshot', input: {} })));
    ws.on('message', (data) => {
      frames.push(String(data));
      // The control case: answered, it is done.
      const { type } = JSON.parse(String(data)) as { type?: string };
      if (type === 'result') ws.close();
    });
    ws.on('unexpected-response', (_request, response) => {
      response.resume();
      ws.terminate();
      done({ status: response.statusCode ?? null, closeCode: null, frames });
    });
    ws.on('close', (code) => done({ status, closeCode: code, frames }));
    ws.on('error', () => {});
  });
}

test('serves the app without a credential, never sets a cookie, and refuses a foreign Host', async () => {
  const { origin, url } = stack();
  for (const path of ['/', '/index.html', `/?token=${WRONG_TOKEN}`, new URL(url).pathname + new URL(url).search]) {
    const answer = await fetch(`${origin}${path}`, { redirect: 'manual' });
    expect(answer.status, path).toBe(200);
    expect(answer.headers.get('set-cookie'), path).toBeNull();
    const body = await answer.text();
    expect(body).toContain('<div id="root">');
    expect(body).not.toContain(stack().token);
  }
  // Node's fetch cannot send another Host: the bridge's upgrade can.
  expect(await tryBridge(origin, { host: `evil.example:${new URL(origin).port}` }, stack().token)).toMatchObject({
    status: 403,
  });
});

test('the bridge opens only for an upgrade offering the token, checked with the Origin', async ({ page }) => {
  const { origin, token } = stack();
  const port = new URL(origin).port;
  // No Origin (not a page), a foreign one: refused at the upgrade.
  expect(await tryBridge(null, {}, token)).toMatchObject({ status: 403, frames: [] });
  expect(await tryBridge('http://127.0.0.1:1', {}, token)).toMatchObject({ status: 403, frames: [] });
  // The page's Origin but no good token at the upgrade: closed with 4401 and never answered.
  for (const [what, attempt] of [
    ['a call first', await tryBridge(origin, {}, null)],
    ['a wrong token', await tryBridge(origin, {}, WRONG_TOKEN)],
    ['the token as a first frame', await tryBridge(origin, {}, null, { type: 'hello', token })],
    ['the token in the query', await tryBridge(origin, {}, null, undefined, `?token=${encodeURIComponent(token)}`)],
    ['the old cookies', await tryBridge(origin, { cookie: `md_token=${token}; md_token_${port}=${token}` }, null)],
  ] as const) {
    expect(attempt, what).toEqual({ status: 101, closeCode: 4401, frames: [] });
  }
  // The control: the token offered at the upgrade opens it.
  const good = await tryBridge(origin, {}, token);
  expect(good.frames[0]).toBe('{"type":"welcome"}');
  expect(good.frames.map((frame) => JSON.parse(frame) as unknown)).toContainEqual(
    expect.objectContaining({ type: 'result', id: 1, envelope: expect.objectContaining({ ok: true }) }),
  );

  // A browser that never had the token: the app loads and says the session expired.
  await page.goto(`${origin}/`);
  await expect(page.getByRole('alert').filter({ hasText: EXPIRED })).toBeVisible({ timeout: 15_000 });
  // It says how to get in: the URL the web host printed.
  await expect(page.getByRole('alert').filter({ hasText: EXPIRED })).toContainText('opened without the printed URL');
  await expect(page.getByRole('alert').filter({ hasText: EXPIRED }).locator('code')).toHaveText(
    'Merchant Desk web host: http://…/?token=…',
  );
});

test('item images from the sandbox (another port of 127.0.0.1) receive nothing that opens the bridge', async ({
  page,
}) => {
  const { origin, token } = stack();
  const elsewhere: Request[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(`${origin}/`)) elsewhere.push(request);
  });
  await openApp(page, stack());
  await expect(catalogGrid(page).locator('img').first()).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => elsewhere.filter((r) => r.resourceType() === 'image').length).toBeGreaterThan(0);
  expect(new URL(page.url()).search).toBe('');

  for (const request of elsewhere.slice(0, 5)) {
    const headers = await request.allHeaders();
    expect(JSON.stringify({ url: request.url(), headers }), request.url()).not.toContain(token);
    expect(headers['cookie']).toBeUndefined();
    // Whatever that port received, replayed by a non-browser client with the page's Origin, opens nothing.
    const replayed = Object.fromEntries(
      Object.entries(headers).filter(([name]) => name === 'cookie' || name === 'authorization'),
    );
    expect(await tryBridge(origin, replayed, null)).toEqual({ status: 101, closeCode: 4401, frames: [] });
  }
});

test('the printed token URL leaves the tab at once: not in the address bar, in no step back of its history', async ({
  page,
}) => {
  const { origin, token } = stack();
  await openApp(page, stack());
  expect(page.url()).toBe(`${origin}/`);
  await goTo(page, 'Trades');
  await goTo(page, 'Wallet');
  // Walked back to where the tab started (about:blank): no entry holds the token.
  const entries = await page.evaluate(() => history.length);
  const seen = [page.url()];
  for (let step = 1; step < entries; step++) {
    const before = page.url();
    await page.goBack();
    await expect.poll(() => page.url()).not.toBe(before);
    seen.push(page.url());
  }
  expect(seen.at(-1)).toBe('about:blank');
  expect(seen.filter((url) => url.startsWith(origin))).toEqual([
    `${origin}/#/wallet`,
    `${origin}/#/trades`,
    `${origin}/`,
  ]);
  for (const url of seen) expect(url).not.toContain(token);
});
