import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * A refused WebSocket upgrade: a plain HTTP answer in the API's `{error, message}`
 * envelope, written on the raw socket (the HTTP framework never sees upgrades),
 * then the socket is closed.
 */
export function refuseUpgrade(
  socket: Duplex,
  status: number,
  body: { error: string; message: string },
  headers: Record<string, string> = {},
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const json = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(json)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${json}`);
}

/** `x-api-key` and `x-merchant-id` count only as single string values. */
export function singleHeader(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}
