import type { IpcMethod, IpcParsedInput, IpcResult } from '../../../shared/ipc';

/** The engine's method table: one handler per contract method, typed by that method's input and result. */
export type IpcHandlers = { [M in IpcMethod]: (input: IpcParsedInput<M>) => Promise<IpcResult<M>> };
