// The web host only answers its launch token: pages, assets and the /bridge WebSocket are
// refused without it (or with a wrong one), and the refusal carries nothing of the app.
import { WebSocket as NodeWebSocket } from 'ws';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 500, seed: 2 });

const WRONG_TOKEN = 'not-the-token-0123456789abcdef';

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { redirect: 'manual', headers });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

function expectNoAppContent(body: string) {
  expect(body.trim()).toBe('Unauthorized');
  expect(body).not.toMatch(/<html|<script|Merchant Desk|assets\//i);
}

/** Opens a WebSocket to /bridge from Node: resolves with how it ended. */
function openBridge(url: string, headers: Record<string, string> = {}): Promise<{ opened: boolean; status: number | null }> {
  return new Promise((done) => {
    const ws = new NodeWebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      done({ opened: true, status: 101 });
    });
    ws.once('unexpected-response', (_request, response) => {
      done({ opened: false, status: response.statusCode ?? null });
      response.resume();
      ws.terminate();
    });
    ws.once('error', () => done({ opened: false, status: null }));
  });
}

/** The session cookie the host sets when the right token comes in the query. */
async function sessionCookie(): Promise<string> {
  const answer = await get(stack().url);
  expect(answer.status).toBe(302);
  const cookie = answer.headers.get('set-cookie') ?? '';
  // Named after the port: two hosts on one machine never overwrite each other's token.
  expect(cookie).toMatch(new RegExp(`^md_token_${new URL(stack().origin).port}=`));
  expect(cookie).toMatch(/HttpOnly/i);
  expect(cookie).toMatch(/SameSite=Strict/i);
  return cookie.split(';')[0] ?? '';
}

test('refuses page and asset requests without the token or with a wrong one', async () => {
  const { origin, url } = stack();

  // No token at all.
  for (const path of ['/', '/index.html', '/assets/']) {
    const answer = await get(`${origin}${path}`);
    expect(answer.status, path).toBe(401);
    expectNoAppContent(answer.body);
  }
  // A wrong token in the query, and a wrong cookie.
  const wrongQuery = await get(`${origin}/?token=${WRONG_TOKEN}`);
  expect(wrongQuery.status).toBe(401);
  expect(wrongQuery.headers.get('set-cookie')).toBeNull();
  expectNoAppContent(wrongQuery.body);
  const cookieName = `md_token_${new URL(origin).port}`;
  const wrongCookie = await get(`${origin}/`, { cookie: `${cookieName}=${WRONG_TOKEN}` });
  expect(wrongCookie.status).toBe(401);
  expectNoAppContent(wrongCookie.body);

  // The right token: a cookie and a redirect to a URL without the token, then the app.
  const cookie = await sessionCookie();
  const redirected = await get(url);
  expect(redirected.headers.get('location')).toBe('/');
  const page = await get(`${origin}/`, { cookie });
  expect(page.status).toBe(200);
  expect(page.body).toContain('<div id="root">');
});

test('refuses a /bridge WebSocket without the cookie', async ({ page }) => {
  const { origin, token } = stack();
  const wsUrl = `${origin.replace(/^http/, 'ws')}/bridge`;

  // From Node: no cookie, a wrong cookie, the token in the query (only honoured on page loads).
  expect(await openBridge(wsUrl)).toEqual({ opened: false, status: 401 });
  expect(await openBridge(wsUrl, { cookie: `md_token_${new URL(origin).port}=${WRONG_TOKEN}` })).toEqual({ opened: false, status: 401 });
  expect(await openBridge(`${wsUrl}?token=${encodeURIComponent(token)}`)).toEqual({ opened: false, status: 401 });
  // The control: with the session cookie it opens.
  expect(await openBridge(wsUrl, { cookie: await sessionCookie() })).toEqual({ opened: true, status: 101 });

  // From a browser that never got the cookie: the page is refused and so is the socket.
  const response = await page.goto(`${origin}/`);
  expect(response?.status()).toBe(401);
  await expect(page.locator('body')).toHaveText('Unauthorized');
  const outcome = await page.evaluate(
    (url) =>
      new Promise<string>((done) => {
        const socket = new WebSocket(url);
        socket.onopen = () => done('open');
        socket.onclose = (event) => done(`closed ${event.code}`);
      }),
    wsUrl,
  );
  expect(outcome).toBe('closed 1006');
});
