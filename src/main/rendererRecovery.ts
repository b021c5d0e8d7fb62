import { type BrowserWindow, dialog } from 'electron';
import type { DesktopNotice } from './shell/notificationModel';
import { CrashTracker, crashNotice, UNRESPONSIVE_GRACE_MS } from './shell/rendererHealth';
import { APP_NAME, type ShellContext } from './shellContext';

export interface RecoveryHooks {
  /** Load the renderer into the window again. */
  reload(win: BrowserWindow): void;
  /** Tell the user on the desktop. */
  notify(notice: DesktopNotice): void;
}

/**
 * A crashed (killed, out-of-memory) renderer is reloaded and the user told; a crash loop is given up (and said);
 * a window unresponsive past the grace gets a "Reload / Keep waiting" dialog.
 */
export class RendererRecovery {
  /** Across windows: a loop is a loop even if the window was made again. */
  private readonly crashes = new CrashTracker();

  constructor(
    private readonly ctx: ShellContext,
    private readonly hooks: RecoveryHooks,
  ) {}

  watch(win: BrowserWindow): void {
    const { ctx, hooks } = this;
    const { log } = ctx;
    win.webContents.on('render-process-gone', (_event, details) => {
      log(`renderer gone: ${details.reason} (exit code ${details.exitCode})`);
      const next = this.crashes.onGone(details.reason, Date.now());
      if (next.action === 'reload' && !win.isDestroyed()) {
        hooks.reload(win);
        // Said to the user, not only logged: the window they were looking at went blank and came back.
        const notice = crashNotice(details.reason);
        log(`renderer reloaded: ${notice}`);
        hooks.notify({
          id: `renderer-reloaded:${Date.now()}`,
          title: APP_NAME,
          body: notice,
          target: null,
          urgent: false,
        });
      } else if (next.action === 'give-up') {
        log(next.message);
        hooks.notify({
          id: `renderer-gave-up:${Date.now()}`,
          title: APP_NAME,
          body: next.message,
          target: null,
          urgent: true,
        });
        if (!ctx.testMode) dialog.showErrorBox(APP_NAME, next.message);
      }
    });

    let hangTimer: ReturnType<typeof setTimeout> | null = null;
    win.on('unresponsive', () => {
      log('window unresponsive');
      if (hangTimer) return;
      hangTimer = setTimeout(() => {
        hangTimer = null;
        void this.offerReload(win);
      }, UNRESPONSIVE_GRACE_MS);
    });
    win.on('responsive', () => {
      if (hangTimer) {
        clearTimeout(hangTimer);
        hangTimer = null;
        log('window responsive again');
      }
    });
  }

  private async offerReload(win: BrowserWindow): Promise<void> {
    if (win.isDestroyed() || this.ctx.testMode) return;
    const { response } = await dialog.showMessageBox(win, {
      type: 'warning',
      message: 'Merchant Desk is not responding',
      detail:
        'The window has not responded for 10 seconds. Reloading it keeps your data; trades continue on the marketplace.',
      buttons: ['Reload', 'Keep waiting'],
      defaultId: 0,
      cancelId: 1,
      noLink: true,
    });
    if (response === 0 && !win.isDestroyed()) {
      this.ctx.log('reloading the unresponsive window');
      // A hung renderer cannot reload itself; render-process-gone then reloads it.
      win.webContents.forcefullyCrashRenderer();
    }
  }
}
