// A stand-in for the `electron` module, just enough of it for src/main/index.ts to run
// under plain Node (the real binary is not installed everywhere). It records what the
// shell does (windows, IPC handlers, sent events, notifications, tray, dialogs) on
// globalThis.__fakeElectron for test/shell/support/driveMain.mjs.
//
// Environment (set by the test that spawns the driver):
//   FAKE_ELECTRON_LOCK=held      another instance holds the single-instance lock
//   FAKE_ELECTRON_DISPLAYS=json  the displays' work areas, primary first:
//                                [{"x":0,"y":0,"width":1920,"height":1040}, ...]
//   FAKE_ELECTRON_PACKAGED=1     app.isPackaged (resources read from the repository's resources/)
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const fake = {
  windows: [],
  handlers: new Map(),
  sent: [],
  /** What was sent while the page was loading: a page has no listener then, so Electron's send is lost. */
  lostWhileLoading: [],
  notifications: [],
  trays: [],
  dialogs: [],
  errorBoxes: [],
  opened: [],
  badge: [],
  /** Every app.quit() call, whether or not before-quit cancelled it. */
  quitCalls: 0,
  /** The arguments of each app.setAsDefaultProtocolClient call. */
  protocolClients: [],
  /** What requestSingleInstanceLock() answered. */
  lockRequests: [],
  dialogAnswer: 1,
  sandboxEnabled: false,
  quitted: false,
  exitCode: null,
  session: {},
};
globalThis.__fakeElectron = fake;

const paths = { appData: mkdtempSync(join(tmpdir(), 'md-fake-appdata-')) };
const cancellable = () => ({
  defaultPrevented: false,
  preventDefault() {
    this.defaultPrevented = true;
  },
});

const packaged = process.env.FAKE_ELECTRON_PACKAGED === '1';
// A packaged app reads its images from <resourcesPath>/resources/: the repository's own folder here.
if (packaged) process.resourcesPath = join(import.meta.dirname, '..', '..', '..');

class App extends EventEmitter {
  isPackaged = packaged;
  ready = false;
  setName(name) {
    this.name = name;
  }
  getPath(name) {
    return paths[name] ?? join(paths.appData, name);
  }
  /** `electron <folder>`: the folder (the repository here). */
  getAppPath() {
    return join(import.meta.dirname, '..', '..', '..');
  }
  setPath(name, value) {
    paths[name] = value;
  }
  setAppUserModelId() {}
  setAsDefaultProtocolClient(...args) {
    fake.protocolClients.push(args);
    return true;
  }
  enableSandbox() {
    fake.sandboxEnabled = true;
  }
  requestSingleInstanceLock() {
    const granted = process.env.FAKE_ELECTRON_LOCK !== 'held';
    fake.lockRequests.push(granted);
    return granted;
  }
  whenReady() {
    this.readyPromise ??= new Promise((resolve) =>
      setTimeout(() => {
        this.ready = true;
        this.emit('ready');
        resolve();
      }, 10),
    );
    return this.readyPromise;
  }
  isReady() {
    return this.ready;
  }
  getVersion() {
    return '0.0.0-test';
  }
  setBadgeCount(count) {
    fake.badge.push(count);
    return true;
  }
  quit() {
    fake.quitCalls++;
    const event = cancellable();
    this.emit('before-quit', event);
    if (event.defaultPrevented) return;
    for (const win of [...fake.windows]) win.close();
    fake.quitted = true;
    this.emit('quit');
  }
  exit(code) {
    fake.exitCode = code;
  }
}
export const app = new App();

class WebContents extends EventEmitter {
  url = '';
  loading = false;
  setWindowOpenHandler(handler) {
    this.windowOpenHandler = handler;
  }
  send(channel, payload) {
    if (this.loading) fake.lostWhileLoading.push({ channel, payload });
    else fake.sent.push({ channel, payload });
  }
  isLoading() {
    return this.loading;
  }
  /** A load is under way from the call until the next turn, then `did-finish-load`. */
  startLoad() {
    this.loading = true;
    setImmediate(() => {
      this.loading = false;
      this.emit('did-finish-load');
    });
  }
  isDestroyed() {
    return false;
  }
  forcefullyCrashRenderer() {
    this.emit('render-process-gone', {}, { reason: 'killed', exitCode: 9 });
  }
}

export class BrowserWindow extends EventEmitter {
  static getAllWindows() {
    return [...fake.windows];
  }
  constructor(options) {
    super();
    this.options = options;
    this.webContents = new WebContents();
    this.destroyed = false;
    this.visible = false;
    this.minimized = false;
    this.maximized = false;
    this.loads = 0;
    this.focuses = 0;
    this.restores = 0;
    /** loadFile's options, one per load (a `hash` when a link's place is the route the page starts at). */
    this.loadOptions = [];
    fake.windows.push(this);
    app.emit('web-contents-created', {}, this.webContents);
  }
  async loadFile(file, options) {
    this.loads++;
    this.loadOptions.push(options ?? null);
    this.webContents.startLoad();
    this.webContents.url = new URL(`file://${file}`).href;
    this.emit('ready-to-show');
  }
  async loadURL(url) {
    this.loads++;
    this.webContents.startLoad();
    this.webContents.url = url;
    this.emit('ready-to-show');
  }
  show() {
    this.visible = true;
  }
  hide() {
    this.visible = false;
  }
  focus() {
    this.focuses++;
  }
  minimize() {
    this.minimized = true;
  }
  restore() {
    this.restores++;
    this.minimized = false;
  }
  maximize() {
    this.maximized = true;
  }
  isDestroyed() {
    return this.destroyed;
  }
  isMinimized() {
    return this.minimized;
  }
  isMaximized() {
    return this.maximized;
  }
  isVisible() {
    return this.visible;
  }
  getNormalBounds() {
    return { x: 40, y: 30, width: 1200, height: 760 };
  }
  close() {
    const event = cancellable();
    this.emit('close', event);
    if (event.defaultPrevented) return;
    this.destroyed = true;
    fake.windows = fake.windows.filter((win) => win !== this);
    this.emit('closed');
    if (fake.windows.length === 0) app.emit('window-all-closed');
  }
}

export const dialog = {
  showErrorBox(title, message) {
    fake.errorBoxes.push({ title, message });
  },
  async showMessageBox(...args) {
    const options = args.at(-1);
    fake.dialogs.push(options);
    return { response: fake.dialogAnswer, checkboxChecked: false };
  },
};

export const ipcMain = {
  handle(channel, handler) {
    fake.handlers.set(channel, handler);
  },
};

export const Menu = { buildFromTemplate: (template) => ({ template }) };
export const nativeImage = { createFromPath: (path) => ({ path }) };

export class Notification extends EventEmitter {
  static isSupported() {
    return true;
  }
  constructor(options) {
    super();
    this.options = options;
  }
  show() {
    fake.notifications.push(this);
  }
}

const displays = (
  process.env.FAKE_ELECTRON_DISPLAYS
    ? JSON.parse(process.env.FAKE_ELECTRON_DISPLAYS)
    : [{ x: 0, y: 0, width: 1920, height: 1040 }]
).map((workArea, index) => ({ id: index + 1, workArea, bounds: workArea }));
export const screen = { getPrimaryDisplay: () => displays[0], getAllDisplays: () => [...displays] };

const defaultSession = Object.assign(new EventEmitter(), {
  webRequest: {
    onHeadersReceived(listener) {
      fake.session.onHeadersReceived = listener;
    },
  },
  setPermissionRequestHandler(handler) {
    fake.session.permissionRequest = handler;
  },
  setPermissionCheckHandler(handler) {
    fake.session.permissionCheck = handler;
  },
  setDevicePermissionHandler(handler) {
    fake.session.devicePermission = handler;
  },
});
fake.session.emitter = defaultSession;
export const session = { defaultSession };
/** Like Linux without a keyring: no encryption to offer, so the API key is kept by another store or asked for. */
export const safeStorage = {
  isEncryptionAvailable: () => false,
  getSelectedStorageBackend: () => 'basic_text',
  encryptString() {
    throw new Error('Encryption is not available.');
  },
  decryptString() {
    throw new Error('Decryption is not available.');
  },
};

export const shell = {
  async openExternal(url) {
    fake.opened.push(url);
  },
};

export class Tray extends EventEmitter {
  constructor(image) {
    super();
    this.image = image;
    this.destroyed = false;
    fake.trays.push(this);
  }
  setToolTip(text) {
    this.tooltip = text;
  }
  setContextMenu(menu) {
    this.menu = menu;
  }
  isDestroyed() {
    return this.destroyed;
  }
  destroy() {
    this.destroyed = true;
  }
}

export default {
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
};
