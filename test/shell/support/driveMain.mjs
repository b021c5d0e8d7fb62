// Runs src/main/index.ts (from source, through tsx) against the stand-in electron and
// the real engine with its embedded demo sandbox, plays one scenario, and prints one line
// `REPORT {json}` for test/shell/mainProcess.test.ts.
//
// Env: MERCHANT_DESK_DATA_DIR, DRIVE_SCENARIO =
//   session          (default) a whole session: IPC guard, hardening, secrets in errors, tray menu, close to
//                    tray, second instance, crashed and hung renderer, buys, notifications, quit from the tray
//   relaunch         the next launch on the same data dir: the "while you were away" summary
//   second-instance  another instance holds the lock (FAKE_ELECTRON_LOCK=held): focus it and leave
//   engine-fails     the engine cannot start (DRIVE_ENGINE=fail): logged and shown without the key, exit 1
// DRIVE_ARGV: more command-line arguments for the shell (`--hidden`); XDG_CONFIG_HOME: where the autostart entry
// goes;
// and for the secrets: MERCHANT_API_KEY, DRIVE_IPC_KEY (sent with account.test), DRIVE_UNSEEN_KEY (only ever
// inside an error text, after `x-api-key:`).
import { existsSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';

register('./electronHooks.mjs', import.meta.url);
const { register: registerTsx } = await import('tsx/esm/api');
registerTsx();
const { waitFor } = await import('../../support/waitFor.ts');

const TRADE_URL = 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234';
const dataDir = process.env.MERCHANT_DESK_DATA_DIR;
const scenario = process.env.DRIVE_SCENARIO ?? 'session';
const report = { scenario };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const readLog = () =>
  existsSync(join(dataDir, 'logs', 'main.log')) ? readFileSync(join(dataDir, 'logs', 'main.log'), 'utf8') : '';
const readJson = (name) =>
  existsSync(join(dataDir, name)) ? JSON.parse(readFileSync(join(dataDir, name), 'utf8')) : null;

/** The shell up: its IPC handler, its window with the renderer loaded, and a call function from that window. */
async function boot(fake) {
  const handler = await waitFor(() => fake.handlers.get('merchant-desk:call'), 60_000, 'the IPC handler');
  const win = await waitFor(() => fake.windows[0], 60_000, 'the window');
  await waitFor(() => win.webContents.url, 60_000, 'the renderer to load');
  const rendererUrl = win.webContents.url;
  const event = (url, { parent = null, sender = win.webContents } = {}) => ({
    senderFrame: url === null ? null : { url, parent },
    sender,
  });
  const call = (method, input = {}) => handler(event(rendererUrl), method, input);
  return { handler, win, rendererUrl, event, call };
}

const windowBounds = (win) => ({
  x: win.options.x,
  y: win.options.y,
  width: win.options.width,
  height: win.options.height,
});
const trayEntry = (fake, id) => fake.trays[0]?.menu?.template.find((entry) => entry.id === id);
const snapshotOf = async (call) => {
  const answer = await call('app.snapshot', {});
  if (!answer.ok) throw new Error(`snapshot failed: ${JSON.stringify(answer)}`);
  return answer.value;
};

async function buyCheapest(call, offset = 0) {
  const page = await waitFor(
    async () => {
      const result = await call('catalog.query', { limit: 1, offset });
      return result.ok && result.value.rows.length > 0 ? result.value : null;
    },
    60_000,
    'catalog rows',
  );
  const item = page.rows[0];
  const buy = await call('buy.byId', {
    itemId: item.itemId,
    assetId: item.assetId,
    price: item.price,
    recipient: { tradeUrl: TRADE_URL },
  });
  if (!(buy.ok && buy.value.ok)) throw new Error(`buy failed: ${JSON.stringify(buy)}`);
  return buy.value.trade.tradeId;
}

async function session(fake, app) {
  const { handler, win, rendererUrl, event, call } = await boot(fake);

  report.sandboxEnabled = fake.sandboxEnabled;
  report.lockRequests = [...fake.lockRequests];
  report.webPreferences = win.options.webPreferences;
  report.rendererUrl = rendererUrl;
  report.windowBounds = windowBounds(win);
  report.maximized = win.maximized;

  // IPC guard
  report.foreign = await handler(event('https://evil.example/'), 'app.snapshot', {});
  report.subframe = await handler(event(rendererUrl, { parent: {} }), 'app.snapshot', {});
  report.otherContents = await handler(event(rendererUrl, { sender: {} }), 'app.snapshot', {});
  report.invalid = await handler(event(rendererUrl), 'trades.get', { tradeId: 5 });
  // A development build has no updates: the shell answers updates.* itself, after the same checks.
  report.updates = {
    status: await call('updates.status', {}),
    install: await call('updates.install', { confirmed: true }),
    invalid: await call('updates.install', { confirmed: 'yes' }),
    foreign: await handler(event('https://evil.example/'), 'updates.install', {}),
  };
  const snapshot = await handler(event(`${rendererUrl}#/catalog`), 'app.snapshot', {});
  report.snapshot = snapshot.ok ? { demo: snapshot.value.account.demo } : snapshot;

  // Session hardening
  await new Promise((resolve) =>
    fake.session.onHeadersReceived({ responseHeaders: { 'content-security-policy': ['default-src *'] } }, (result) => {
      report.headers = result.responseHeaders;
      resolve();
    }),
  );
  await new Promise((resolve) =>
    fake.session.permissionRequest(null, 'geolocation', (granted) => resolve((report.permission = granted))),
  );
  report.permissionCheck = fake.session.permissionCheck(null, 'notifications');
  const download = (url) => {
    const e = {
      prevented: false,
      preventDefault() {
        this.prevented = true;
      },
    };
    fake.session.emitter.emit('will-download', e, { getURL: () => url });
    return e.prevented;
  };
  report.downloadPrevented = { blob: download('blob:file:///x'), remote: download('https://example.com/x.exe') };

  // Navigation
  const navigate = (url) => {
    const e = {
      url,
      prevented: false,
      preventDefault() {
        this.prevented = true;
      },
    };
    win.webContents.emit('will-navigate', e);
    return e.prevented;
  };
  report.navigationPrevented = {
    app: navigate(`${rendererUrl}#/trades`),
    file: navigate('file:///etc/passwd'),
    https: navigate('https://example.com/page'),
    javascript: navigate('javascript:alert(1)'),
  };
  report.windowOpen = {
    https: win.webContents.windowOpenHandler({ url: 'https://example.com/other' }),
    steamOpenUrl: win.webContents.windowOpenHandler({ url: 'steam://openurl/https://evil.example' }),
  };
  await sleep(50);
  report.opened = [...fake.opened];

  // Secrets in errors the shell did not make: the key the Settings screen sent (account.test), the
  // MERCHANT_API_KEY variable, and a header-shaped key it never saw, all inside unhandled rejections.
  const demo = await snapshotOf(call);
  report.accountTest = await call('account.test', {
    baseUrl: demo.account.baseUrl,
    wsUrl: demo.account.wsUrl,
    merchantId: 'm_not_this_one',
    apiKey: process.env.DRIVE_IPC_KEY,
  });
  void Promise.reject(new Error(`relay refused ${process.env.DRIVE_IPC_KEY}`));
  void Promise.reject(new Error(`keychain: MERCHANT_API_KEY is ${process.env.MERCHANT_API_KEY}`));
  void Promise.reject(new Error(`proxy echoed {"x-api-key":"${process.env.DRIVE_UNSEEN_KEY}"}`));
  await waitFor(() => (readLog().match(/unhandled rejection/g) ?? []).length >= 3, 5_000, 'the rejections logged');

  // Tray: the menu's items do what they say. "Pause alerts" flips the setting (tray label and tooltip follow).
  await waitFor(() => fake.trays[0]?.menu, 60_000, 'the tray');
  win.hide();
  trayEntry(fake, 'open').click();
  report.trayOpen = { visible: win.isVisible() };
  trayEntry(fake, 'pause-alerts').click();
  await waitFor(async () => (await snapshotOf(call)).settings.alertsPaused === true, 5_000, 'alerts paused');
  await waitFor(() => trayEntry(fake, 'pause-alerts')?.label === 'Resume alerts', 5_000, 'the tray to say so');
  report.trayPaused = {
    tooltip: fake.trays[0].tooltip,
    entry: trayEntry(fake, 'pause-alerts').label,
    checked: trayEntry(fake, 'pause-alerts').checked,
  };
  trayEntry(fake, 'pause-alerts').click();
  await waitFor(async () => (await snapshotOf(call)).settings.alertsPaused === false, 5_000, 'alerts resumed');
  await waitFor(() => trayEntry(fake, 'pause-alerts')?.label === 'Pause alerts', 5_000, 'the tray to say so');
  report.trayResumed = { tooltip: fake.trays[0].tooltip, entry: trayEntry(fake, 'pause-alerts').label };
  // "Stop all auto-buy" sets stop-all in the engine; the entry then offers to resume.
  trayEntry(fake, 'stop-auto-buy').click();
  await waitFor(async () => (await snapshotOf(call)).autoBuy?.stopped === true, 5_000, 'auto-buy stopped');
  await waitFor(
    () => trayEntry(fake, 'stop-auto-buy')?.label === 'Resume auto-buy (stopped)',
    5_000,
    'the tray to say so',
  );
  report.trayAutoBuyStopped = { tooltip: fake.trays[0].tooltip, entry: trayEntry(fake, 'stop-auto-buy').label };
  trayEntry(fake, 'stop-auto-buy').click();
  await waitFor(async () => (await snapshotOf(call)).settings.autoBuyStopped === false, 5_000, 'auto-buy resumed');
  await waitFor(() => trayEntry(fake, 'stop-auto-buy')?.label === 'Stop all auto-buy', 5_000, 'the tray to say so');
  report.trayAutoBuyResumed = { entry: trayEntry(fake, 'stop-auto-buy').label };

  // Close to tray: closing hides the window, asks nothing and quits nothing.
  const closeToTray = await call('settings.update', { closeToTray: true });
  report.closeToTraySet = closeToTray.ok && closeToTray.value.closeToTray;
  const dialogsBefore = fake.dialogs.length;
  win.close();
  await sleep(300);
  report.closedToTray = {
    destroyed: win.isDestroyed(),
    visible: win.isVisible(),
    windows: fake.windows.length,
    quitted: fake.quitted,
    dialogs: fake.dialogs.length - dialogsBefore,
  };
  // A second launch (second-instance) brings the hidden, minimized window back and focuses it.
  win.minimize();
  const focusesBefore = win.focuses;
  app.emit('second-instance', {}, ['merchant-desk'], '/');
  report.secondInstance = {
    visible: win.isVisible(),
    minimized: win.isMinimized(),
    focused: win.focuses > focusesBefore,
    windows: fake.windows.length,
  };
  // Links: the launch's own opened as the route the page starts at; a second launch's and macOS's open-url through
  // `navigate`; a hostile one refused with a notification, never navigating, never logged whole.
  report.launchLoad = win.loadOptions[0];
  const sentBefore = fake.sent.length;
  const notesBefore = fake.notifications.length;
  app.emit('second-instance', {}, ['merchant-desk', '--enable-logging', `merchantdesk://trade/${LINK_TRADE_ID}`], '/');
  app.emit(
    'second-instance',
    {},
    ['merchant-desk', 'merchantdesk://trade/..%2Fsettings?token=LinkToken0123456789'],
    '/',
  );
  app.emit('open-url', { preventDefault() {} }, 'merchantdesk://search?priceMax=1500&wears=FN');
  app.emit('second-instance', {}, ['merchant-desk', '--no-link-here'], '/');
  await waitFor(() => fake.notifications.length > notesBefore, 5_000, 'the refused link notice');
  report.deepLinks = {
    navigate: fake.sent
      .slice(sentBefore)
      .map(({ payload }) => payload.navigate)
      .filter(Boolean),
    notices: fake.notifications.slice(notesBefore).map((n) => ({ title: n.options.title, body: n.options.body })),
    logLines: readLog()
      .split('\n')
      .filter((line) => / link \(/.test(line))
      .map((line) => line.replace(/^\S+ /, '')),
    protocolClients: [...fake.protocolClients],
  };
  await call('settings.update', { closeToTray: false });

  // Start with the session: the switch writes the XDG autostart entry (this copy, --hidden) and removes it.
  const autostart = join(process.env.XDG_CONFIG_HOME, 'autostart', 'merchant-desk.desktop');
  const autostartOn = await call('settings.update', { startWithSession: true });
  report.autostartOn = {
    setting: autostartOn.ok && autostartOn.value.startWithSession,
    entry: await waitFor(() => existsSync(autostart) && readFileSync(autostart, 'utf8'), 5_000, 'the autostart entry'),
  };
  await call('settings.update', { startWithSession: false });
  await waitFor(() => !existsSync(autostart), 5_000, 'the autostart entry removed');
  report.autostartOff = { setting: (await snapshotOf(call)).settings.startWithSession, exists: existsSync(autostart) };
  // Settings → "Send a test notification": through the checked call, shown on the desktop at once.
  const noticesBefore = fake.notifications.length;
  report.testNotification = {
    answer: await call('notifications.test', {}),
    refused: await handler(event('https://evil.example/'), 'notifications.test', {}),
    invalid: await call('notifications.test', { now: true }),
    shown: fake.notifications.slice(noticesBefore).map((n) => n.options),
  };

  // A crashed renderer is reloaded and the user is told.
  const loadsBefore = win.loads;
  win.webContents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
  // A link that comes while the reloaded page loads is shown once it has loaded, not sent into the loading page.
  const loadingWhenLinked = win.webContents.isLoading();
  const sentBeforeLoadLink = fake.sent.length;
  app.emit('second-instance', {}, ['merchant-desk', `merchantdesk://trade/${LINK_TRADE_ID}`], '/');
  const navigatedAfterLoad = await waitFor(
    () => fake.sent.slice(sentBeforeLoadLink).find(({ payload }) => payload.navigate)?.payload.navigate,
    5_000,
    'the link sent after the page loaded',
  ).catch(() => null);
  report.linkWhileLoading = {
    loadingWhenLinked,
    navigatedAfterLoad,
    lost: fake.lostWhileLoading.map(({ payload }) => payload.navigate).filter(Boolean),
  };
  await sleep(50);
  report.crash = {
    reloads: win.loads - loadsBefore,
    notification: fake.notifications.at(-1)?.options ?? null,
  };
  // A hung renderer: a short hang passes unnoticed; one past the grace period gets the dialog, and "Reload"
  // restarts the renderer, which is then reloaded.
  win.emit('unresponsive');
  await sleep(200);
  win.emit('responsive');
  fake.dialogAnswer = 0;
  const dialogsBeforeHang = fake.dialogs.length;
  const loadsBeforeHang = win.loads;
  win.emit('unresponsive');
  await sleep(2_000);
  report.hangEarly = { dialogs: fake.dialogs.length - dialogsBeforeHang };
  const hangDialog = await waitFor(() => fake.dialogs.slice(dialogsBeforeHang)[0], 15_000, 'the hang dialog');
  await waitFor(() => win.loads > loadsBeforeHang, 5_000, 'the reload after the hang');
  report.hang = {
    dialog: { message: hangDialog.message, buttons: hangDialog.buttons },
    reloads: win.loads - loadsBeforeHang,
    notification: fake.notifications.at(-1)?.options ?? null,
  };
  // A renderer that keeps dying: after the fourth crash in a minute the shell stops reloading and says so.
  const loadsBeforeLoop = win.loads;
  win.webContents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
  win.webContents.emit('render-process-gone', {}, { reason: 'oom', exitCode: 0 });
  await sleep(50);
  report.crashLoop = {
    reloads: win.loads - loadsBeforeLoop,
    errorBoxes: [...fake.errorBoxes],
    notification: fake.notifications.at(-1)?.options ?? null,
  };
  // A clean exit of the renderer process (the OS ending it on purpose) is no crash.
  const loadsBeforeClean = win.loads;
  win.webContents.emit('render-process-gone', {}, { reason: 'clean-exit', exitCode: 0 });
  report.cleanExitReloads = win.loads - loadsBeforeClean;

  // Buy through IPC, then the engine's events: renderer, tray, desktop notification
  const tradeId = await buyCheapest(call);
  report.buyOk = true;
  await waitFor(() => fake.trays[0]?.tooltip?.includes('feed connected'), 60_000, 'a tray update');
  const notification = await waitFor(
    () => fake.notifications.find((n) => n.options.body.startsWith('Trade ')),
    60_000,
    'a desktop notification for the trade',
  );
  report.notification = notification.options;
  report.tray = {
    tooltip: fake.trays[0].tooltip,
    menu: fake.trays[0].menu.template.map((entry) => entry.label ?? entry.type),
  };
  const active = (await snapshotOf(call)).activeTrades;
  await waitFor(() => fake.badge.at(-1) === active, 10_000, 'the badge to count the active trades');
  report.badge = { last: fake.badge.at(-1), activeTrades: active };
  report.batchesSent = fake.sent.filter((s) => s.channel === 'merchant-desk:events').length;
  report.tradeInBatches = fake.sent.some((s) => s.payload.trades?.some((t) => t.tradeId === tradeId));
  notification.emit('click');
  report.afterClick = { visible: win.isVisible(), last: fake.sent.at(-1) };
  report.tradeId = tradeId;

  // One more buy right before quitting: a trade that is surely still active at the quit (the relaunch
  // scenario finds it changed while the app was closed).
  report.tradeIds = [tradeId, await buyCheapest(call, 1)];

  // Quit from the tray: cancelled once (the window stays), then confirmed
  fake.dialogAnswer = 1;
  const dialogsBeforeQuit = fake.dialogs.length;
  trayEntry(fake, 'quit').click();
  await waitFor(() => fake.dialogs.length > dialogsBeforeQuit, 60_000, 'the quit dialog');
  await sleep(200);
  report.afterCancel = {
    windows: fake.windows.length,
    dialog: fake.dialogs[dialogsBeforeQuit]?.message ?? null,
    quitted: fake.quitted,
  };
  fake.dialogAnswer = 0;
  trayEntry(fake, 'quit').click();
  await waitFor(() => fake.quitted, 20_000, 'the quit');
  report.quitDialogs = fake.dialogs.slice(dialogsBeforeQuit).map((d) => d.message);
  report.lastQuit = readJson('last-quit.json');
  report.windowState = readJson('window-state.json');
  report.trayDestroyed = fake.trays[0]?.destroyed ?? null;
  report.log = readLog();
}

async function relaunch(fake, app) {
  const { win, call } = await boot(fake);
  report.windowBounds = windowBounds(win);
  // Launched with --hidden (DRIVE_ARGV): to the tray, no window shown until the tray is used.
  await waitFor(() => fake.trays[0]?.menu, 60_000, 'the tray');
  report.hiddenAtStart = { windows: fake.windows.length, visible: win.isVisible() };
  trayEntry(fake, 'open').click();
  report.shownFromTray = { visible: win.isVisible() };
  // Start with the session where the autostart folder cannot be made: told why, and the switch goes back off.
  await call('settings.update', { startWithSession: true });
  report.autostartRefused = {
    notification: (
      await waitFor(
        () => fake.notifications.find((n) => n.options.title === 'Start with the session'),
        5_000,
        'the autostart failure notice',
      )
    ).options,
    setting: await waitFor(
      async () => ((await snapshotOf(call)).settings.startWithSession === false ? 'off' : null),
      5_000,
      'the setting corrected',
    ),
  };
  const summary = await waitFor(
    () => fake.notifications.find((n) => n.options.title === 'While you were away'),
    60_000,
    'the relaunch summary',
  );
  report.summary = summary.options;
  const summaryAt = fake.sent.findIndex((s) => s.payload.notifications?.some((n) => n.title === 'While you were away'));
  report.summaryBatch = fake.sent[summaryAt]?.payload ?? null;
  report.snapshot = { activeTrades: (await snapshotOf(call)).activeTrades };
  fake.dialogAnswer = 0;
  app.quit();
  await waitFor(() => fake.quitted, 20_000, 'the quit');
  report.log = readLog();
}

async function secondInstance(fake) {
  await sleep(1_500);
  report.lockRequests = [...fake.lockRequests];
  report.quitCalls = fake.quitCalls;
  report.windows = fake.windows.length;
  report.handlers = fake.handlers.size;
  report.trays = fake.trays.length;
  report.accountsDir = existsSync(join(dataDir, 'accounts'));
}

async function engineFails(fake) {
  await waitFor(() => fake.exitCode !== null, 20_000, 'the exit');
  report.exitCode = fake.exitCode;
  report.errorBoxes = [...fake.errorBoxes];
  report.log = readLog();
  report.testHook = typeof globalThis.__merchantDesk;
}

/** The session's launch carries a link, as the OS starts the app for one. */
const LINK_TRADE_ID = '3f1c2a9e-7b44-4e0a-9d51-0c6a2b8e4f10';
if (scenario === 'session') process.argv.push('merchantdesk://item/42');

try {
  if (process.env.DRIVE_ARGV) process.argv.push(...process.env.DRIVE_ARGV.split(' '));
  await import('../../../src/main/index.ts');
  const fake = globalThis.__fakeElectron;
  const { app } = await import('./fakeElectron.mjs');
  if (scenario === 'session') await session(fake, app);
  else if (scenario === 'relaunch') await relaunch(fake, app);
  else if (scenario === 'second-instance') await secondInstance(fake);
  else if (scenario === 'engine-fails') await engineFails(fake);
  else throw new Error(`unknown scenario ${scenario}`);
} catch (error) {
  report.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
}
process.stdout.write(`REPORT ${JSON.stringify(report)}\n`);
process.exit(0);
