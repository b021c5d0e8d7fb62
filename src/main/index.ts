// The Electron shell: thin glue between Electron and the engine. Every decision lives
// in the electron-free modules of ./shell (unit-tested under plain Node); this file
// only wires them to Electron's objects. The engine (./core) never imports electron.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  safeStorage,
  screen,
  session,
  shell,
  Tray,
  type MenuItemConstructorOptions,
  type WebContents,
} from 'electron';
import type {
  AlertRule,
  AppSettings,
  EngineEventBatch,
  IpcMethod,
  IpcParsedInput,
  Notification as EngineNotification,
} from '../shared/ipc';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../shared/ipc';
import { toUtcIso } from '../shared/time';
import { createEngineFromOptions, type LaunchedEngine } from './core/engine/create';
import { dispatchIpc } from './core/ipc/dispatch';
import type { EngineService } from './core/ipc/engineService';
import { contentSecurityPolicy, withCspHeader } from './shell/csp';
import { handleIpcCall } from './shell/ipcGuard';
import { createLog } from './shell/log';
import { BurstGate } from '../shared/notifications';
import {
  clickAction,
  planDesktopNotifications,
  type DesktopNotice,
  type NotificationTarget,
} from './shell/notificationModel';
import { resolveDataDir, resourceFile, trayIconName } from './shell/paths';
import { countActiveAutoBuyRules, QUIT_BUTTON_INDEX, QUIT_BUTTONS, quitDetail, quitWarning } from './shell/quitGuard';
import { describeError, errorMessage, SecretScrubber } from './shell/redact';
import { CrashTracker, crashNotice, UNRESPONSIVE_GRACE_MS } from './shell/rendererHealth';
import { readWindowState, writeLastQuit, writeWindowState } from './shell/stateFiles';
import { applyTrayBatch, sameTrayState, trayModel, type TrayModel, type TrayState } from './shell/trayModel';
import { isAllowedDownload, isAllowedExternalUrl, navigationVerdict, windowOpenVerdict } from './shell/urlRules';
import { mainWindowOptions, restoreBounds } from './shell/windowOptions';

const APP_ID = 'com.merchantdesk.app';
const APP_NAME = 'Merchant Desk';
/**
 * Set by the Playwright Electron suite: no modal dialogs, and a test hook on globalThis. Honoured only
 * when running from the build: a packaged app's user gets every dialog, and nothing on globalThis.
 */
const TEST_MODE = !app.isPackaged && Boolean(process.env['MERCHANT_DESK_TEST']);

// ---- Paths and identity (before `ready`: the single-instance lock and Chromium's
// profile follow userData, so a test's MERCHANT_DESK_DATA_DIR is a separate instance).
app.setName(APP_NAME);
const dataDir = resolveDataDir(process.env, join(app.getPath('appData'), APP_NAME));
app.setPath('userData', dataDir);
if (process.platform === 'win32') app.setAppUserModelId(APP_ID);
app.enableSandbox();

// Every line the shell writes (its own, the engine's, errors it did not make) loses any secret it knows
// of or that looks like a credential: see shell/redact.ts.
const secrets = new SecretScrubber();
secrets.remember(process.env['MERCHANT_API_KEY']);
const writeLog = createLog(dataDir);
const log = (line: string): void => writeLog(secrets.scrub(line));
const bundleDir = import.meta.dirname;
const devUrl = !app.isPackaged ? process.env['ELECTRON_RENDERER_URL'] : undefined;
const rendererFile = join(bundleDir, '../renderer/index.html');
const rendererUrl = devUrl ?? pathToFileURL(rendererFile).href;
const preloadFile = join(bundleDir, '../preload/index.cjs');
const resource = (name: string): string =>
  resourceFile(name, { isPackaged: app.isPackaged, bundleDir, resourcesPath: process.resourcesPath });

// ---- Shell state

let mainWindow: BrowserWindow | null = null;
let tray: Tray | null = null;
let trayState: TrayState = {
  activeTrades: 0,
  connectionState: 'connecting',
  alertsPaused: false,
  unacknowledgedFirings: 0,
};
let trayMenuKey = '';
let settings: AppSettings | null = null;
/** Counts settings updates, so a slower first snapshot cannot overwrite a newer change. */
let settingsEpoch = 0;
let lastSeq = 0;
let quitPhase: 'running' | 'confirming' | 'shutting-down' | 'done' = 'running';
const crashes = new CrashTracker();
/** Shown notifications, kept referenced so their click handlers survive garbage collection. */
const liveNotifications = new Set<Notification>();

interface TestHook {
  notifications: DesktopNotice[];
  quitWarnings: string[];
  windowOptions: ReturnType<typeof mainWindowOptions>[];
  tray(): TrayModel & { state: TrayState };
}
const testHook: TestHook | null = TEST_MODE
  ? {
      notifications: [],
      quitWarnings: [],
      windowOptions: [],
      tray: () => ({ ...trayModel(trayState), state: trayState }),
    }
  : null;
if (testHook) (globalThis as { __merchantDesk?: TestHook }).__merchantDesk = testHook;

// ---- Engine: started once; IPC calls that arrive before it is ready wait for it.

let launched: LaunchedEngine | null = null;
let startEngine!: (engine: Promise<LaunchedEngine>) => void;
const engineReady = new Promise<LaunchedEngine>((resolve, reject) => {
  startEngine = (engine) => void engine.then(resolve, reject);
});

/** What the IPC guard hands calls to: waits for the engine, so the guard itself runs first. */
const lazyEngine: EngineService = {
  handle: async <M extends IpcMethod>(method: M, input: IpcParsedInput<M>) =>
    (await engineReady).engine.handle(method, input),
  subscribe: () => () => {},
};

process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${describeError(reason)}`));

if (!app.requestSingleInstanceLock()) {
  // Another Merchant Desk runs with this data dir: it gets focused (second-instance), we leave.
  app.quit();
} else {
  app.on('second-instance', () => showWindow());
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));
  app.on('before-quit', onBeforeQuit);
  app.on('window-all-closed', () => {
    // macOS keeps the app in the dock; elsewhere closing the window quits (see onWindowClose).
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => showWindow());
  void app.whenReady().then(onReady);
}

async function onReady(): Promise<void> {
  log(`Merchant Desk ${app.getVersion()} (Electron ${process.versions.electron}) data dir ${dataDir}`);
  hardenSession();
  ipcMain.handle(IPC_CALL_CHANNEL, async (event, method: unknown, input: unknown) => {
    // The Settings screen sends a key once (account.configure / account.test): whatever happens to the call,
    // the shell's log must never show it.
    if ((method === 'account.configure' || method === 'account.test') && typeof input === 'object' && input !== null) {
      const apiKey = (input as { apiKey?: unknown }).apiKey;
      if (typeof apiKey === 'string') secrets.remember(apiKey);
    }
    const frame = event.senderFrame;
    const result = await handleIpcCall(
      lazyEngine,
      {
        url: frame?.url,
        isMainFrame: frame !== null && frame.parent === null,
        isAppWindow: event.sender === mainWindow?.webContents,
      },
      method,
      input,
      { rendererUrl, log },
    );
    if (method === 'settings.update' && result.ok) onSettings(result.value as AppSettings);
    return result;
  });
  // safeStorage keeps the key encrypted at rest where keytar could not be built (it is ready once the app is).
  startEngine(
    createEngineFromOptions({
      dataDir,
      log,
      safeStorage,
      // The demo is the shell's: its code (the sandbox) loads only when the demo is used.
      startDemo: async () => (await import('../server/demo')).startDemoSandbox(dataDir, log),
    }),
  );
  createWindow();
  createTray();

  try {
    launched = await engineReady;
  } catch (error) {
    log(`engine failed to start: ${describeError(error)}`);
    if (!TEST_MODE)
      dialog.showErrorBox(
        'Merchant Desk could not start',
        `${secrets.scrub(errorMessage(error))}\n\nThe log is in ${join(dataDir, 'logs')}.`,
      );
    app.exit(1);
    return;
  }
  log(`engine: ${launched.describe()}`);
  startEventForwarding(launched);
  try {
    const epoch = settingsEpoch;
    const snapshot = await launched.engine.snapshot();
    // A settings change that landed while the snapshot was read is newer: keep it.
    if (settingsEpoch === epoch) onSettings(snapshot.settings);
    setTrayState({
      activeTrades: snapshot.activeTrades,
      connectionState: snapshot.connection.state,
      alertsPaused: settings?.alertsPaused ?? snapshot.settings.alertsPaused,
      unacknowledgedFirings: snapshot.unacknowledgedFirings,
      autoBuyStopped: (settings ?? snapshot.settings).autoBuyStopped === true,
      unreadNotifications: snapshot.unreadNotifications ?? 0,
    });
  } catch (error) {
    log(`snapshot for the tray failed: ${String(error)}`);
  }
}

// ---- Session-wide security: CSP, permissions, downloads

function hardenSession(): void {
  const policy = contentSecurityPolicy({ devServerOrigin: devUrl ? new URL(devUrl).origin : null });
  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCspHeader(details.responseHeaders, policy) });
  });
  // Desktop notifications come from main; the page needs no permission at all.
  ses.setPermissionRequestHandler((_contents, permission, callback) => {
    log(`permission request refused: ${permission}`);
    callback(false);
  });
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
  ses.on('will-download', (event, item) => {
    if (isAllowedDownload(item.getURL())) return;
    log('download refused (not an export of the app)');
    event.preventDefault();
  });
}

/** Every web contents (there is one): no navigation away, no new windows, no webviews. */
function hardenWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => {
    const verdict = navigationVerdict(event.url, rendererUrl);
    if (verdict === 'allow') return;
    event.preventDefault();
    if (verdict === 'open-external') void openExternal(event.url);
    else log(`navigation refused: ${schemeOf(event.url)}`);
  });
  contents.on('will-redirect', (event) => {
    if (event.isMainFrame && navigationVerdict(event.url, rendererUrl) !== 'allow') {
      event.preventDefault();
      log(`redirect refused: ${schemeOf(event.url)}`);
    }
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (windowOpenVerdict(url) === 'open-external') void openExternal(url);
    else log(`window.open refused: ${schemeOf(url)}`);
    return { action: 'deny' };
  });
}

async function openExternal(url: string): Promise<void> {
  // Checked again at the last moment: nothing reaches the OS unless the rules allow it.
  if (!isAllowedExternalUrl(url)) return;
  try {
    await shell.openExternal(url, { activate: true });
  } catch (error) {
    log(`could not open a ${schemeOf(url)} link: ${(error as Error).message}`);
  }
}

/** For the log: the scheme only, never a full URL (it may carry a trade URL token). */
function schemeOf(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  return match ? `${match[1]?.toLowerCase()}: URL` : 'malformed URL';
}

// ---- The window

function createWindow(): BrowserWindow {
  const saved = readWindowState(dataDir);
  const primary = screen.getPrimaryDisplay();
  const displays = [primary, ...screen.getAllDisplays().filter((d) => d.id !== primary.id)];
  const bounds = restoreBounds(saved, displays);
  const icon = resource('icon.png');
  const options = mainWindowOptions({
    preload: preloadFile,
    bounds,
    ...(existsSync(icon) && process.platform !== 'darwin' ? { icon } : {}),
  });
  testHook?.windowOptions.push(options);
  const win = new BrowserWindow(options);
  mainWindow = win;
  if (saved?.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());

  let saveTimer: ReturnType<typeof setTimeout> | null = null;
  const scheduleSave = (): void => {
    if (saveTimer) clearTimeout(saveTimer);
    saveTimer = setTimeout(() => saveWindowState(win), 500);
  };
  win.on('resize', scheduleSave);
  win.on('move', scheduleSave);
  win.on('close', (event) => {
    if (saveTimer) clearTimeout(saveTimer);
    saveWindowState(win);
    onWindowClose(event);
  });
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });

  const contents = win.webContents;
  contents.on('render-process-gone', (_event, details) => {
    log(`renderer gone: ${details.reason} (exit code ${details.exitCode})`);
    const next = crashes.onGone(details.reason, Date.now());
    if (next.action === 'reload' && !win.isDestroyed()) {
      loadRenderer(win);
      // Said to the user, not only logged: the window they were looking at went blank and came back.
      const notice = crashNotice(details.reason);
      log(`renderer reloaded: ${notice}`);
      showDesktopNotification({
        id: `renderer-reloaded:${Date.now()}`,
        title: APP_NAME,
        body: notice,
        target: null,
        urgent: false,
      });
    } else if (next.action === 'give-up') {
      log(next.message);
      showDesktopNotification({
        id: `renderer-gave-up:${Date.now()}`,
        title: APP_NAME,
        body: next.message,
        target: null,
        urgent: true,
      });
      if (!TEST_MODE) dialog.showErrorBox('Merchant Desk', next.message);
    }
  });
  let hangTimer: ReturnType<typeof setTimeout> | null = null;
  const offerReload = async (target: BrowserWindow): Promise<void> => {
    hangTimer = null;
    if (target.isDestroyed() || TEST_MODE) return;
    const { response } = await dialog.showMessageBox(target, {
      type: 'warning',
      message: 'Merchant Desk is not responding',
      detail:
        'The window has not responded for 10 seconds. Reloading it keeps your data; trades continue on the marketplace.',
      buttons: ['Reload', 'Keep waiting'],
      defaultId: 0,
      cancelId: 1,
      noLink: true,
    });
    if (response === 0 && !target.isDestroyed()) {
      log('reloading the unresponsive window');
      // A hung renderer cannot reload itself; render-process-gone then reloads it.
      target.webContents.forcefullyCrashRenderer();
    }
  };

  win.on('unresponsive', () => {
    log('window unresponsive');
    if (hangTimer) return;
    hangTimer = setTimeout(() => void offerReload(win), UNRESPONSIVE_GRACE_MS);
  });
  win.on('responsive', () => {
    if (hangTimer) {
      clearTimeout(hangTimer);
      hangTimer = null;
      log('window responsive again');
    }
  });
  loadRenderer(win);
  return win;
}

function loadRenderer(win: BrowserWindow): void {
  const loading = devUrl ? win.loadURL(devUrl) : win.loadFile(rendererFile);
  loading.catch((error: unknown) => log(`loading the renderer failed: ${(error as Error).message}`));
}

function saveWindowState(win: BrowserWindow): void {
  if (win.isDestroyed() || win.isMinimized()) return;
  try {
    writeWindowState(dataDir, { bounds: win.getNormalBounds(), maximized: win.isMaximized() });
  } catch (error) {
    log(`saving the window position failed: ${(error as Error).message}`);
  }
}

function onWindowClose(event: Electron.Event): void {
  if (quitPhase === 'shutting-down' || quitPhase === 'done') return;
  if (settings?.closeToTray && tray) {
    event.preventDefault();
    mainWindow?.hide();
    return;
  }
  if (process.platform !== 'darwin') {
    // Closing the window quits: ask first (active trades), and keep the window if the user cancels.
    event.preventDefault();
    app.quit();
  }
}

function showWindow(): void {
  if (quitPhase === 'shutting-down' || quitPhase === 'done') return;
  const win = mainWindow && !mainWindow.isDestroyed() ? mainWindow : app.isReady() ? createWindow() : null;
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

/** Renderer events: the engine's batches as they are, and our own `navigate` batches. */
function sendToRenderer(batch: EngineEventBatch): void {
  const contents = mainWindow && !mainWindow.isDestroyed() ? mainWindow.webContents : null;
  if (contents && !contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, batch);
}

function navigateTo(target: NonNullable<NotificationTarget>): void {
  // Repeats the last seq: not a gap for the renderer's resync check.
  sendToRenderer({ seq: lastSeq, at: toUtcIso(Date.now()), navigate: target });
}

// ---- Engine events → renderer, tray, notifications

// "While you were away" comes from the engine (a notification and `awaySummary` after its first sync), as in the web host.
function startEventForwarding(engine: LaunchedEngine): void {
  engine.engine.subscribe((batch) => {
    lastSeq = batch.seq;
    sendToRenderer(batch);
    // Settings changed by another window or host (the web host shares the engine's config).
    if (batch.settings) onSettings(batch.settings);
    setTrayState(applyTrayBatch(trayState, batch));
    if (batch.notifications) notify(batch.notifications);
  });
}

/** Engine notifications before the settings are known wait for them (the first snapshot). */
let pendingNotifications: EngineNotification[] = [];

function notify(list: readonly EngineNotification[]): void {
  if (!settings) {
    pendingNotifications = [...pendingNotifications, ...list].slice(-50);
    return;
  }
  desktopGate.offer(list);
}

/** Paced across batches: a trickle of trades is a few grouped notifications, not one each. */
const desktopGate = new BurstGate<EngineNotification>((list, paced) => {
  if (!settings) return;
  for (const notice of planDesktopNotifications(list, settings, paced ? 1 : undefined)) showDesktopNotification(notice);
});

function showDesktopNotification(notice: DesktopNotice): void {
  testHook?.notifications.push(notice);
  if (!Notification.isSupported()) return;
  const icon = resource('icon.png');
  const notification = new Notification({
    title: notice.title,
    body: notice.body,
    urgency: notice.urgent ? 'critical' : 'normal',
    ...(process.platform !== 'darwin' && existsSync(icon) ? { icon: nativeImage.createFromPath(icon) } : {}),
  });
  liveNotifications.add(notification);
  const forget = (): void => {
    liveNotifications.delete(notification);
  };
  notification.on('click', () => {
    forget();
    const action = clickAction(notice);
    if (action.showWindow) showWindow();
    if (action.navigate) navigateTo(action.navigate);
  });
  notification.on('close', forget);
  notification.on('failed', (_event, error) => {
    forget();
    log(`notification failed: ${error}`);
  });
  notification.show();
  // Some platforms never report close: do not hold them forever.
  setTimeout(forget, 10 * 60_000).unref();
}

function onSettings(next: AppSettings): void {
  settings = next;
  settingsEpoch++;
  setTrayState({ ...trayState, alertsPaused: next.alertsPaused, autoBuyStopped: next.autoBuyStopped === true });
  if (pendingNotifications.length > 0) {
    const waiting = pendingNotifications;
    pendingNotifications = [];
    notify(waiting);
  }
}

// ---- Tray

function createTray(): void {
  const file = resource(trayIconName(process.platform));
  if (!existsSync(file)) {
    log(`no tray icon at ${file}; running without a tray`);
    return;
  }
  try {
    tray = new Tray(nativeImage.createFromPath(file));
  } catch (error) {
    // Some Linux desktops have no status area.
    log(`tray unavailable: ${(error as Error).message}`);
    return;
  }
  tray.on('click', () => showWindow());
  renderTray(true);
}

function setTrayState(next: TrayState): void {
  if (sameTrayState(next, trayState)) return;
  trayState = next;
  renderTray(false);
}

function renderTray(force: boolean): void {
  const model = trayModel(trayState);
  if (process.platform !== 'win32') app.setBadgeCount(model.badgeCount);
  if (!tray || tray.isDestroyed()) return;
  tray.setToolTip(model.tooltip);
  const key = JSON.stringify(model.menu);
  if (!force && key === trayMenuKey) return;
  trayMenuKey = key;
  const template: MenuItemConstructorOptions[] = model.menu.map((entry) => {
    if (entry.type === 'separator') return { type: 'separator' };
    const click = (): void => onTrayMenu(entry.id);
    if (entry.type === 'checkbox')
      return { type: 'checkbox', id: entry.id, label: entry.label, checked: entry.checked, click };
    return { id: entry.id, label: entry.label, enabled: entry.enabled ?? true, click };
  });
  tray.setContextMenu(Menu.buildFromTemplate(template));
}

function onTrayMenu(id: string): void {
  switch (id) {
    case 'open':
      showWindow();
      return;
    case 'pause-alerts':
      void toggleAlertsPaused();
      return;
    case 'stop-auto-buy':
      void toggleAutoBuyStopped();
      return;
    case 'quit':
      app.quit();
      return;
  }
}

async function toggleAlertsPaused(): Promise<void> {
  const engine = launched?.engine;
  if (!engine) return;
  const result = await dispatchIpc(engine, 'settings.update', { alertsPaused: !(settings?.alertsPaused ?? false) });
  if (result.ok) onSettings(result.value as AppSettings);
  else log(`pausing alerts failed: ${result.error.message}`);
}

/** The tray's stop-all: no auto-buy request leaves until resumed (the engine checks it at every match). */
async function toggleAutoBuyStopped(): Promise<void> {
  const engine = launched?.engine;
  if (!engine) return;
  const result = await dispatchIpc(engine, 'settings.update', { autoBuyStopped: !(settings?.autoBuyStopped ?? false) });
  if (result.ok) onSettings(result.value as AppSettings);
  else log(`stopping auto-buy failed: ${result.error.message}`);
}

// ---- Quit: ask when work is in flight, then close the engine cleanly.

function onBeforeQuit(event: Electron.Event): void {
  if (quitPhase === 'done') return;
  event.preventDefault();
  if (quitPhase !== 'running') return;
  quitPhase = 'confirming';
  void confirmQuit().then(async (quit) => {
    if (!quit) {
      quitPhase = 'running';
      return;
    }
    quitPhase = 'shutting-down';
    await shutdown();
    quitPhase = 'done';
    app.quit();
  });
}

async function confirmQuit(): Promise<boolean> {
  const engine = launched?.engine;
  if (!engine) return true;
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
    log(`quit check failed, quitting anyway: ${(error as Error).message}`);
    return true;
  }
  const message = quitWarning(state);
  if (!message) return true;
  if (testHook) {
    testHook.quitWarnings.push(message);
    return true;
  }
  const parent = mainWindow && !mainWindow.isDestroyed() && mainWindow.isVisible() ? mainWindow : null;
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

async function shutdown(): Promise<void> {
  try {
    writeLastQuit(dataDir, toUtcIso(Date.now()));
  } catch (error) {
    log(`writing last-quit.json failed: ${(error as Error).message}`);
  }
  if (tray && !tray.isDestroyed()) tray.destroy();
  tray = null;
  desktopGate.close();
  // Still starting (a quit right after launch): let it finish, then close it.
  const engine = launched ?? (app.isReady() ? await withTimeout(engineReady, 10_000).catch(() => null) : null);
  if (engine) {
    await withTimeout(engine.close(), 5_000).catch((error: unknown) =>
      log(`engine close: ${(error as Error).message}`),
    );
  }
  log('quit');
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
