import { ipcMain, type WebContents } from 'electron';
import type {
  AppSettings,
  IpcMethod,
  IpcParsedInput,
  IpcResult,
  UpdateInstallResult,
  UpdateStatus,
} from '../shared/ipc';
import { IPC_CALL_CHANNEL } from '../shared/ipc';
import type { EngineService } from './core/ipc/engineService';
import { handleIpcCall } from './shell/ipcGuard';
import type { ShellContext } from './shellContext';

export interface IpcHooks {
  /** The page is the app's window. */
  isAppWindow(sender: WebContents): boolean;
  /** The renderer changed the settings: the engine's answer. */
  settingsChanged(next: AppSettings): void;
  /** Settings → "Send a test notification" (`notifications.test`, answered by the shell, not the engine). */
  testNotification(): { shown: boolean; detail: string };
  /** `updates.*` are the shell's own (the engine answers them for hosts without updates). */
  updates: { status(): UpdateStatus | null; install(confirmed: boolean): Promise<UpdateInstallResult> };
}

/**
 * The one IPC channel the renderer calls the engine on: the sender checked, then the method and its input
 * validated (shell/ipcGuard.ts), before anything reaches the engine. Calls that arrive before the engine is
 * ready wait for it, so the guard itself runs first.
 */
export function registerIpc(ctx: ShellContext, hooks: IpcHooks): void {
  const { secrets, rendererUrl, log } = ctx;
  const engine: EngineService = {
    handle: async <M extends IpcMethod>(method: M, input: IpcParsedInput<M>): Promise<IpcResult<M>> => {
      // Validated like every call (dispatchIpc) before it gets here.
      if (method === 'notifications.test') return hooks.testNotification() as IpcResult<M>;
      if (method === 'updates.status') return hooks.updates.status() as IpcResult<M>;
      if (method === 'updates.install')
        return (await hooks.updates.install((input as IpcParsedInput<'updates.install'>).confirmed)) as IpcResult<M>;
      return (await ctx.engineReady).engine.handle(method, input);
    },
    subscribe: () => () => {},
  };
  ipcMain.handle(IPC_CALL_CHANNEL, async (event, method: unknown, input: unknown) => {
    // The Settings screen sends a key once (account.configure / account.test): whatever happens to the call,
    // the shell's log must never show it.
    if ((method === 'account.configure' || method === 'account.test') && typeof input === 'object' && input !== null) {
      const apiKey = (input as { apiKey?: unknown }).apiKey;
      if (typeof apiKey === 'string') secrets.remember(apiKey);
    }
    const frame = event.senderFrame;
    const result = await handleIpcCall(
      engine,
      {
        url: frame?.url,
        isMainFrame: frame !== null && frame.parent === null,
        isAppWindow: hooks.isAppWindow(event.sender),
      },
      method,
      input,
      { rendererUrl, log },
    );
    if (method === 'settings.update' && result.ok) hooks.settingsChanged(result.value as AppSettings);
    return result;
  });
}
