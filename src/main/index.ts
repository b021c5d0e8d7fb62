// The Electron shell: thin glue between Electron and the engine. Every decision lives in the electron-free
// modules of ./shell (unit-tested under plain Node); the parts beside this file (window, tray, notifications,
// IPC, security, quit, single instance, updates, deep links, autostart) each wire one concern to Electron's objects
// and never import each other: this file composes them and sequences what one part's news means for the others. The
// engine (./core) never imports electron.
import { join } from 'node:path';
import { app, dialog, safeStorage, shell } from 'electron';
import type { AppSettings, EngineEventBatch } from '../shared/ipc';
import { SessionStart } from './autostart';
import { createEngineFromOptions, type LaunchedEngine } from './core/engine/create';
import { DeepLinks } from './deepLinks';
import { registerIpc } from './ipc';
import { DesktopNotifications } from './notifications';
import { guardQuit } from './quit';
import { RendererRecovery } from './rendererRecovery';
import { hardenSession, hardenWebContents } from './security';
import { describeError, errorMessage } from './shell/redact';
import { applyTrayBatch, trayStateFrom } from './shell/trayModel';
import { createShellContext } from './shellContext';
import { claimSingleInstance } from './singleInstance';
import { ShellTray } from './tray';
import { AppUpdates } from './updates';
import { MainWindow } from './window';

const ctx = createShellContext();
const { dataDir, log } = ctx;
/** Counts settings updates, so a slower first snapshot cannot overwrite a newer change. */
let settingsEpoch = 0;

// The parts reach each other only through these hooks, which run once all four exist.
const mainWindow: MainWindow = new MainWindow(ctx, {
  closeToTray: () => ctx.settings?.closeToTray === true && tray.exists(),
  onCreated: (win) => recovery.watch(win),
});
const recovery = new RendererRecovery(ctx, {
  reload: (win) => mainWindow.load(win),
  notify: (notice) => notifications.show(notice),
});
const notifications = new DesktopNotifications(ctx, (action) => {
  if (action.showWindow) mainWindow.show();
  if (action.navigate) mainWindow.navigate(action.navigate);
});
const updates = new AppUpdates(ctx, { changed: (status) => mainWindow.updateStatus(status) });
const tray = new ShellTray(ctx, {
  open: () => mainWindow.show(),
  quit: () => app.quit(),
  settingsChanged: onSettings,
});
const sessionStart = new SessionStart(ctx, { settingsChanged: onSettings, notify: (n) => notifications.show(n) });

const deepLinks = new DeepLinks(ctx, {
  open: (target) => mainWindow.open(target),
  refused: (reason) =>
    notifications.show({ id: 'deep-link', title: 'Link not opened', body: reason, target: null, urgent: false }),
});

if (
  claimSingleInstance((argv) => {
    mainWindow.show();
    deepLinks.fromArgv(argv);
  })
) {
  deepLinks.listen();
  app.on('web-contents-created', (_event, contents) => hardenWebContents(ctx, contents));
  guardQuit(ctx, {
    dialogParent: () => mainWindow.visible(),
    beforeShutdown: () => {
      tray.destroy();
      notifications.close();
      updates.stop();
    },
    installingUpdate: () => updates.installing,
  });
  app.on('window-all-closed', () => {
    // macOS keeps the app in the dock; elsewhere closing the window quits (see MainWindow's close).
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => mainWindow.show());
  void app.whenReady().then(onReady);
}

async function onReady(): Promise<void> {
  log(`Merchant Desk ${app.getVersion()} (Electron ${process.versions.electron}) data dir ${dataDir}`);
  hardenSession(ctx);
  registerIpc(ctx, {
    isAppWindow: (sender) => mainWindow.owns(sender),
    settingsChanged: onSettings,
    testNotification: () => notifications.test(),
    updates,
  });
  // safeStorage keeps the key encrypted at rest where keytar could not be built (it is ready once the app is).
  ctx.startEngine(
    createEngineFromOptions({
      dataDir,
      log,
      safeStorage,
      // CSV exports land in the downloads folder; "Show in folder" reveals the file there.
      exportTarget: { dir: app.getPath('downloads'), reveal: (file) => shell.showItemInFolder(file) },
      // The demo is the shell's: its code (the sandbox) loads only when the demo is used.
      startDemo: async () => (await import('../server/demo')).startDemoSandbox(dataDir, log),
    }),
  );
  tray.create();
  mainWindow.create(sessionStart.startsHidden(tray.exists()));

  let launched: LaunchedEngine;
  try {
    launched = await ctx.engineReady;
  } catch (error) {
    log(`engine failed to start: ${describeError(error)}`);
    if (!ctx.testMode)
      dialog.showErrorBox(
        'Merchant Desk could not start',
        `${ctx.secrets.scrub(errorMessage(error))}\n\nThe log is in ${join(dataDir, 'logs')}.`,
      );
    app.exit(1);
    return;
  }
  ctx.engine = launched;
  log(`engine: ${launched.describe()}`);
  // Batches that come while the tray's snapshot is read: newer than its counts, laid over it.
  let batchesDuring: EngineEventBatch[] | null = [];
  // "While you were away" comes from the engine (a notification and `awaySummary` after its first sync).
  launched.engine.subscribe((batch) => {
    mainWindow.forward(batch);
    // Settings changed by another window or host (the web host shares the engine's config).
    if (batch.settings) onSettings(batch.settings);
    tray.setState(applyTrayBatch(tray.state, batch));
    batchesDuring?.push(batch);
    if (batch.notifications) notifications.offer(batch.notifications);
  });
  try {
    const epoch = settingsEpoch;
    const snapshot = await launched.engine.snapshot();
    // A settings change that landed while the snapshot was read is newer: keep it.
    if (settingsEpoch === epoch) onSettings(snapshot.settings);
    tray.setState(trayStateFrom(snapshot, ctx.settings ?? snapshot.settings, batchesDuring ?? []));
  } catch (error) {
    log(`snapshot for the tray failed: ${String(error)}`);
  } finally {
    batchesDuring = null;
  }
}

function onSettings(next: AppSettings): void {
  ctx.settings = next;
  settingsEpoch++;
  tray.setState({ ...tray.state, alertsPaused: next.alertsPaused, autoBuyStopped: next.autoBuyStopped === true });
  notifications.settingsChanged();
  sessionStart.apply(next);
  updates.settingsChanged(); // the first settings start the update checks they allow
}
