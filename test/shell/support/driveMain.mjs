// Runs src/main/index.ts (from source, through tsx) against the stand-in electron and
// the real engine with its embedded demo sandbox, plays a session, and prints one line
// `REPORT {json}` for test/shell/mainProcess.test.ts. Env: MERCHANT_DESK_DATA_DIR.
import { existsSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';

register('./electronHooks.mjs', import.meta.url);
const { register: registerTsx } = await import('tsx/esm/api');
registerTsx();

const TRADE_URL = 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234';
const dataDir = process.env.MERCHANT_DESK_DATA_DIR;
const report = {};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what, check, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

try {
  await import('../../../src/main/index.ts');
  const fake = globalThis.__fakeElectron;
  const { app } = await import('./fakeElectron.mjs');
  const call = await until('the IPC handler', () => fake.handlers.get('merchant-desk:call'));
  const win = await until('the window', () => fake.windows[0]);
  await until('the renderer to load', () => win.webContents.url);
  const rendererUrl = win.webContents.url;
  const event = (url, { parent = null, sender = win.webContents } = {}) => ({ senderFrame: url === null ? null : { url, parent }, sender });

  report.sandboxEnabled = fake.sandboxEnabled;
  report.webPreferences = win.options.webPreferences;
  report.rendererUrl = rendererUrl;

  // IPC guard
  report.foreign = await call(event('https://evil.example/'), 'app.snapshot', {});
  report.subframe = await call(event(rendererUrl, { parent: {} }), 'app.snapshot', {});
  report.otherContents = await call(event(rendererUrl, { sender: {} }), 'app.snapshot', {});
  report.invalid = await call(event(rendererUrl), 'trades.get', { tradeId: 5 });
  const snapshot = await call(event(`${rendererUrl}#/catalog`), 'app.snapshot', {});
  report.snapshot = snapshot.ok ? { demo: snapshot.value.account.demo } : snapshot;

  // Session hardening
  await new Promise((resolve) =>
    fake.session.onHeadersReceived({ responseHeaders: { 'content-security-policy': ['default-src *'] } }, (result) => {
      report.headers = result.responseHeaders;
      resolve();
    }),
  );
  await new Promise((resolve) => fake.session.permissionRequest(null, 'geolocation', (granted) => resolve((report.permission = granted))));
  report.permissionCheck = fake.session.permissionCheck(null, 'notifications');
  const download = (url) => {
    const e = { prevented: false, preventDefault() { this.prevented = true; } };
    fake.session.emitter.emit('will-download', e, { getURL: () => url });
    return e.prevented;
  };
  report.downloadPrevented = { blob: download('blob:file:///x'), remote: download('https://example.com/x.exe') };

  // Navigation
  const navigate = (url) => {
    const e = { url, prevented: false, preventDefault() { this.prevented = true; } };
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

  // Buy through IPC, then the engine's events: renderer, tray, desktop notification
  const page = await until('catalog rows', async () => {
    const result = await call(event(rendererUrl), 'catalog.query', { limit: 1 });
    return result.ok && result.value.rows.length > 0 ? result.value : null;
  });
  const item = page.rows[0];
  const buy = await call(event(rendererUrl), 'buy.byId', {
    itemId: item.itemId,
    assetId: item.assetId,
    price: item.price,
    recipient: { tradeUrl: TRADE_URL },
  });
  report.buyOk = buy.ok && buy.value.ok;
  const tradeId = buy.ok && buy.value.ok ? buy.value.trade.tradeId : null;
  await until('a tray update', () => fake.trays[0]?.tooltip?.includes('feed connected'));
  const notification = await until('a desktop notification for the trade', () =>
    fake.notifications.find((n) => n.options.body.startsWith('Trade ')),
  );
  report.notification = notification.options;
  report.tray = { tooltip: fake.trays[0].tooltip, menu: fake.trays[0].menu.template.map((entry) => entry.label ?? entry.type) };
  report.batchesSent = fake.sent.filter((s) => s.channel === 'merchant-desk:events').length;
  report.tradeInBatches = fake.sent.some((s) => s.payload.trades?.some((t) => t.tradeId === tradeId));
  notification.emit('click');
  report.afterClick = { visible: win.isVisible(), last: fake.sent.at(-1) };
  report.tradeId = tradeId;

  // Quit: cancelled once (the window stays), then confirmed
  fake.dialogAnswer = 1;
  win.close();
  await until('the quit dialog', () => fake.dialogs.length > 0);
  await sleep(200);
  report.afterCancel = { windows: fake.windows.length, dialog: fake.dialogs[0]?.message ?? null, quitted: fake.quitted };
  fake.dialogAnswer = 0;
  app.quit();
  await until('the quit', () => fake.quitted, 20_000);
  report.dialogs = fake.dialogs.map((d) => d.message);
  report.lastQuit = JSON.parse(readFileSync(join(dataDir, 'last-quit.json'), 'utf8'));
  report.windowState = existsSync(join(dataDir, 'window-state.json')) ? JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8')) : null;
  report.log = readFileSync(join(dataDir, 'logs', 'main.log'), 'utf8');
  report.errorBoxes = fake.errorBoxes;
} catch (error) {
  report.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
}
process.stdout.write(`REPORT ${JSON.stringify(report)}\n`);
process.exit(0);
