// The IPC channel names, repeated here because the shared module that defines them
// (src/shared/ipc/contract.ts) also builds the zod schemas, which must not end up
// in the sandboxed preload bundle. test/shell/preload.test.ts checks they match.
export const IPC_CALL_CHANNEL = 'merchant-desk:call';
export const IPC_EVENT_CHANNEL = 'merchant-desk:events';
