import { describe, expect, it } from 'vitest';
import type { EngineEventBatch, IpcMethod, IpcParsedInput, IpcResult } from '../../src/shared/ipc';
import { EngineError, type EngineService } from '../../src/main/core/ipc/engineService';
import { handleIpcCall, isTrustedSender, type IpcSender } from '../../src/main/shell/ipcGuard';

const RENDERER = 'file:///opt/merchant-desk/out/renderer/index.html';

/** A stand-in engine that records what reaches it. */
class RecordingEngine implements EngineService {
  readonly calls: { method: string; input: unknown }[] = [];
  constructor(private readonly answer: (method: string) => unknown = () => 'ok') {}
  async handle<M extends IpcMethod>(method: M, input: IpcParsedInput<M>): Promise<IpcResult<M>> {
    this.calls.push({ method, input });
    return this.answer(method) as IpcResult<M>;
  }
  subscribe(_listener: (batch: EngineEventBatch) => void): () => void {
    return () => {};
  }
}

const ours: IpcSender = { url: `${RENDERER}#/catalog`, isMainFrame: true, isAppWindow: true };

function call(engine: EngineService, sender: IpcSender, method: unknown, input: unknown, lines: string[] = []) {
  return handleIpcCall(engine, sender, method, input, { rendererUrl: RENDERER, log: (line) => lines.push(line) });
}

describe('isTrustedSender', () => {
  it('trusts our renderer document (any route) and the dev server origin in dev', () => {
    expect(isTrustedSender(`${RENDERER}#/trades`, RENDERER)).toBe(true);
    expect(isTrustedSender('http://localhost:5173/', 'http://localhost:5173')).toBe(true);
  });

  it.each([
    'https://evil.example/',
    'file:///tmp/evil.html',
    'about:blank',
    'devtools://devtools/bundled/inspector.html',
    'chrome-error://chromewebdata/',
    '',
    null,
    undefined,
  ])('does not trust %j', (url) => {
    expect(isTrustedSender(url, RENDERER)).toBe(false);
  });
});

describe('handleIpcCall', () => {
  it('passes a valid call from our main frame to the engine, with the schema defaults applied', async () => {
    const engine = new RecordingEngine();
    const result = await call(engine, ours, 'trades.get', { tradeId: 't_1' });
    expect(result).toEqual({ ok: true, value: 'ok' });
    expect(engine.calls).toEqual([{ method: 'trades.get', input: { tradeId: 't_1' } }]);

    await call(engine, ours, 'catalog.query', { search: 'AK' });
    expect(engine.calls[1]?.input).toMatchObject({ search: 'AK', sort: 'price', offset: 0, limit: 200 });
  });

  it.each<[string, IpcSender]>([
    ['a foreign page', { url: 'https://evil.example/', isMainFrame: true, isAppWindow: true }],
    ['another local file', { url: 'file:///tmp/evil.html', isMainFrame: true, isAppWindow: true }],
    ['a subframe showing our document', { url: RENDERER, isMainFrame: false, isAppWindow: true }],
    ['another window', { url: RENDERER, isMainFrame: true, isAppWindow: false }],
    ['a destroyed frame', { url: null, isMainFrame: false, isAppWindow: true }],
  ])('refuses %s as forbidden and never reaches the engine', async (_name, sender) => {
    const engine = new RecordingEngine();
    const lines: string[] = [];
    const result = await call(
      engine,
      sender,
      'buy.byId',
      { itemId: 1, assetId: 'a', price: 100, recipient: { recipientId: 'r' } },
      lines,
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(engine.calls).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('refused buy.byId');
  });

  it('logs a refused sender by origin only, never its query string', async () => {
    const lines: string[] = [];
    await call(
      new RecordingEngine(),
      { url: 'https://evil.example/x?token=secret', isMainFrame: true, isAppWindow: true },
      'app.snapshot',
      {},
      lines,
    );
    expect(lines[0]).toContain('https://evil.example');
    expect(lines[0]).not.toContain('secret');
  });

  it.each<[string, unknown, unknown]>([
    ['an unknown method', 'engine.shutdown', {}],
    ['a prototype key as method', '__proto__', {}],
    ['a non-string method', 42, {}],
    ['a wrong type', 'trades.get', { tradeId: 5 }],
    ['an extra field', 'trades.get', { tradeId: 't', sql: 'DROP TABLE trades' }],
    ['a missing field', 'buy.byId', { itemId: 1 }],
    ['a negative price', 'buy.byId', { itemId: 1, assetId: 'a', price: -1, recipient: { recipientId: 'r' } }],
    ['a non-object input', 'settings.update', 'closeToTray'],
    ['a file: base URL', 'account.test', { baseUrl: 'file:///etc', wsUrl: 'ws://x', merchantId: 'm' }],
  ])('refuses %s from our own frame as invalid_input, never reaching the engine', async (_name, method, input) => {
    const engine = new RecordingEngine();
    const result = await call(engine, ours, method, input);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(engine.calls).toEqual([]);
  });

  it('returns engine failures as envelopes: EngineError as is, anything else as internal and logged', async () => {
    const failing = new RecordingEngine((method) => {
      throw method === 'trades.get' ? new EngineError('not_found', 'No such trade') : new Error('disk on fire');
    });
    expect(await call(failing, ours, 'trades.get', { tradeId: 'x' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'No such trade' },
    });
    const lines: string[] = [];
    const result = await call(failing, ours, 'app.snapshot', {}, lines);
    expect(result).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(JSON.stringify(result)).not.toContain('disk on fire');
    expect(lines.join('\n')).toContain('disk on fire');
  });
});
