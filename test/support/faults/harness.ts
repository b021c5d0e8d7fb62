import type { EngineEventBatch, IpcMethod, IpcParsedInput, IpcResult } from '../../../src/shared/ipc';
import { IPC_METHODS } from '../../../src/shared/ipc';
import { Engine } from '../../../src/main/core/engine/engine';
import type { AccountSession } from '../../../src/main/core/engine/session';
import { MemorySecretStore } from '../../../src/main/core/secrets';
import { waitFor } from '../waitFor';

/** An engine for the tests, with its log and batches captured. */

export interface EngineAccount {
  baseUrl: string;
  wsUrl: string;
  merchantId: string;
  apiKey: string;
}

export interface EngineHarness {
  engine: Engine;
  /** Every line the engine logged. */
  logs: string[];
  /** Every event batch the engine emitted, in order. */
  batches: EngineEventBatch[];
  /** A typed call through the method table, input parsed by its schema as the IPC gate would. */
  call<M extends IpcMethod>(method: M, input?: unknown): Promise<IpcResult<M>>;
  session(): AccountSession;
  close(): Promise<void>;
}

/** An engine on `dataDir` for `account` (the command-line override path), started. */
export async function startEngine(
  dataDir: string,
  account: EngineAccount,
  options: {
    start?: boolean;
    /** Chat webhooks on loopback (tests only). */ forwardToPrivateAddresses?: boolean;
    /** The client's rate limits times this (EngineOptions.testRateLimitScale). */ testRateLimitScale?: number;
  } = {},
): Promise<EngineHarness> {
  const logs: string[] = [];
  const batches: EngineEventBatch[] = [];
  const engine = new Engine({
    dataDir,
    secrets: new MemorySecretStore(),
    log: (line) => logs.push(line),
    startDemo: () => Promise.reject(new Error('no demo sandbox in reliability tests')),
    override: {
      baseUrl: account.baseUrl,
      wsUrl: account.wsUrl,
      merchantId: account.merchantId,
      apiKey: account.apiKey,
    },
    ...(options.forwardToPrivateAddresses ? { forwardToPrivateAddresses: true } : {}),
    ...(options.testRateLimitScale !== undefined ? { testRateLimitScale: options.testRateLimitScale } : {}),
  });
  engine.subscribe((batch) => batches.push(batch));
  if (options.start !== false) await engine.start();
  let closed = false;
  return {
    engine,
    logs,
    batches,
    call: async <M extends IpcMethod>(method: M, input: unknown = {}) => {
      const parsed = IPC_METHODS[method].input.parse(input) as IpcParsedInput<M>;
      return engine.handle(method, parsed);
    },
    session: () => {
      const session = engine.accountSession;
      if (!session) throw new Error('the engine has no account session');
      return session;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await engine.close();
    },
  };
}

/** Until the engine is live on the feed and has read the balance: where the engine tests against a sandbox start. */
export function waitForFeedAndBalance(app: EngineHarness): Promise<unknown> {
  return waitFor(
    () => app.session().connection.state === 'connected' && app.session().balance !== null,
    15_000,
    'feed and balance',
  );
}
