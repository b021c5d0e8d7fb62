import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app } from 'electron';
import type { AppSettings } from '../shared/ipc';
import type { LaunchedEngine } from './core/engine/create';
import { createLog } from './shell/log';
import type { DesktopNotice } from './shell/notificationModel';
import { resolveDataDir, resourceFile } from './shell/paths';
import { describeError, SecretScrubber } from './shell/redact';
import type { TrayModel, TrayState } from './shell/trayModel';
import type { mainWindowOptions } from './shell/windowOptions';

export const APP_NAME = 'Merchant Desk';
const APP_ID = 'com.merchantdesk.app';

/** What the Playwright Electron suite reads on the main process's globalThis (test mode only). */
export interface TestHook {
  notifications: DesktopNotice[];
  quitWarnings: string[];
  windowOptions: ReturnType<typeof mainWindowOptions>[];
  /** Set by the tray part. */
  tray?: () => TrayModel & { state: TrayState };
}

export type QuitPhase = 'running' | 'confirming' | 'shutting-down' | 'done';

/**
 * What every part of the shell shares (window, tray, notifications, IPC, quit): where things are, the log, the
 * engine, the settings and the quit phase. Parts never reach each other through it: index.ts sequences them.
 * Each mutable field has one writer, named beside it.
 */
export interface ShellContext {
  readonly dataDir: string;
  /**
   * Set by the Playwright Electron suite: no modal dialogs, and a test hook on globalThis. Honoured only when
   * running from the build: a packaged app's user gets every dialog, and nothing on globalThis.
   */
  readonly testMode: boolean;
  readonly testHook: TestHook | null;
  /** The dev server's URL in `electron-vite dev`, else undefined. */
  readonly devUrl: string | undefined;
  readonly rendererFile: string;
  /** What the window shows: the dev server's URL, or the built renderer's `file:` URL. */
  readonly rendererUrl: string;
  readonly preloadFile: string;
  resource(name: string): string;
  /** Every key the shell has seen: cut out of each log line and error dialog. */
  readonly secrets: SecretScrubber;
  log(line: string): void;
  /** Settles once the engine has started (or failed to). */
  readonly engineReady: Promise<LaunchedEngine>;
  /** Called once, by index.ts, when `ready`. */
  startEngine(engine: Promise<LaunchedEngine>): void;
  /** The started engine (index.ts writes it); null before, and when it failed. */
  engine: LaunchedEngine | null;
  /** The engine's settings as last heard (index.ts writes them); null until the first snapshot. */
  settings: AppSettings | null;
  /** quit.ts writes it. */
  quitPhase: QuitPhase;
}

/**
 * The app's identity and paths, set before `ready`: the single-instance lock and Chromium's profile follow
 * userData, so a test's MERCHANT_DESK_DATA_DIR is a separate instance.
 */
export function createShellContext(): ShellContext {
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
  process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${describeError(reason)}`));

  const testMode = !app.isPackaged && Boolean(process.env['MERCHANT_DESK_TEST']);
  const testHook: TestHook | null = testMode ? { notifications: [], quitWarnings: [], windowOptions: [] } : null;
  if (testHook) (globalThis as { __merchantDesk?: TestHook }).__merchantDesk = testHook;

  const bundleDir = import.meta.dirname;
  const devUrl = !app.isPackaged ? process.env['ELECTRON_RENDERER_URL'] : undefined;
  const rendererFile = join(bundleDir, '../renderer/index.html');

  let startEngine!: (engine: Promise<LaunchedEngine>) => void;
  const engineReady = new Promise<LaunchedEngine>((resolve, reject) => {
    startEngine = (engine) => void engine.then(resolve, reject);
  });

  return {
    dataDir,
    testMode,
    testHook,
    devUrl,
    rendererFile,
    rendererUrl: devUrl ?? pathToFileURL(rendererFile).href,
    preloadFile: join(bundleDir, '../preload/index.cjs'),
    resource: (name) =>
      resourceFile(name, { isPackaged: app.isPackaged, bundleDir, resourcesPath: process.resourcesPath }),
    secrets,
    log,
    engineReady,
    startEngine,
    engine: null,
    settings: null,
    quitPhase: 'running',
  };
}
