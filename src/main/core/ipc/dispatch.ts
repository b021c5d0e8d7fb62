import type { IpcEnvelope, IpcMethod } from '../../../shared/ipc';
import { IPC_METHODS } from '../../../shared/ipc';
import type { EngineService } from './engineService';
import { EngineError } from './engineService';

export function isIpcMethod(name: unknown): name is IpcMethod {
  return typeof name === 'string' && Object.hasOwn(IPC_METHODS, name);
}

function describe(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  return `${issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : ''}${issue.message}`;
}

/**
 * The one gate between any UI and the engine: an unknown method or an input
 * its schema refuses never reaches the core; results and failures travel as
 * `{ok, value}` / `{ok: false, error}`. Used by the Electron IPC handler and the web host.
 */
export async function dispatchIpc(
  engine: EngineService,
  method: unknown,
  input: unknown,
  onInternalError: (method: string, error: unknown) => void = () => {},
): Promise<IpcEnvelope<unknown>> {
  if (!isIpcMethod(method)) return { ok: false, error: { code: 'invalid_input', message: `unknown method ${String(method).slice(0, 64)}` } };
  const parsed = IPC_METHODS[method].input.safeParse(input);
  if (!parsed.success) return { ok: false, error: { code: 'invalid_input', message: `${method}: ${describe(parsed.error)}` } };
  try {
    const value = await engine.handle(method, parsed.data as never);
    return { ok: true, value };
  } catch (error) {
    if (error instanceof EngineError) return { ok: false, error: { code: error.code, message: error.message } };
    onInternalError(method, error);
    return { ok: false, error: { code: 'internal', message: `${method} failed unexpectedly; see the log` } };
  }
}
