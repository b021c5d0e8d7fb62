import type { IpcEnvelope, IpcMethod, IpcParsedInput } from '../../../shared/ipc';
import { IPC_METHODS } from '../../../shared/ipc';
import type { EngineService } from './engineService';
import { EngineError } from './engineService';

export function isIpcMethod(name: unknown): name is IpcMethod {
  return typeof name === 'string' && Object.hasOwn(IPC_METHODS, name);
}

/**
 * A method name fit for a message or a log line, whatever the caller sent: a string is cut to 64
 * characters, anything else is named by its type (String() of an object may throw, or recurse
 * through a 200,000-deep array until the stack overflows).
 */
export function describeMethod(method: unknown): string {
  if (typeof method === 'string') return method.slice(0, 64);
  if (method === null) return 'null';
  if (Array.isArray(method)) return '(an array)';
  return `(a value of type ${typeof method})`;
}

function describe(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  return `${issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : ''}${issue.message}`;
}

/** The method's schema applied to the input; a schema that throws (the stack overflowing on deep enough input) is a refusal too. */
function parseInput<M extends IpcMethod>(
  method: M,
  input: unknown,
): { ok: true; input: IpcParsedInput<M> } | { ok: false; problem: string } {
  try {
    const parsed = IPC_METHODS[method].input.safeParse(input);
    // TypeScript cannot relate `IPC_METHODS[M]`'s output to M (a correlated union); it is M's own schema.
    return parsed.success
      ? { ok: true, input: parsed.data as IpcParsedInput<M> }
      : { ok: false, problem: describe(parsed.error) };
  } catch (error) {
    return { ok: false, problem: error instanceof RangeError ? 'input nested too deeply' : 'input could not be read' };
  }
}

/**
 * The one gate between any UI and the engine: an unknown method or an input
 * its schema refuses never reaches the core; results and failures travel as
 * `{ok, value}` / `{ok: false, error}`. Never rejects, whatever it is handed: every call gets
 * its answer. Used by the Electron IPC handler and the web host.
 */
export async function dispatchIpc(
  engine: EngineService,
  method: unknown,
  input: unknown,
  onInternalError: (method: string, error: unknown) => void = () => {},
): Promise<IpcEnvelope<unknown>> {
  if (!isIpcMethod(method))
    return { ok: false, error: { code: 'invalid_input', message: `unknown method ${describeMethod(method)}` } };
  const parsed = parseInput(method, input);
  if (!parsed.ok) return { ok: false, error: { code: 'invalid_input', message: `${method}: ${parsed.problem}` } };
  try {
    const value = await engine.handle(method, parsed.input);
    return { ok: true, value };
  } catch (error) {
    if (error instanceof EngineError) return { ok: false, error: { code: error.code, message: error.message } };
    try {
      onInternalError(method, error);
    } catch {
      // A failing logger must not leave the call without its answer.
    }
    return { ok: false, error: { code: 'internal', message: `${method} failed unexpectedly; see the log` } };
  }
}
