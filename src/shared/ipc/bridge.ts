import type { EngineEventBatch } from './events';
import type { IpcEnvelope, IpcInput, IpcMethod, IpcResult } from './contract';
import { IPC_METHOD_NAMES } from './methodNames';

type AreaOf<M extends string> = M extends `${infer A}.${string}` ? A : never;
type NameOf<M extends string> = M extends `${string}.${infer N}` ? N : never;
type Area = AreaOf<IpcMethod>;

export type IpcCall = <M extends IpcMethod>(method: M, input: IpcInput<M>) => Promise<IpcEnvelope<IpcResult<M>>>;

/**
 * `window.merchantDesk`: the contract grouped by area (`catalog.query(...)`),
 * plus the event stream. Built by `buildBridge` from one `call` function, so
 * the Electron preload and the web bridge expose exactly the same object.
 */
export type MerchantDeskApi = {
  [A in Area]: {
    [M in Extract<IpcMethod, `${A}.${string}`> as NameOf<M>]: (
      input: IpcInput<M>,
    ) => Promise<IpcEnvelope<IpcResult<M>>>;
  };
} & {
  events: { subscribe(listener: (batch: EngineEventBatch) => void): () => void };
  host: 'electron' | 'web';
};

export function buildBridge(
  call: IpcCall,
  subscribe: (listener: (batch: EngineEventBatch) => void) => () => void,
  host: 'electron' | 'web',
): MerchantDeskApi {
  const api: Record<string, Record<string, unknown>> = {};
  for (const method of IPC_METHOD_NAMES) {
    const [area, name] = method.split('.') as [string, string];
    api[area] ??= {};
    (api[area] as Record<string, unknown>)[name] = (input: unknown) => call(method, input as never);
  }
  return Object.freeze({ ...api, events: Object.freeze({ subscribe }), host }) as unknown as MerchantDeskApi;
}
