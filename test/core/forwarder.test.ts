import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotificationForwarder, type ForwardSettings } from '../../src/main/core/notify/forwarder';
import { parseForwardUrl } from '../../src/shared/forwardUrl';
import type { Notification } from '../../src/shared/ipc';
import { waitFor } from '../support/waitFor';

/** A chat webhook on loopback: records every body, and fails on demand. */
class Receiver {
  readonly received: { path: string; body: Record<string, unknown>; at: number }[] = [];
  /** What the next requests get: a status, 'slow' (answers after `slowMs`), or 'ok'. */
  mode: 'ok' | 'slow' | number = 'ok';
  slowMs = 1_000;
  port = 0;
  private server: http.Server | null = null;

  async start(port = 0): Promise<void> {
    const server = http.createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      request.on('end', () => {
        this.received.push({
          path: request.url ?? '',
          body: JSON.parse(text) as Record<string, unknown>,
          at: Date.now(),
        });
        const answer = () => {
          const status = typeof this.mode === 'number' ? this.mode : 204;
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(
            status === 204
              ? undefined
              : JSON.stringify(
                  status === 429 ? { message: 'You are being rate limited.', retry_after: 0.6 } : { message: 'nope' },
                ),
          );
        };
        if (this.mode === 'slow') setTimeout(answer, this.slowMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  texts(): string[] {
    return this.received.map((r) => String(r.body.content ?? r.body.text));
  }
}

const API_KEY = 'sk_live_abcdefgh12345678';
const TRADE_URL = 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=Ab3dE6gH';

let serial = 0;
function notification(title: string, body: string, kind: Notification['kind'] = 'trade'): Notification {
  serial++;
  return { id: `n${serial}`, kind, title, body, target: null, at: new Date().toISOString() };
}

describe('notification forwarder against a local webhook receiver', () => {
  let receiver: Receiver;
  let settings: ForwardSettings;
  let reports: Notification[];
  let forwarder: NotificationForwarder;

  const make = (overrides: Partial<ConstructorParameters<typeof NotificationForwarder>[0]> = {}) =>
    new NotificationForwarder({
      settings: () => settings,
      categoryOf: (n) => n.kind,
      report: (n) => reports.push(n),
      scrub: (text) => text.split(API_KEY).join('[redacted]'),
      minIntervalMs: 150,
      gatherMs: 20,
      timeoutMs: 300,
      // The receiver listens on loopback: the test-only opt-in (no setting reaches it).
      allowPrivateAddresses: true,
      ...overrides,
    });

  beforeEach(async () => {
    receiver = new Receiver();
    await receiver.start();
    reports = [];
    settings = {
      url: `http://127.0.0.1:${receiver.port}/api/webhooks/1/SECRET-WEBHOOK-TOKEN`,
      categories: ['trade', 'alert'],
    };
    forwarder = make();
  });

  afterEach(async () => {
    await forwarder.stop();
    await receiver.stop();
  });

  it('posts a Discord-compatible body without the API key or a full trade URL token', async () => {
    forwarder.offer([notification('AK-47 | Redline', `Trade $12.34 was delivered to ${TRADE_URL} (key ${API_KEY})`)]);
    await waitFor(() => receiver.received.length === 1);
    const [first] = receiver.received;
    expect(first?.path).toBe('/api/webhooks/1/SECRET-WEBHOOK-TOKEN');
    expect(first?.body).toEqual({
      username: 'Merchant Desk',
      // Discord's Markdown escaped: the mask and the brackets show as written.
      content:
        'AK-47 \\| Redline — Trade $12.34 was delivered to https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=Ab\\*\\*\\*\\*\\*\\* \\(key \\[redacted\\]\\)',
      allowed_mentions: { parse: [] },
    });
    const raw = JSON.stringify(receiver.received);
    expect(raw).not.toContain(API_KEY);
    expect(raw).not.toContain('Ab3dE6gH');
  });

  it('posts a Telegram sendMessage body to a bot URL', async () => {
    settings = {
      ...settings,
      url: `http://127.0.0.1:${receiver.port}/bot123456:TOKEN-abc/sendMessage?chat_id=-100200300`,
    };
    forwarder.offer([notification('Sand Dune', 'Trade $0.05 was delivered')]);
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.received[0]?.path).toBe('/bot123456:TOKEN-abc/sendMessage?chat_id=-100200300');
    expect(receiver.received[0]?.body).toEqual({
      chat_id: '-100200300',
      text: 'Sand Dune — Trade $0.05 was delivered',
      disable_web_page_preview: true,
    });
  });

  it('merges a burst into one message, sends only the chosen categories and keeps one POST per interval', async () => {
    settings = { ...settings, categories: ['trade'] };
    for (let i = 1; i <= 30; i++) forwarder.offer([notification(`Item ${i}`, 'Trade $1.00 was delivered')]);
    forwarder.offer([notification('Alert: Karambit', 'Listed at $641.00', 'alert')]);
    await waitFor(() => receiver.received.length === 1);
    const text = receiver.texts()[0] ?? '';
    expect(text.split('\n')[0]).toBe('Merchant Desk: 30 notifications');
    expect(text).toContain('• Item 1 — Trade $1.00 was delivered');
    expect(text).toContain('• Item 30 — Trade $1.00 was delivered');
    expect(text).not.toContain('Karambit');

    // A second burst right after the first message: one more message, not before the interval has passed.
    forwarder.offer([notification('Item 31', 'Trade $1.00 was cancelled')]);
    forwarder.offer([notification('Item 32', 'Trade $1.00 was cancelled')]);
    await waitFor(() => receiver.received.length === 2);
    const [first, second] = receiver.received;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(140);
    expect(receiver.texts()[1]).toBe(
      'Merchant Desk: 2 notifications\n• Item 31 — Trade $1.00 was cancelled\n• Item 32 — Trade $1.00 was cancelled',
    );
  });

  it('cuts a long batch to the chat limit and says how many more there were', async () => {
    for (let i = 1; i <= 200; i++)
      forwarder.offer([
        notification(`Karambit | Doppler ${i}`, `Trade $641.${String(i % 100).padStart(2, '0')} was delivered`),
      ]);
    await waitFor(() => receiver.received.length === 1);
    const text = receiver.texts()[0] ?? '';
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toMatch(/\n…and \d+ more$/);
  });

  it('survives a receiver that answers 500: reports once, keeps what arrived meanwhile and delivers it all later', async () => {
    receiver.mode = 500;
    forwarder.offer([notification('First', 'Trade $1.00 was delivered')]);
    await waitFor(() => receiver.received.length >= 1 && reports.length === 1);
    forwarder.offer([notification('Second', 'Trade $2.00 was delivered')]);
    await waitFor(() => receiver.received.length >= 2);
    expect(reports).toHaveLength(1); // one report for the run of failures, not one per attempt
    expect(reports[0]?.title).toBe(`Forwarding to 127.0.0.1:${receiver.port} failed`);
    expect(reports[0]?.body).toMatch(/answered HTTP 500; trying again in 150 ms$/);
    expect(JSON.stringify(reports)).not.toContain('SECRET-WEBHOOK-TOKEN');
    expect(forwarder.status().problem).toMatch(/HTTP 500/);

    receiver.mode = 'ok';
    await waitFor(() => reports.length === 2);
    expect(reports[1]?.title).toBe(`Forwarding to 127.0.0.1:${receiver.port} works again`);
    const last = receiver.texts().at(-1) ?? '';
    expect(last).toContain('First — Trade $1.00 was delivered');
    expect(last).toContain('Second — Trade $2.00 was delivered');
    expect(forwarder.status()).toMatchObject({ problem: null, pending: 0 });
  });

  it('backs off while the receiver keeps failing', async () => {
    receiver.mode = 503;
    forwarder.offer([notification('Held', 'Trade $1.00 was delivered')]);
    await waitFor(() => receiver.received.length >= 4, 10_000);
    const gaps = receiver.received.slice(1).map((r, i) => r.at - (receiver.received[i]?.at ?? 0));
    // 150, 300, 600 ms: each wait about twice the one before.
    expect(gaps[0]).toBeGreaterThanOrEqual(140);
    expect(gaps[1]).toBeGreaterThanOrEqual(290);
    expect(gaps[2]).toBeGreaterThanOrEqual(590);
  });

  it("waits out a 429's retry_after before the next attempt", async () => {
    receiver.mode = 429;
    forwarder.offer([notification('Limited', 'Trade $1.00 was delivered')]);
    await waitFor(() => receiver.received.length === 1);
    receiver.mode = 'ok';
    await waitFor(() => receiver.received.length === 2);
    const [first, second] = receiver.received;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(590);
    expect(reports[0]?.body).toMatch(/answered HTTP 429; trying again in 600 ms$/);
  });

  it('survives a refused connection and delivers once the receiver is back on its port', async () => {
    const port = receiver.port;
    await receiver.stop();
    forwarder.offer([notification('While down', 'Trade $3.00 was delivered')]);
    await waitFor(() => reports.length === 1);
    expect(reports[0]?.body).toBe(`127.0.0.1:${port} could not be reached; trying again in 150 ms`);
    await receiver.start(port);
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.texts()[0]).toBe('While down — Trade $3.00 was delivered');
  });

  it('gives up on a slow receiver after its time-out and sends the message again', async () => {
    receiver.mode = 'slow';
    forwarder.offer([notification('Slow', 'Trade $4.00 was delivered')]);
    await waitFor(() => reports.length === 1);
    expect(reports[0]?.body).toBe(`127.0.0.1:${receiver.port} could not be reached; trying again in 150 ms`);
    receiver.mode = 'ok';
    await waitFor(() => reports.length === 2);
    expect(receiver.texts().at(-1)).toBe('Slow — Trade $4.00 was delivered');
  });

  it('drops a message the receiver refuses (4xx) and says so, and the next one goes through', async () => {
    receiver.mode = 404;
    forwarder.offer([notification('Refused', 'Trade $5.00 was delivered')]);
    await waitFor(() => reports.length === 1);
    expect(reports[0]?.body).toMatch(
      /answered HTTP 404; 1 notification not forwarded \(check the webhook URL in Settings\)/,
    );
    receiver.mode = 'ok';
    forwarder.offer([notification('Next', 'Trade $6.00 was delivered')]);
    await waitFor(() => receiver.received.length === 2);
    expect(receiver.texts()[1]).toBe('Next — Trade $6.00 was delivered');
  });

  it('a new URL is tried at once, without the backoff the old one earned', async () => {
    const failing = new Receiver();
    await failing.start();
    failing.mode = 500;
    settings = { ...settings, url: `http://127.0.0.1:${failing.port}/hook` };
    forwarder = make({ minIntervalMs: 100, maxBackoffMs: 60_000 });
    forwarder.offer([notification('Moved', 'Trade $7.00 was delivered')]);
    await waitFor(() => failing.received.length >= 4);
    // The next attempt at the old URL is due 800 ms after the last; the new one gets the message well before that.
    const changedAt = Date.now();
    settings = { ...settings, url: `http://127.0.0.1:${receiver.port}/new-hook` };
    forwarder.settingsChanged();
    await waitFor(() => receiver.received.length === 1);
    expect(Date.now() - changedAt).toBeLessThan(400);
    expect(receiver.texts()[0]).toBe('Moved — Trade $7.00 was delivered');
    await failing.stop();
  });

  it('says why nothing is forwarded when the stored URL is unusable (edited by hand)', async () => {
    settings = { ...settings, url: 'ftp://example.com/hook' };
    forwarder.offer([notification('Lost?', 'Trade $1.00 was delivered')]);
    await waitFor(() => reports.length === 1);
    expect(reports[0]?.body).toBe(
      'The webhook URL in the settings is not usable: Only http:// and https:// webhook URLs are allowed (not ftp:); 1 notification not forwarded',
    );
    expect(forwarder.status().problem).toBe(reports[0]?.body);
  });

  it('redacts a trade URL token however it is written: in a URL, HTML-escaped, URL-encoded, bare', async () => {
    const forms = [
      'https://steamcommunity.com/tradeoffer/new/?partner=1&token=Ab3dE6gH',
      'https://steamcommunity.com/tradeoffer/new/?partner=1&amp;token=Ab3dE6gH',
      'partner%3D1%26token%3DAb3dE6gH',
      'partner=1&amp;TOKEN=Ab3dE6gH',
      'token=Ab3dE6gH',
      '(token=Ab3dE6gH)',
      'token%253DAb3dE6gH',
      'token&#61;Ab3dE6gH',
    ];
    // Telegram: plain text, so the mask reads as it is.
    settings = { ...settings, url: `http://127.0.0.1:${receiver.port}/bot1:A/sendMessage?chat_id=42` };
    forwarder.offer(forms.map((form, i) => notification(`Item ${i}`, `Trade $1.00 to ${form} was delivered`)));
    await waitFor(() => receiver.received.length === 1);
    const text = receiver.texts()[0] ?? '';
    expect(text.split('\n')).toHaveLength(forms.length + 1);
    expect(text).not.toContain('3dE6gH');
    expect(text).toContain('token=Ab******');
  });

  it('escapes Markdown in a Discord message: an item name is no link, no mention, no formatting', async () => {
    forwarder.offer([
      notification(
        'Karambit [claim your prize](http://evil.example/x) @everyone',
        '**Trade** $1.00 to @here was `delivered` ||now||',
      ),
    ]);
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.texts()[0]).toBe(
      'Karambit \\[claim your prize\\]\\(http://evil.example/x\\) \\@everyone — \\*\\*Trade\\*\\* $1.00 to \\@here was \\`delivered\\` \\|\\|now\\|\\|',
    );
    // Telegram gets plain text (no parse mode): nothing to escape.
    settings = { ...settings, url: `http://127.0.0.1:${receiver.port}/bot1:A/sendMessage?chat_id=42` };
    forwarder.offer([notification('Karambit [x](http://evil.example/x)', 'Trade $1.00 was delivered')]);
    await waitFor(() => receiver.received.length === 2);
    expect(receiver.texts()[1]).toBe('Karambit [x](http://evil.example/x) — Trade $1.00 was delivered');
  });

  it('reads at most a few KB of an answer: a receiver streaming without end costs nothing, and the message counts as delivered', async () => {
    let written = 0;
    let clientGone = false;
    const endless = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (!clientGone && written < 2 * 1024 ** 3) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
      };
      response.on('close', () => (clientGone = true));
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      settings = { ...settings, url: `http://127.0.0.1:${(endless.address() as AddressInfo).port}/hook` };
      forwarder = make({ timeoutMs: 5_000 });
      forwarder.offer([notification('Big answer', 'Trade $1.00 was delivered')]);
      await waitFor(() => forwarder.status().lastSentAt !== null && clientGone, 10_000);
      expect(reports).toEqual([]);
      // What the kernel's buffers took before the app hung up, not a stream read to its end.
      expect(written).toBeLessThan(64 * 1024 ** 2);
    } finally {
      endless.closeAllConnections();
      await new Promise<void>((resolve) => endless.close(() => resolve()));
    }
  });

  it('says the same of every unreachable receiver, whatever listens there: no port scanner', async () => {
    // A port nobody listens on, one that accepts and stays silent, one that answers something other than HTTP.
    const closed = new Receiver();
    await closed.start();
    const closedPort = closed.port;
    await closed.stop();
    const accepted = new Set<net.Socket>();
    const silent = net.createServer((socket) => accepted.add(socket));
    const garbage = net.createServer((socket) => {
      accepted.add(socket);
      socket.end('SSH-2.0-OpenSSH_9.6\r\n');
    });
    for (const server of [silent, garbage])
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const ports = [closedPort, (silent.address() as AddressInfo).port, (garbage.address() as AddressInfo).port];
      for (const port of ports) {
        reports = [];
        await forwarder.stop();
        settings = { ...settings, url: `http://127.0.0.1:${port}/hook` };
        forwarder = make();
        forwarder.offer([notification('Probe', 'Trade $1.00 was delivered')]);
        await waitFor(() => reports.length === 1);
        expect(reports[0]?.body, `port ${port}`).toBe(`127.0.0.1:${port} could not be reached; trying again in 150 ms`);
      }
    } finally {
      await forwarder.stop();
      for (const socket of accepted) socket.destroy();
      for (const server of [silent, garbage]) await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('forwards nothing of its own reports, and nothing once the URL is removed', async () => {
    receiver.mode = 500;
    forwarder = make({
      report: (n) => {
        reports.push(n);
        forwarder.offer([n]);
      },
    });
    forwarder.offer([notification('Loop?', 'Trade $1.00 was delivered')]);
    await waitFor(() => reports.length === 1 && receiver.received.length >= 2);
    expect(receiver.texts().every((text) => !text.includes('Forwarding to'))).toBe(true);
    settings = { ...settings, url: null };
    forwarder.settingsChanged();
    expect(forwarder.status()).toMatchObject({ host: null, pending: 0 });
  });
});

describe('where forwarding may go', () => {
  it('refuses loopback, private, link-local and other non-public destinations, also a name that resolves to one, without connecting', async () => {
    const receiver = new Receiver();
    await receiver.start();
    const port = receiver.port;
    const reports: Notification[] = [];
    let url = '';
    const forwarder = new NotificationForwarder({
      settings: () => ({ url, categories: ['trade'] }),
      categoryOf: (n) => n.kind,
      report: (n) => reports.push(n),
      minIntervalMs: 50,
      gatherMs: 10,
      timeoutMs: 2_000,
    });
    try {
      const destinations = [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `[::1]:${port}`,
        `[::ffff:127.0.0.1]:${port}`,
        `0.0.0.0:${port}`,
        '10.1.2.3',
        '172.16.5.4',
        '192.168.1.1',
        '100.64.0.1',
        '169.254.169.254',
        '[fe80::1]',
        '[fd00::1]',
        '224.0.0.1',
      ];
      for (const destination of destinations) {
        reports.length = 0;
        url = `http://${destination}/api/webhooks/1/SECRET`;
        forwarder.settingsChanged();
        forwarder.offer([notification('Probe', 'Trade $1.00 was delivered')]);
        await waitFor(() => reports.length === 1);
        const host = new URL(url).host;
        expect(reports[0]?.body, destination).toBe(
          `${host} is not a public address: forwarding goes to public chat services only; 1 notification not forwarded (check the webhook URL in Settings)`,
        );
      }
      expect(receiver.received).toEqual([]);
    } finally {
      await forwarder.stop();
      await receiver.stop();
    }
  });
});

describe('webhook URL validation', () => {
  it('takes http and https, recognises a Telegram sendMessage URL and says what is wrong otherwise', () => {
    expect(parseForwardUrl('https://discord.com/api/webhooks/1/abc')).toMatchObject({
      ok: true,
      target: { format: 'discord' },
    });
    expect(parseForwardUrl('https://api.telegram.org/bot123:AA/sendMessage?chat_id=42')).toMatchObject({
      ok: true,
      target: { format: 'telegram', chatId: '42' },
    });
    expect(parseForwardUrl('https://api.telegram.org/bot123:AA/sendMessage')).toEqual({
      ok: false,
      problem: 'A Telegram sendMessage URL needs the chat: add ?chat_id=<chat id> (a number, or @channelname)',
    });
    expect(parseForwardUrl('ftp://example.com/hook')).toEqual({
      ok: false,
      problem: 'Only http:// and https:// webhook URLs are allowed (not ftp:)',
    });
    expect(parseForwardUrl('javascript:alert(1)')).toMatchObject({ ok: false });
    expect(parseForwardUrl('not a url')).toEqual({
      ok: false,
      problem: 'Not a URL: paste the webhook URL, starting with https://',
    });
    expect(parseForwardUrl('https://user:pw@example.com/hook')).toMatchObject({ ok: false });
    expect(parseForwardUrl(`https://example.com/${'a'.repeat(2100)}`)).toMatchObject({ ok: false });
  });
});
