import type { IpcEnvelope } from '../../shared/ipc';
import { describeMethod, dispatchIpc } from '../core/ipc/dispatch';
import type { EngineService } from '../core/ipc/engineService';
import { isAppNavigation } from './urlRules';

/**
 * The Electron side of the IPC gate (like VS Code's ValidatedIpcMain): a call
 * is served only when it comes from our own window's main frame showing our own
 * renderer; then `dispatchIpc` validates the method and its payload with the
 * shared zod schemas before anything reaches the engine.
 */

/** Who sent an `ipcMain.handle` call, from `event.senderFrame`. */
export interface IpcSender {
  /** `event.senderFrame?.url`; null or undefined when the frame is gone. */
  url: string | null | undefined;
  /** The frame is the top-level frame of its page (`senderFrame.parent === null`). */
  isMainFrame: boolean;
  /** The sending page belongs to the app's window (`event.sender === mainWindow.webContents`). */
  isAppWindow: boolean;
}

export interface IpcGuardOptions {
  /** The URL the window loaded: the dev server's in `dev`, else `file://…/out/renderer/index.html`. */
  rendererUrl: string;
  /** One line per refused call (origin and method only, never the input). */
  log?: (line: string) => void;
}

/** The sender's frame shows our renderer: same document for `file:`, same origin for the dev server. */
export function isTrustedSender(frameUrl: unknown, rendererUrl: string): boolean {
  return isAppNavigation(frameUrl, rendererUrl);
}

export const FORBIDDEN: IpcEnvelope<never> = Object.freeze({
  ok: false,
  error: Object.freeze({ code: 'forbidden', message: 'Only the Merchant Desk window may call the engine' }),
}) as IpcEnvelope<never>;

/** Where a refused call came from, for the log: an origin, never a full URL with its query. */
function describeSender(url: unknown): string {
  if (typeof url !== 'string' || url === '') return 'a closed frame';
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' ? 'a file: page' : parsed.origin === 'null' ? parsed.protocol : parsed.origin;
  } catch {
    return 'an unparsable URL';
  }
}

/**
 * `ipcMain.handle(IPC_CALL_CHANNEL, (event, method, input) => handleIpcCall(engine, sender, method, input, options))`.
 * Never throws: every outcome is an `{ok, value}` / `{ok: false, error}` envelope.
 */
export async function handleIpcCall(
  engine: EngineService,
  sender: IpcSender,
  method: unknown,
  input: unknown,
  options: IpcGuardOptions,
): Promise<IpcEnvelope<unknown>> {
  if (!sender.isAppWindow || !sender.isMainFrame || !isTrustedSender(sender.url, options.rendererUrl)) {
    options.log?.(
      `ipc: refused ${describeMethod(method)} from ${describeSender(sender.url)}${sender.isMainFrame ? '' : ' (subframe)'}`,
    );
    return FORBIDDEN;
  }
  return dispatchIpc(engine, method, input, (name, error) => {
    options.log?.(`ipc: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  });
}
