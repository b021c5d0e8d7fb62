import { app, type BrowserWindow, dialog } from 'electron';
import type { AlertRule } from '../shared/ipc';
import { toUtcIso } from '../shared/time';
import { dispatchIpc } from './core/ipc/dispatch';
import { countActiveAutoBuyRules, QUIT_BUTTON_INDEX, QUIT_BUTTONS, quitDetail, quitWarning } from './shell/quitGuard';
import { writeLastQuit } from './shell/stateFiles';
import { APP_NAME, type ShellContext } from './shellContext';

export interface QuitHooks {
  /** The window the question hangs on, when the user can see it. */
  dialogParent(): BrowserWindow | null;
  /** The shell's own parts stop (tray, held notifications) before the engine closes. */
  beforeShutdown(): void;
  /** "Restart and install" quits: the merchant already chose it (and confirmed armed auto-buy), so nothing is asked. */
  installingUpdate(): boolean;
}

/**
 * Every way of quitting (menu, tray, closing the last window, Cmd+Q) passes `before-quit`: with active trades or
 * auto-buy rules on, ask first; then write last-quit.json and close the engine cleanly before exiting.
 */
export function guardQuit(ctx: ShellContext, hooks: QuitHooks): void {
  app.on('before-quit', (event) => {
    if (ctx.quitPhase === 'done') return;
    event.preventDefault();
    if (ctx.quitPhase !== 'running') return;
    ctx.quitPhase = 'confirming';
    void confirmQuit(ctx, hooks).then(async (quit) => {
      if (!quit) {
        ctx.quitPhase = 'running';
        return;
      }
      ctx.quitPhase = 'shutting-down';
      await shutdown(ctx, hooks);
      ctx.quitPhase = 'done';
      app.quit();
    });
  });
}

async function confirmQuit(ctx: ShellContext, hooks: QuitHooks): Promise<boolean> {
  const engine = ctx.engine?.engine;
  if (!engine || hooks.installingUpdate()) return true;
  let state: { activeTrades: number; autoBuyRules: number };
  try {
    const [snapshot, rules] = await withTimeout(
      Promise.all([engine.snapshot(), dispatchIpc(engine, 'alerts.rules', {})]),
      3_000,
    );
    state = {
      activeTrades: snapshot.activeTrades,
      autoBuyRules: rules.ok ? countActiveAutoBuyRules(rules.value as AlertRule[], snapshot.settings.alertsPaused) : 0,
    };
  } catch (error) {
    ctx.log(`quit check failed, quitting anyway: ${(error as Error).message}`);
    return true;
  }
  const message = quitWarning(state);
  if (!message) return true;
  if (ctx.testHook) {
    ctx.testHook.quitWarnings.push(message);
    return true;
  }
  const parent = hooks.dialogParent();
  const options = {
    type: 'warning' as const,
    title: APP_NAME,
    message,
    detail: quitDetail(state),
    buttons: [...QUIT_BUTTONS],
    defaultId: QUIT_BUTTON_INDEX.cancel,
    cancelId: QUIT_BUTTON_INDEX.cancel,
    noLink: true,
  };
  const { response } = parent ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options);
  return response === QUIT_BUTTON_INDEX.quit;
}

async function shutdown(ctx: ShellContext, hooks: QuitHooks): Promise<void> {
  try {
    writeLastQuit(ctx.dataDir, toUtcIso(Date.now()));
  } catch (error) {
    ctx.log(`writing last-quit.json failed: ${(error as Error).message}`);
  }
  hooks.beforeShutdown();
  // Still starting (a quit right after launch): let it finish, then close it.
  const engine = ctx.engine ?? (app.isReady() ? await withTimeout(ctx.engineReady, 10_000).catch(() => null) : null);
  if (engine) {
    await withTimeout(engine.close(), 5_000).catch((error: unknown) =>
      ctx.log(`engine close: ${(error as Error).message}`),
    );
  }
  ctx.log('quit');
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
