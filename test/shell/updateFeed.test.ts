// The update flow against a real update feed on loopback, checked by electron-updater's own code under plain Node:
// its AppImageUpdater reads app-update.yml (as electron-builder writes it from `publish`), fetches and parses
// latest-linux.yml with its GenericProvider, picks the AppImage, downloads it into its cache and verifies its sha512
// (DownloadedUpdateHelper, builder-util-runtime's DigestTransform). What cannot run without Electron, and is not run
// here: electron-updater's `autoUpdater` getter and ElectronAppAdapter (they read `require("electron").app`; this test
// hands the updater an AppAdapter of its own), ElectronHttpExecutor (Electron's `net`; a builder-util-runtime
// HttpExecutor over node:http stands in, the same base class and download/verify code), and
// `BaseUpdater.quitAndInstall` (it emits `require("electron").autoUpdater`'s `before-quit-for-update` and quits the
// app): the install test below runs the part of it that needs no Electron (`install`, which replaces the AppImage),
// and the install decision has its own tests (updatePolicy.test.ts).
import { createHash, randomBytes } from 'node:crypto';
import { type ClientRequest, createServer, request, type RequestOptions, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configureRequestOptions, configureRequestUrl, type DownloadOptions, HttpExecutor } from 'builder-util-runtime';
import { AppImageUpdater } from 'electron-updater/out/AppImageUpdater';
import type { AppAdapter } from 'electron-updater/out/AppAdapter';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UpdateStatus } from '../../src/shared/ipc';
import { UpdateFlow, type CheckingPlan } from '../../src/main/shell/updateFlow';
import { updatePlan } from '../../src/main/shell/updatePolicy';
import { tempDirs } from '../support/tempDirs';

/** ElectronHttpExecutor's `download` over node:http: the base class's doDownload streams and verifies the checksum. */
class NodeHttpExecutor extends HttpExecutor<ClientRequest> {
  createRequest(options: RequestOptions, callback: (response: unknown) => void): ClientRequest {
    return request(options, callback);
  }

  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise<string>((resolve, reject, onCancel) => {
      const requestOptions: RequestOptions = { headers: options.headers ?? undefined };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(
        requestOptions,
        {
          destination,
          options,
          onCancel,
          callback: (error) => (error ? reject(error) : resolve(destination)),
          responseHandler: null,
        },
        0,
      );
    });
  }
}

const temp = tempDirs();
/** The "new AppImage": a script that notes how it was run (an install runs it once), then 3 MB of payload. */
const NEW_APPIMAGE = Buffer.concat([
  Buffer.from('#!/bin/sh\necho "exit-after-install=$APPIMAGE_EXIT_AFTER_INSTALL" > "$0.ran"\nexit 0\n'),
  randomBytes(3 * 1024 * 1024),
]);
const sha512 = (data: Buffer) => createHash('sha512').update(data).digest('base64');
const FILE = 'Merchant-Desk-0.2.0.AppImage';

function latestYml(options: { sha?: string } = {}): string {
  const sha = options.sha ?? sha512(NEW_APPIMAGE);
  return [
    'version: 0.2.0',
    'files:',
    `  - url: ${FILE}`,
    `    sha512: ${sha}`,
    `    size: ${NEW_APPIMAGE.length}`,
    `path: ${FILE}`,
    `sha512: ${sha}`,
    "releaseDate: '2026-11-29T10:00:00.000Z'",
    "releaseNotes: '<p>Faster catalog &amp; a new status bar</p>'",
    '',
  ].join('\n');
}

/** The feed: what `latest-linux*.yml` answers (a body, or a status), the file, and every path asked for. */
const feed = { yml: latestYml() as string | number, requests: [] as string[] };
let server: Server;
let feedUrl = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    feed.requests.push(path);
    if (/^\/feed\/latest-linux.*\.yml$/.test(path)) {
      if (typeof feed.yml === 'number') res.writeHead(feed.yml).end('no such file');
      else res.writeHead(200, { 'content-type': 'text/yaml' }).end(feed.yml);
    } else if (path === `/feed/${FILE}`) {
      res.writeHead(200, { 'content-length': NEW_APPIMAGE.length }).end(NEW_APPIMAGE);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const savedAppImage = process.env['APPIMAGE'];
afterEach(() => {
  if (savedAppImage === undefined) delete process.env['APPIMAGE'];
  else process.env['APPIMAGE'] = savedAppImage;
  feed.yml = latestYml();
  feed.requests.length = 0;
});

/** A packaged 0.1.0 AppImage as electron-updater sees it: app-update.yml, its data and cache dirs, the file itself. */
function installedApp(options: { appImage: boolean }) {
  const root = temp('md-update-');
  const resources = join(root, 'resources');
  mkdirSync(resources);
  writeFileSync(
    join(resources, 'app-update.yml'),
    `provider: generic\nurl: ${feedUrl}\nupdaterCacheDirName: merchant-desk-updater\n`,
  );
  const appImage = join(root, 'Merchant-Desk.AppImage');
  writeFileSync(appImage, 'the installed 0.1.0');
  if (options.appImage) process.env['APPIMAGE'] = appImage;
  else delete process.env['APPIMAGE'];
  const adapter: AppAdapter = {
    version: '0.1.0',
    name: 'Merchant Desk',
    isPackaged: true,
    appUpdateConfigPath: join(resources, 'app-update.yml'),
    userDataPath: join(root, 'userData'),
    baseCachePath: join(root, 'cache'),
    whenReady: () => Promise.resolve(),
    relaunch: () => {},
    quit: () => {},
    onQuit: () => {},
  };
  const updater = new AppImageUpdater(null, adapter);
  // electron-updater leaves the executor to the Electron adapter it was not given (see the header).
  (updater as unknown as { httpExecutor: HttpExecutor<ClientRequest> }).httpExecutor = new NodeHttpExecutor();
  updater.disableDifferentialDownload = true;
  const plan = updatePlan({ platform: 'linux', env: process.env, packageType: null, isPackaged: true });
  if (plan.mode === 'off') throw new Error('a packaged Linux app checks for updates');
  const statuses: UpdateStatus[] = [];
  const log: string[] = [];
  const flow = new UpdateFlow(updater, plan satisfies CheckingPlan, {
    changed: (status) => statuses.push(status),
    log: (line) => log.push(line),
  });
  const cacheDir = join(root, 'cache', 'merchant-desk-updater');
  /** Files left in the updater's cache (downloads in progress live in `pending`). */
  const cached = (): string[] =>
    existsSync(cacheDir)
      ? readdirSync(cacheDir, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => entry.name)
      : [];
  return { flow, statuses, log, appImage, cached, plan, updater };
}

/** The states in order, a run of progress shown once. */
const states = (statuses: UpdateStatus[]) =>
  statuses.map((s) => s.state).filter((state, i, all) => i === 0 || state !== all[i - 1]);

describe('the update flow against a local generic feed (electron-updater under Node)', () => {
  it('checks, downloads in the background, verifies the sha512 and is ready to install', async () => {
    const app = installedApp({ appImage: true });
    expect(app.plan).toEqual({ mode: 'self-update', package: 'appimage' });
    await app.flow.check();
    expect(states(app.statuses), app.log.join('\n')).toEqual(['checking', 'available', 'downloading', 'ready']);
    expect(app.statuses[1]).toEqual({
      state: 'available',
      version: '0.2.0',
      notes: 'Faster catalog & a new status bar',
    });
    const lastProgress = app.statuses.filter((s) => s.state === 'downloading').at(-1);
    expect(lastProgress).toEqual({
      state: 'downloading',
      version: '0.2.0',
      percent: 100,
      transferred: NEW_APPIMAGE.length,
      total: NEW_APPIMAGE.length,
    });
    expect(app.flow.current).toEqual({ state: 'ready', version: '0.2.0', notes: 'Faster catalog & a new status bar' });
    // The verified download waits in the cache; the installed file is untouched until "Restart and install".
    expect(app.cached()).toContain(FILE);
    expect(readFileSync(app.appImage, 'utf8')).toBe('the installed 0.1.0');
    expect(feed.requests.filter((p) => p === `/feed/${FILE}`)).toHaveLength(1);

    // Six hours later the feed still names 0.2.0: the cached download is verified again, not fetched, and stays ready.
    const seen = app.statuses.length;
    await app.flow.check();
    expect(app.flow.current).toEqual({ state: 'ready', version: '0.2.0', notes: 'Faster catalog & a new status bar' });
    expect(app.statuses.slice(seen)).toEqual([]);
    expect(feed.requests.filter((p) => p === `/feed/${FILE}`)).toHaveLength(1);
  });

  it('"Restart and install" replaces the AppImage with the verified download, without starting it', async () => {
    const app = installedApp({ appImage: true });
    // quitAndInstall's first step, as electron-updater runs it; the rest (quit through Electron) needs Electron.
    app.updater.quitAndInstall = (isSilent, isForceRunAfter) => void app.updater.install(isSilent, isForceRunAfter);
    expect(app.flow.install({ buysInFlight: 0, autoBuyRules: 0, confirmed: false }).outcome).toBe('refused');
    await app.flow.check();
    expect(app.flow.install({ buysInFlight: 1, autoBuyRules: 0, confirmed: false }).outcome).toBe('refused');
    expect(readFileSync(app.appImage, 'utf8')).toBe('the installed 0.1.0');
    expect(app.flow.install({ buysInFlight: 0, autoBuyRules: 0, confirmed: false })).toEqual({
      outcome: 'installing',
      message: 'Restarting into version 0.2.0…',
    });
    expect(readFileSync(app.appImage).equals(NEW_APPIMAGE)).toBe(true);
    // Run once for its desktop integration, told to exit: the shell starts the new version after its own shutdown.
    expect(readFileSync(`${app.appImage}.ran`, 'utf8')).toBe('exit-after-install=true\n');
    expect(app.flow.relaunchAppImage(process.env['APPIMAGE'])).toBe(app.appImage);
    expect(app.cached()).not.toContain(FILE);
  });

  it('a download whose sha512 does not match is discarded: a clear error, nothing left to install', async () => {
    feed.yml = latestYml({ sha: sha512(Buffer.from('another build')) });
    const app = installedApp({ appImage: true });
    await app.flow.check();
    expect(app.flow.current).toEqual({
      state: 'error',
      message: 'The downloaded update did not match its sha512 checksum and was discarded; the next check tries again.',
    });
    expect(feed.requests).toContain(`/feed/${FILE}`);
    expect(app.cached()).toEqual([]);
    expect(readFileSync(app.appImage, 'utf8')).toBe('the installed 0.1.0');
    expect(app.flow.install({ buysInFlight: 0, autoBuyRules: 0, confirmed: false })).toEqual({
      outcome: 'refused',
      message: 'No update is downloaded and ready to install.',
    });
    expect(app.log.join('\n')).toMatch(/update failed: ERR_CHECKSUM_MISMATCH/);
  });

  it('a feed without latest-linux.yml (404) is a clear error, and nothing is downloaded', async () => {
    feed.yml = 404;
    const app = installedApp({ appImage: true });
    await app.flow.check();
    expect(states(app.statuses)).toEqual(['checking', 'error']);
    expect(app.flow.current).toEqual({
      state: 'error',
      message: 'The update feed has no release for this system (not found); the next check tries again.',
    });
    expect(feed.requests).not.toContain(`/feed/${FILE}`);
    expect(app.cached()).toEqual([]);
  });

  it.each([
    ['not YAML at all', 'version: [0.2.0\nfiles: {{{'],
    ['YAML without files', 'version: 0.2.0\n'],
    ['a version that is not semver', `version: next\nfiles:\n  - url: ${FILE}\n    sha512: abc\n`],
  ])('a malformed latest-linux.yml (%s) is a clear error, and nothing is downloaded', async (_name, yml) => {
    feed.yml = yml;
    const app = installedApp({ appImage: true });
    await app.flow.check();
    expect(app.flow.current).toEqual({
      state: 'error',
      message: 'The update feed’s release information could not be read (malformed); nothing was downloaded.',
    });
    // Never a stack, a URL or the feed's text in what the status bar shows.
    expect(JSON.stringify(app.statuses)).not.toMatch(/127\.0\.0\.1|at |\{\{\{/);
    expect(feed.requests).not.toContain(`/feed/${FILE}`);
    expect(app.cached()).toEqual([]);
  });

  it('an AppImage without $APPIMAGE announces the version with why it cannot update itself, and downloads nothing', async () => {
    const app = installedApp({ appImage: false });
    expect(app.plan.mode).toBe('notify');
    await app.flow.check();
    expect(states(app.statuses)).toEqual(['checking', 'manual']);
    expect(app.flow.current).toEqual({
      state: 'manual',
      version: '0.2.0',
      notes: 'Faster catalog & a new status bar',
      reason: expect.stringMatching(/\$APPIMAGE is not set.*cannot replace itself/),
    });
    expect(feed.requests.some((p) => p.endsWith('.yml'))).toBe(true);
    expect(feed.requests).not.toContain(`/feed/${FILE}`);
    expect(app.cached()).toEqual([]);
    expect(app.flow.install({ buysInFlight: 0, autoBuyRules: 0, confirmed: true }).outcome).toBe('refused');
  });

  it('the same version as installed is no update: back to idle', async () => {
    feed.yml = latestYml().replace('version: 0.2.0', 'version: 0.1.0');
    const app = installedApp({ appImage: true });
    await app.flow.check();
    expect(states(app.statuses)).toEqual(['checking', 'idle']);
    expect(feed.requests).not.toContain(`/feed/${FILE}`);
  });
});
