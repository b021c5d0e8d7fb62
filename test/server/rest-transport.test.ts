import fc from 'fast-check';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CHOICES } from '../../src/server/config';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi } from '../support/sandboxHttp';
import { parseAnswer, rawExchange, type RawAnswer } from './rawHttp';

/**
 * The sandbox below its routes: what reaches the socket before fastify has a request
 * (request lines, header sizes, slow or silent clients) still ends in the spec's
 * `{error, message}` envelope, and nobody holds a connection open for long.
 */

const TIMEOUTS = { headersMs: 600, requestMs: 1200, idleMs: 600 };
/** Longest a timed-out connection may stay open in these tests: its time-out plus the server's check interval, with room for a busy machine. */
const GRACE_MS = 4000;

function expectEnvelope(answer: RawAnswer, status: number, error: string): void {
  expect(answer.status, JSON.stringify(answer)).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = answer.body as Record<string, unknown>;
  expect(Object.keys(body).sort(), JSON.stringify(body)).toEqual(['error', 'message']);
  expect(body.error).toBe(error);
  expect(typeof body.message).toBe('string');
  expect(String(body.message).length).toBeGreaterThan(0);
}

const credentialHeaders = (m: MerchantCredentials) => `x-api-key: ${m.apiKey}\r\nx-merchant-id: ${m.merchantId}\r\n`;

describe('sandbox HTTP: time-outs for slow and silent clients', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;

  beforeAll(async () => {
    sb = await startSandbox({ items: 20, seed: 3, httpTimeouts: TIMEOUTS });
    merchant = await adminApi(sb).createMerchant({ balance: 100_000 });
  });
  afterAll(() => sb.close());

  it('a body that trickles in is cut at the request time-out with a 408 envelope, and buys nothing', async () => {
    const head = `POST /Items/Buy HTTP/1.1\r\nHost: sandbox\r\n${credentialHeaders(merchant)}content-type: application/json\r\ncontent-length: 400\r\n\r\n{`;
    const exchange = await rawExchange(sb.baseUrl, head, {
      trickle: { next: () => ' ', everyMs: 100 },
      deadlineMs: TIMEOUTS.requestMs + GRACE_MS,
    });
    expect(exchange.closed).toBe(true);
    expectEnvelope(parseAnswer(exchange.text), 408, 'request_timeout');
    expect(sb.core.db.prepare('SELECT count(*) AS n FROM trades').get()).toEqual({ n: 0 });
  });

  it('headers that trickle in are cut at the headers time-out with a 408 envelope', async () => {
    const exchange = await rawExchange(sb.baseUrl, 'GET /Wallet/GetBalance HTTP/1.1\r\nHost: sandbox\r\n', {
      trickle: { next: () => 'x-slow: 1\r\n', everyMs: 100 },
      deadlineMs: TIMEOUTS.headersMs + GRACE_MS,
    });
    expect(exchange.closed).toBe(true);
    expectEnvelope(parseAnswer(exchange.text), 408, 'request_timeout');
  });

  it('a connection that never sends a byte is closed at the headers time-out', async () => {
    const exchange = await rawExchange(sb.baseUrl, '', { deadlineMs: TIMEOUTS.headersMs + GRACE_MS });
    expect(exchange.closed).toBe(true);
    expectEnvelope(parseAnswer(exchange.text), 408, 'request_timeout');
  });

  it('an idle keep-alive connection is closed after the idle time-out, its answer intact', async () => {
    const exchange = await rawExchange(
      sb.baseUrl,
      `GET /Wallet/GetBalance HTTP/1.1\r\nHost: sandbox\r\n${credentialHeaders(merchant)}\r\n`,
      {
        deadlineMs: TIMEOUTS.idleMs + GRACE_MS,
      },
    );
    expect(exchange.closed).toBe(true);
    const answer = parseAnswer(exchange.text);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ balance: 100_000, credit_limit: 0, total_available: 100_000 });
  });

  it('an open WebSocket feed outlives the request and idle time-outs', async () => {
    const ws = new WebSocket(sb.wsUrl, {
      headers: { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId },
    });
    let closed = false;
    ws.on('close', () => (closed = true));
    await new Promise<void>((resolve, reject) => {
      ws.once('message', () => resolve());
      ws.once('error', reject);
    });
    // A trickled request opened after the feed is cut at the request time-out: by then the feed has lived past it.
    const head = `POST /Items/SearchItems HTTP/1.1\r\nHost: sandbox\r\n${credentialHeaders(merchant)}content-type: application/json\r\ncontent-length: 50\r\n\r\n`;
    const cut = await rawExchange(sb.baseUrl, head, {
      trickle: { next: () => ' ', everyMs: 100 },
      deadlineMs: TIMEOUTS.requestMs + GRACE_MS,
    });
    expect(parseAnswer(cut.text).status).toBe(408);
    const pong = new Promise<void>((resolve) => ws.once('pong', () => resolve()));
    ws.ping();
    await pong;
    expect(closed).toBe(false);
    expect(sb.feed.connectionCount(merchant.merchantId)).toBe(1);
    ws.terminate();
  });

  it('a request that arrives slowly but within the time-outs is answered normally', async () => {
    const body = JSON.stringify({ itemId: [1] });
    const head = `POST /Items/SearchItems HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n${credentialHeaders(merchant)}content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    // Three pieces 150 ms apart: well inside the 1.2 s request time-out.
    const pieces = [body.slice(0, 5), body.slice(5, 10), body.slice(10)];
    const exchange = await rawExchange(sb.baseUrl, head, {
      trickle: { next: (i) => pieces[i] ?? null, everyMs: 150 },
      deadlineMs: GRACE_MS,
    });
    const answer = parseAnswer(exchange.text);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ totalItems: expect.any(Number) });
  });
});

describe('sandbox HTTP: default time-outs', () => {
  it('are finite and in the order headers ≤ whole request', async () => {
    const sb = await startSandbox({ items: 5 });
    try {
      expect(sb.app.server.headersTimeout).toBe(SANDBOX_CHOICES.headersTimeoutMs);
      expect(sb.app.server.requestTimeout).toBe(SANDBOX_CHOICES.requestTimeoutMs);
      expect(sb.app.server.keepAliveTimeout).toBe(SANDBOX_CHOICES.idleTimeoutMs);
      expect(SANDBOX_CHOICES.headersTimeoutMs).toBeLessThanOrEqual(SANDBOX_CHOICES.requestTimeoutMs);
      expect(SANDBOX_CHOICES.requestTimeoutMs).toBeLessThanOrEqual(60_000);
    } finally {
      await sb.close();
    }
  });
});

describe('sandbox HTTP: every answer is the envelope, also for what never reaches a route', () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await startSandbox({ items: 20, seed: 4 });
  });
  afterAll(() => sb.close());

  const send = async (head: string) => parseAnswer((await rawExchange(sb.baseUrl, head, { deadlineMs: 5000 })).text);

  it.each([
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n', 400, 'invalid_request'],
    ['a method with a space', 'GE T /health HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'invalid_request'],
    [
      'a Content-Length that is not a number',
      'POST /Items/Buy HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      400,
      'invalid_request',
    ],
    [
      'two different Content-Lengths',
      'POST /Items/Buy HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      400,
      'invalid_request',
    ],
    [
      'a header over 16 KB',
      `GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'invalid_request',
    ],
    ['a path over 16 KB', `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'invalid_request'],
    [
      'a broken escape in an API path',
      'GET /Wallet/GetBalance%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      400,
      'invalid_request',
    ],
    [
      'a broken escape in an image path',
      'GET /img/sticker/%E0%A4%A.svg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      400,
      'invalid_request',
    ],
    [
      'a path parameter over 100 characters',
      `GET /img/sticker/${'a'.repeat(200)}.svg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      414,
      'invalid_request',
    ],
    [
      'an admin path parameter over 100 characters',
      `GET /admin/merchants/${'a'.repeat(200)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      414,
      'invalid_request',
    ],
  ])('%s', async (_what, head, status, error) => {
    expectEnvelope(await send(head), status, error);
  });

  it('a broken escape is gzipped like any other answer when the client accepts gzip', async () => {
    const exchange = await rawExchange(
      sb.baseUrl,
      'GET /Wallet/GetBalance%ZZ HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n',
    );
    const split = exchange.text.indexOf('\r\n\r\n');
    expect(exchange.text.slice(0, split)).toMatch(/^HTTP\/1\.1 400 /);
    expect(exchange.text.slice(0, split).toLowerCase()).toContain('content-encoding: gzip');
  });

  it('junk request heads get either no answer or an envelope, never a framework body', async () => {
    const junkLine = fc.string({
      unit: fc.constantFrom(...'GETPOS /%?&=aZ09:.\t\r\n\u00e9\u0000'.split('')),
      maxLength: 60,
    });
    await fc.assert(
      fc.asyncProperty(
        junkLine,
        fc.constantFrom('', 'Host: x\r\n', 'Host: x\r\nContent-Length: 3\r\n'),
        async (line, headers) => {
          const exchange = await rawExchange(sb.baseUrl, `${line}\r\n${headers}Connection: close\r\n\r\n`, {
            deadlineMs: 5000,
          });
          if (exchange.text.length === 0) return;
          const answer = parseAnswer(exchange.text);
          if (answer.status < 400) return;
          const body = answer.body as Record<string, unknown>;
          expect(Object.keys(body).sort(), JSON.stringify({ line, answer })).toEqual(['error', 'message']);
        },
      ),
      { numRuns: 80 },
    );
  });
});
