import { existsSync } from 'node:fs';
import { app, BrowserWindow, screen, type WebContents } from 'electron';
import type { EngineEventBatch, NavigateTarget, UpdateStatus } from '../shared/ipc';
import { hashRouteOf, type DeepLinkTarget } from '../shared/deepLinks';
import { IPC_EVENT_CHANNEL } from '../shared/ipc';
import { toUtcIso } from '../shared/time';
import { readWindowState, writeWindowState } from './shell/stateFiles';
import { mainWindowOptions, restoreBounds } from './shell/windowOptions';
import type { ShellContext } from './shellContext';

export interface WindowHooks {
  /** Closing the window hides it instead of quitting (Settings → "close to tray", and a tray to come back from). */
  closeToTray(): boolean;
  /** A window was made (at launch, or again after it was closed on macOS). */
  onCreated(win: BrowserWindow): void;
}

/** The one window: made with its saved position, saved when moved, shown on demand, and the renderer's events. */
export class MainWindow {
  private win: BrowserWindow | null = null;
  /** The last engine batch's seq: the shell's own batches repeat it. */
  private lastSeq = 0;
  /** The hash route (`#/trade/…`) the next page load starts at, once. */
  private startRoute: string | null = null;
  /** A link's place that came while the page loaded: sent once it has (a page still loading misses a `navigate`). */
  private pendingLink: DeepLinkTarget | null = null;

  constructor(
    private readonly ctx: ShellContext,
    private readonly hooks: WindowHooks,
  ) {}

  /** `hidden`: started with the session, to the tray: made and loaded, shown only when asked. */
  create(hidden = false): BrowserWindow {
    const { ctx } = this;
    const saved = readWindowState(ctx.dataDir);
    const primary = screen.getPrimaryDisplay();
    const displays = [primary, ...screen.getAllDisplays().filter((d) => d.id !== primary.id)];
    const bounds = restoreBounds(saved, displays);
    const icon = ctx.resource('icon.png');
    const options = mainWindowOptions({
      preload: ctx.preloadFile,
      bounds,
      ...(existsSync(icon) && process.platform !== 'darwin' ? { icon } : {}),
    });
    ctx.testHook?.windowOptions.push(options);
    const win = new BrowserWindow(options);
    this.win = win;
    if (saved?.maximized) win.maximize();
    if (!hidden) win.once('ready-to-show', () => win.show());
    win.webContents.on('did-finish-load', () => {
      const link = this.pendingLink;
      this.pendingLink = null;
      if (link) this.navigate(link);
    });

    let saveTimer: ReturnType<typeof setTimeout> | null = null;
    const scheduleSave = (): void => {
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = setTimeout(() => this.saveState(win), 500);
    };
    win.on('resize', scheduleSave);
    win.on('move', scheduleSave);
    win.on('close', (event) => {
      if (saveTimer) clearTimeout(saveTimer);
      this.saveState(win);
      this.onClose(event);
    });
    win.on('closed', () => {
      if (this.win === win) this.win = null;
    });
    this.hooks.onCreated(win);
    this.load(win);
    return win;
  }

  load(win: BrowserWindow): void {
    const { devUrl, rendererFile, log } = this.ctx;
    // A link's place before the page could take a `navigate` (the launch's own link): the page starts at its route.
    const route = this.startRoute;
    this.startRoute = null;
    const loading = devUrl
      ? win.loadURL(`${devUrl}${route ?? ''}`)
      : win.loadFile(rendererFile, route ? { hash: route.slice(1) } : undefined);
    loading.catch((error: unknown) => log(`loading the renderer failed: ${(error as Error).message}`));
  }

  /** Shown, restored and focused; made again if it was closed (macOS keeps the app without a window). */
  show(): void {
    if (this.quitting()) return;
    const win = this.win && !this.win.isDestroyed() ? this.win : app.isReady() ? this.create() : null;
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  }

  /** The window to hang a dialog on: the one the user can see, if any. */
  visible(): BrowserWindow | null {
    return this.win && !this.win.isDestroyed() && this.win.isVisible() ? this.win : null;
  }

  /** The page is the app's window (the IPC guard's first check). */
  owns(contents: WebContents): boolean {
    return contents === this.win?.webContents;
  }

  /** An engine batch, as it is. */
  forward(batch: EngineEventBatch): void {
    this.lastSeq = batch.seq;
    this.send(batch);
  }

  /** A link's place, shown: in the page if there is one, else as the route a new page starts at. */
  open(target: DeepLinkTarget): void {
    if (!this.win || this.win.isDestroyed()) this.startRoute = hashRouteOf(target);
    else if (this.win.webContents.isLoading()) this.pendingLink = target;
    else this.navigate(target);
    this.show();
  }

  /** The renderer opens a place (a notification was clicked, a link opened). */
  navigate(target: NavigateTarget | DeepLinkTarget): void {
    // Repeats the last seq: not a gap for the renderer's resync check.
    this.send({ seq: this.lastSeq, at: toUtcIso(Date.now()), navigate: target });
  }

  /** The app update's state changed (status bar). */
  updateStatus(update: UpdateStatus): void {
    this.send({ seq: this.lastSeq, at: toUtcIso(Date.now()), update });
  }

  private send(batch: EngineEventBatch): void {
    const contents = this.win && !this.win.isDestroyed() ? this.win.webContents : null;
    if (contents && !contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, batch);
  }

  private quitting(): boolean {
    return this.ctx.quitPhase === 'shutting-down' || this.ctx.quitPhase === 'done';
  }

  private saveState(win: BrowserWindow): void {
    if (win.isDestroyed() || win.isMinimized()) return;
    try {
      writeWindowState(this.ctx.dataDir, { bounds: win.getNormalBounds(), maximized: win.isMaximized() });
    } catch (error) {
      this.ctx.log(`saving the window position failed: ${(error as Error).message}`);
    }
  }

  private onClose(event: Electron.Event): void {
    if (this.quitting()) return;
    if (this.hooks.closeToTray()) {
      event.preventDefault();
      this.win?.hide();
      return;
    }
    if (process.platform !== 'darwin') {
      // Closing the window quits: ask first (active trades), and keep the window if the user cancels.
      event.preventDefault();
      app.quit();
    }
  }
}
