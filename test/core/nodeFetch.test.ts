/**
 * The node:http transport of the API client, against a real loopback server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../src/main/core/api/nodeFetch';
import { waitFor } from '../support/waitFor';

let server: Server;
let base = '';
let held: ServerResponse | null = null;

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/gzip') {
        response.writeHead(429, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'retry-after': '7' });
        response.end(gzipSync(JSON.stringify({ error: 'rate_limited', message: 'é slow down' })));
      } else if (request.url === '/echo') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            method: request.method,
            body,
            key: request.headers['x-api-key'],
            length: request.headers['content-length'],
            port: request.socket.remotePort,
          }),
        );
      } else if (request.url === '/hold') {
        held = response;
      } else {
        response.writeHead(204);
        response.end();
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  held?.destroy();
  await new Promise((done) => server.close(done));
});

describe('nodeFetch', () => {
  it('decodes gzip bodies and keeps status and headers', async () => {
    const response = await nodeFetch(`${base}/gzip`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.status).toBe(429);
    expect(response.ok).toBe(false);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(await response.text())).toEqual({ error: 'rate_limited', message: 'é slow down' });
  });

  it('sends headers given as a plain object (any case), a Headers or pairs, the same way', async () => {
    const sources: HeadersInit[] = [
      { 'X-Api-Key': 'k1', 'Content-Type': 'application/json' },
      new Headers({ 'x-api-key': 'k2' }),
      [['X-API-KEY', 'k3']],
    ];
    const keys: string[] = [];
    for (const headers of sources) {
      const response = await nodeFetch(`${base}/echo`, { method: 'POST', headers, body: '{}' });
      keys.push(((await response.json()) as { key: string; length: string }).key);
    }
    expect(keys).toEqual(['k1', 'k2', 'k3']);
  });

  it('sends method, headers and a string body, and reuses one connection', async () => {
    const ports = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const response = await nodeFetch(`${base}/echo`, {
        method: 'POST',
        headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
        body: '{"a":"é"}',
      });
      const echoed = (await response.json()) as { port: number };
      expect(echoed).toEqual({ method: 'POST', body: '{"a":"é"}', key: 'k', length: '10', port: expect.any(Number) });
      ports.add(echoed.port);
    }
    expect(ports.size).toBe(1);
    expect((await nodeFetch(`${base}/empty`)).status).toBe(204);
  });

  it('stops at once when its signal aborts, closing the request', async () => {
    const controller = new AbortController();
    const pending = nodeFetch(`${base}/hold`, { signal: controller.signal });
    await waitFor(() => held !== null, 5000);
    const closed = new Promise((done) => held?.on('close', done));
    controller.abort(new Error('gave up'));
    await expect(pending).rejects.toThrow('gave up');
    await closed;
  });

  it('rejects with the network error when nothing listens', async () => {
    await expect(nodeFetch('http://127.0.0.1:1/x')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
