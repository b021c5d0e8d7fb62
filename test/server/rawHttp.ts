import { connect, type Socket } from 'node:net';

/** What came back on a raw connection: the bytes, and when (if) the server closed it. */
export interface RawExchange {
  text: string;
  closed: boolean;
  elapsedMs: number;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface RawOptions {
  /** `next(0)`, `next(1)`, … written `everyMs` apart until it returns null or the server closes the connection. */
  trickle?: { next: (index: number) => string | null; everyMs: number };
  /** The test gives up after this long (the connection is then destroyed and `closed` is false). */
  deadlineMs?: number;
  /** Bind the client side to this loopback address (all of 127/8 is loopback on Linux). */
  localAddress?: string;
}

/**
 * Talks HTTP/1.1 by hand over node:net, for what fetch and node:http refuse to send:
 * malformed request lines, oversized headers, bodies that trickle, silence.
 */
export function rawExchange(baseUrl: string, head: string, options: RawOptions = {}): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: hostname, port: Number(port), localAddress: options.localAddress });
    const chunks: Buffer[] = [];
    let trickle: NodeJS.Timeout | null = null;
    const finish = (closed: boolean) => {
      if (trickle) clearInterval(trickle);
      clearTimeout(deadline);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed, elapsedMs: Date.now() - started });
    };
    const deadline = setTimeout(() => finish(false), options.deadlineMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', () => {
      if (head.length > 0) socket.write(head);
      const drip = options.trickle;
      let index = 0;
      if (drip) {
        trickle = setInterval(() => {
          const chunk = drip.next(index++);
          if (chunk === null && trickle) clearInterval(trickle);
          else if (chunk !== null && socket.writable) socket.write(chunk);
        }, drip.everyMs);
      }
    });
  });
}

/** The first HTTP answer in raw bytes (plain, not chunked: every answer under test has a Content-Length). */
export function parseAnswer(text: string): RawAnswer {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`no HTTP answer in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const rest = text.slice(split + 4);
  const raw = Buffer.from(rest, 'utf8').subarray(0, length).toString('utf8');
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {
    // left as text: the assertion shows it
  }
  return { status, headers, body };
}
