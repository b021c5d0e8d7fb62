import { homedir } from 'node:os';
import { app } from 'electron';
import type { AppSettings } from '../shared/ipc';
import { dispatchIpc } from './core/ipc/dispatch';
import {
  applyXdgAutostart,
  autostartFile,
  honestSetting,
  launchCommand,
  loginItemSettings,
  startsHidden,
  usesLoginItem,
} from './shell/autostart';
import type { DesktopNotice } from './shell/notificationModel';
import type { ShellContext } from './shellContext';

export interface AutostartHooks {
  /** The setting was corrected to what is really on: the engine's answer. */
  settingsChanged(next: AppSettings): void;
  /** Applying failed: the merchant is told. */
  notify(notice: DesktopNotice): void;
}

/** Start with the session (Settings): the login item or the XDG autostart entry kept in step with the setting. */
export class SessionStart {
  /** Read at start only: a second launch's arguments go to the first instance (singleInstance.ts). */
  private readonly argv = [...process.argv];
  private applied: boolean | null = null;

  constructor(
    private readonly ctx: ShellContext,
    private readonly hooks: AutostartHooks,
  ) {}

  /** Launched by the session (`--hidden`, or hidden by macOS): no window until the tray is used. */
  startsHidden(trayExists: boolean): boolean {
    const openedAsHidden = process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAsHidden;
    return startsHidden(this.argv, openedAsHidden, trayExists);
  }

  /** The settings as heard: the first time, and on each change of the switch, the OS is brought in line. */
  apply(settings: AppSettings): void {
    const wanted = settings.startWithSession === true;
    if (this.applied === wanted) return;
    this.applied = wanted;
    const result = usesLoginItem(process.platform) ? this.applyLoginItem(wanted) : this.applyXdg(wanted);
    if (result.error) {
      this.ctx.log(`start with the session: ${result.error}`);
      this.hooks.notify({
        id: 'autostart-failed',
        title: 'Start with the session',
        body: result.error,
        target: null,
        urgent: false,
      });
    }
    const honest = honestSetting(wanted, result);
    if (honest !== null) void this.correct(honest);
  }

  private applyXdg(wanted: boolean): { on: boolean; error: string | null } {
    const file = autostartFile(process.env, homedir());
    return applyXdgAutostart(file, wanted, () =>
      launchCommand({
        execPath: process.execPath,
        isPackaged: app.isPackaged,
        appPath: app.getAppPath(),
        appImage: process.env['APPIMAGE'],
      }),
    );
  }

  private applyLoginItem(wanted: boolean): { on: boolean; error: string | null } {
    const settings = loginItemSettings(process.platform, wanted);
    try {
      app.setLoginItemSettings(settings);
      const on = app.getLoginItemSettings({ args: settings.args }).openAtLogin;
      return { on, error: on === wanted ? null : `The system did not ${wanted ? 'add' : 'remove'} the login item.` };
    } catch (error) {
      return { on: !wanted, error: `Could not change the login item: ${(error as Error).message}` };
    }
  }

  /** The switch shows what is really on. */
  private async correct(on: boolean): Promise<void> {
    this.applied = on;
    const engine = this.ctx.engine?.engine;
    if (!engine) return;
    const result = await dispatchIpc(engine, 'settings.update', { startWithSession: on });
    if (result.ok) this.hooks.settingsChanged(result.value as AppSettings);
    else this.ctx.log(`start with the session: correcting the setting failed: ${result.error.message}`);
  }
}
