import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

export const BASELINE_FRAME = '{"type":"price_changed","items":[{"itemId":123456,"price":98765}]}';

/** Raw `ws` on loopback: small text frames, server to one client (1 MiB send window), frames per second. */
export async function rawWsFramesPerSec(seconds: number, frame = BASELINE_FRAME): Promise<number> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const data = Buffer.from(frame);
  let received = 0;
  let sending = true;
  wss.on('connection', (ws) => {
    const pump = () => {
      if (!sending || ws.readyState !== WebSocket.OPEN) return;
      for (let i = 0; i < 256 && ws.bufferedAmount < 1024 * 1024; i++) ws.send(data, { binary: false });
      setImmediate(pump);
    };
    pump();
  });
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  client.on('message', () => received++);
  await new Promise((resolve) => client.once('open', resolve));
  const start = performance.now();
  const startCount = received;
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const framesPerSec = (received - startCount) / ((performance.now() - start) / 1000);
  sending = false;
  client.terminate();
  for (const ws of wss.clients) ws.terminate();
  await new Promise((resolve) => wss.close(resolve));
  await new Promise((resolve) => server.close(resolve));
  return Math.round(framesPerSec);
}
