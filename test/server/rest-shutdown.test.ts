import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/server/sandbox';
import { adminApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Splits the bytes of pipelined HTTP/1.1 answers (each with a Content-Length) into responses. */
function parseResponses(data: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = data;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete head: ${rest.toString('latin1')}`);
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length']);
    if (!Number.isInteger(length)) throw new Error(`no content-length in ${statusLine}`);
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.subarray(end + 4, end + 4 + length),
    });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
}

describe('sandbox REST: shutting down', () => {
  it('answers a request that arrives while the server closes with a 503 {error, message} envelope', async () => {
    const sb = await startSandbox({ items: 20, seed: 1 });
    const merchant = await adminApi(sb).createMerchant({});
    const socket = connect(Number(new URL(sb.baseUrl).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const auth = `x-api-key: ${merchant.apiKey}\r\nx-merchant-id: ${merchant.merchantId}\r\n`;

    // A request in progress keeps the connection busy, so closing does not drop it as idle…
    const body = '{"itemId":[1]}';
    socket.write(
      `POST /Items/SearchItems HTTP/1.1\r\nHost: sandbox\r\n${auth}content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = sb.close();
    await waitFor(() => !sb.app.server.listening, 10_000, 'the server to stop listening', 1);
    // …and a second request pipelined behind it arrives while the server is closing.
    socket.write(`${body}GET /Wallet/GetBalance HTTP/1.1\r\nHost: sandbox\r\n${auth}accept-encoding: gzip\r\n\r\n`);
    await ended;
    await closing;

    const responses = parseResponses(Buffer.concat(chunks));
    expect(responses.map((r) => r.status)).toEqual([200, 503]);
    const [first, refused] = responses as [RawResponse, RawResponse];
    expect(JSON.parse(first.body.toString('utf8'))).toMatchObject({ totalItems: 0 });
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refused.headers['connection']).toBe('close');
    expect(refused.headers['retry-after']).toBe('1');
    // Gzipped like every answer to a client that accepts it; nothing of fastify's own 503 body.
    expect(refused.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(refused.body).toString('utf8'))).toEqual({
      error: 'unavailable',
      message: 'The sandbox is shutting down. Please try again later.',
    });
  });
});
