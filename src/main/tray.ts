import { existsSync } from 'node:fs';
import { app, Menu, type MenuItemConstructorOptions, nativeImage, Tray } from 'electron';
import type { AppSettings } from '../shared/ipc';
import { dispatchIpc } from './core/ipc/dispatch';
import { trayIconName } from './shell/paths';
import { sameTrayState, trayModel, type TrayState } from './shell/trayModel';
import type { ShellContext } from './shellContext';

export interface TrayActions {
  open(): void;
  quit(): void;
  /** The tray changed a setting (pause alerts, stop all auto-buy): the engine's answer. */
  settingsChanged(next: AppSettings): void;
}

/** The tray icon, its tooltip and menu, and the badge, drawn from `TrayState` by shell/trayModel.ts. */
export class ShellTray {
  private tray: Tray | null = null;
  private current: TrayState = {
    activeTrades: 0,
    connectionState: 'connecting',
    alertsPaused: false,
    unacknowledgedFirings: 0,
  };
  private menuKey = '';

  constructor(
    private readonly ctx: ShellContext,
    private readonly actions: TrayActions,
  ) {
    if (ctx.testHook) ctx.testHook.tray = () => ({ ...trayModel(this.current), state: this.current });
  }

  get state(): TrayState {
    return this.current;
  }

  /** Made, or not: some Linux desktops have no status area, and the app runs without a tray there. */
  exists(): boolean {
    return this.tray !== null;
  }

  create(): void {
    const file = this.ctx.resource(trayIconName(process.platform));
    if (!existsSync(file)) {
      this.ctx.log(`no tray icon at ${file}; running without a tray`);
      return;
    }
    try {
      this.tray = new Tray(nativeImage.createFromPath(file));
    } catch (error) {
      this.ctx.log(`tray unavailable: ${(error as Error).message}`);
      return;
    }
    this.tray.on('click', () => this.actions.open());
    this.render(true);
  }

  setState(next: TrayState): void {
    if (sameTrayState(next, this.current)) return;
    this.current = next;
    this.render(false);
  }

  destroy(): void {
    if (this.tray && !this.tray.isDestroyed()) this.tray.destroy();
    this.tray = null;
  }

  private render(force: boolean): void {
    const model = trayModel(this.current);
    if (process.platform !== 'win32') app.setBadgeCount(model.badgeCount);
    const { tray } = this;
    if (!tray || tray.isDestroyed()) return;
    tray.setToolTip(model.tooltip);
    const key = JSON.stringify(model.menu);
    if (!force && key === this.menuKey) return;
    this.menuKey = key;
    const template: MenuItemConstructorOptions[] = model.menu.map((entry) => {
      if (entry.type === 'separator') return { type: 'separator' };
      const click = (): void => this.onMenu(entry.id);
      if (entry.type === 'checkbox')
        return { type: 'checkbox', id: entry.id, label: entry.label, checked: entry.checked, click };
      return { id: entry.id, label: entry.label, enabled: entry.enabled ?? true, click };
    });
    tray.setContextMenu(Menu.buildFromTemplate(template));
  }

  private onMenu(id: string): void {
    const { settings } = this.ctx;
    switch (id) {
      case 'open':
        this.actions.open();
        return;
      case 'pause-alerts':
        void this.updateSettings({ alertsPaused: !(settings?.alertsPaused ?? false) }, 'pausing alerts');
        return;
      case 'stop-auto-buy':
        // The tray's stop-all: no auto-buy request leaves until resumed (the engine checks it at every match).
        void this.updateSettings({ autoBuyStopped: !(settings?.autoBuyStopped ?? false) }, 'stopping auto-buy');
        return;
      case 'quit':
        this.actions.quit();
        return;
    }
  }

  private async updateSettings(patch: Partial<AppSettings>, what: string): Promise<void> {
    const engine = this.ctx.engine?.engine;
    if (!engine) return;
    const result = await dispatchIpc(engine, 'settings.update', patch);
    if (result.ok) this.actions.settingsChanged(result.value as AppSettings);
    else this.ctx.log(`${what} failed: ${result.error.message}`);
  }
}
