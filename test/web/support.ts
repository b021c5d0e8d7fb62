import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineError, type EngineService } from '../../src/main/core/ipc/engineService';
import { BRIDGE_PROTOCOL, CODE_PROTOCOL_PREFIX, TOKEN_PROTOCOL_PREFIX } from '../../src/web/bridgeAuth';
import type { EngineEventBatch, IpcMethod, IpcParsedInput, IpcResult } from '../../src/shared/ipc';

/**
 * The smallest engine a host can carry: it echoes each validated call back, counts
 * what reached it, and emits the batches a test hands it. The transport is under test.
 */
export class EchoEngine implements EngineService {
  readonly calls: { method: IpcMethod; input: unknown }[] = [];
  readonly listeners = new Set<(batch: EngineEventBatch) => void>();
  /** While set, `catalog.refresh` waits for it (a call in flight when a socket drops). */
  hold: Promise<void> | null = null;

  async handle<M extends IpcMethod>(method: M, input: IpcParsedInput<M>): Promise<IpcResult<M>> {
    this.calls.push({ method, input });
    if (method === 'trades.get' && (input as { tradeId: string }).tradeId === 'missing') {
      throw new EngineError('not_found', 'no such trade');
    }
    if (method === 'recipients.list') throw new Error('disk on fire');
    if (method === 'catalog.refresh' && this.hold) await this.hold;
    return { method, input } as unknown as IpcResult<M>;
  }

  subscribe(listener: (batch: EngineEventBatch) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(batch: EngineEventBatch): void {
    for (const listener of this.listeners) listener(batch);
  }
}

export const SECRET = 'TOP-SECRET-OUTSIDE-THE-RENDERER';
export const APP_MARKER = 'MERCHANT-DESK-APP-MARKER';

/** A temp tree: base/renderer (what the host serves) beside base/package.json (what it must never serve). */
export function makeRendererDir(): { base: string; rendererDir: string; cleanup(): void } {
  const base = mkdtempSync(join(tmpdir(), 'md-web-'));
  const rendererDir = join(base, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(base, 'package.json'), JSON.stringify({ secret: SECRET }));
  writeFileSync(
    join(rendererDir, 'index.html'),
    `<!doctype html><html><head><title>Merchant Desk</title><script type="module" src="/assets/app-1a2b.js"></script></head><body>${APP_MARKER}</body></html>`,
  );
  writeFileSync(join(rendererDir, 'assets', 'app-1a2b.js'), `console.log(${JSON.stringify(APP_MARKER)});`);
  writeFileSync(join(rendererDir, 'assets', 'style.css'), 'body { color: red }');
  writeFileSync(join(rendererDir, '.env'), SECRET);
  symlinkSync(join(base, 'package.json'), join(rendererDir, 'linked.json'));
  return { base, rendererDir, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request sent verbatim (fetch would normalise `/../` and refuse a foreign Host). */
export function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** What a page offers at the bridge socket's upgrade: its token, or the one-time code of a browser link. */
export type BridgeCredential = { token: string } | { code: string };

/** The subprotocols a page offers (`Sec-WebSocket-Protocol`): the bridge's, and its credential; none without one. */
export function bridgeProtocols(credential: BridgeCredential | null): string[] {
  if (credential === null) return [];
  return [
    BRIDGE_PROTOCOL,
    'token' in credential ? `${TOKEN_PROTOCOL_PREFIX}${credential.token}` : `${CODE_PROTOCOL_PREFIX}${credential.code}`,
  ];
}

export interface OpenedBridge {
  ws: WebSocket;
  /** The host's `welcome` (with `token` when a code was exchanged). */
  welcome: Record<string, unknown>;
}

/**
 * Opens the web host's `/bridge` as its page does: the page's Origin and the credential on the
 * upgrade. Resolves once welcomed; rejects with the close code and reason when refused.
 * `onMessage` sees every frame after the welcome (attached before it, so none is missed).
 */
export function openBridge(
  page: string | URL,
  credential: BridgeCredential,
  onMessage: (message: Record<string, unknown>) => void = () => {},
): Promise<OpenedBridge> {
  const url = new URL(page);
  const ws = new WebSocket(`ws://${url.host}/bridge`, bridgeProtocols(credential), { origin: url.origin });
  return new Promise((resolve, reject) => {
    let welcomed = false;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      if (welcomed) return onMessage(message);
      if (message['type'] !== 'welcome')
        return reject(new Error(`expected a welcome, got ${String(data).slice(0, 200)}`));
      welcomed = true;
      resolve({ ws, welcome: message });
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      reject(new Error(`bridge upgrade refused: ${res.statusCode ?? 0}`));
    });
    ws.on('close', (code, reason) => {
      if (!welcomed) reject(new Error(`bridge closed before the welcome: ${code} ${String(reason)}`));
    });
    ws.on('error', () => {});
  });
}
