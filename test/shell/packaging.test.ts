// electron-builder's configuration, read the way electron-builder reads it (app-builder-lib's
// getConfig finds electron-builder.yml and merges package.json), checked without building:
// the targets the issue names, the icons they point at, and the metadata the deb target
// refuses to build without (a homepage, and a maintainer or an author email).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEEP_LINK_SCHEME } from '../../src/shared/deepLinks';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

interface PlatformConfig {
  target?: unknown;
  icon?: string;
  category?: string;
  maintainer?: string;
  synopsis?: string;
}

interface BuilderConfig {
  appId?: string;
  productName?: string;
  directories?: { output?: string; buildResources?: string };
  /** Globs; electron-builder's validation normalizes them to `{filter: [...]}`. */
  files?: (string | { filter?: string[] })[];
  asarUnpack?: string[];
  extraResources?: { from: string; to: string; filter?: string[] }[];
  linux?: PlatformConfig;
  deb?: PlatformConfig;
  mac?: PlatformConfig;
  win?: PlatformConfig;
  electronFuses?: Record<string, boolean> | null;
  publish?: unknown;
  protocols?: { name?: string; schemes?: string[] }[];
}

interface PackageJson {
  name: string;
  description?: string;
  homepage?: string;
  repository?: unknown;
  author?: string | { name?: string; email?: string };
  main?: string;
}

interface ConfigModule {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: unknown): Promise<BuilderConfig>;
  validateConfiguration(config: BuilderConfig, debugLogger: unknown): Promise<void>;
}

/** @electron/fuses as electron-builder loads it (its own dependency). */
interface FusesModule {
  SENTINEL: string;
  FuseV1Options: Record<string, number | string>;
  FuseState: { DISABLE: number; ENABLE: number };
  flipFuses(binary: string, config: Record<string, unknown>): Promise<unknown>;
  getCurrentFuseWire(binary: string): Promise<Record<string, unknown>>;
}

/** PlatformPackager.generateFuseConfig: electron-builder's `electronFuses` → @electron/fuses' config. */
type GenerateFuseConfig = (fuses: Record<string, boolean>) => Promise<Record<string, unknown>>;

/** app-builder-lib's LinuxTargetHelper: writes the .desktop file of the deb (and the AppImage's). */
interface LinuxTargetHelperModule {
  LinuxTargetHelper: new (packager: unknown) => {
    computeDesktopEntry(options: object, exec?: string, extra?: Record<string, string>): Promise<string>;
  };
}

let config: BuilderConfig;
let pkg: PackageJson;

beforeAll(async () => {
  const builderConfig = require('app-builder-lib/out/util/config/config') as ConfigModule;
  const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
  config = await builderConfig.getConfig(root, null, null);
  // electron-builder's own schema check (what `electron-builder` runs first).
  await builderConfig.validateConfiguration(config, new DebugLogger(false));
  pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
});

/** Target names of a platform section (`target: dmg`, `[AppImage, deb]` or `[{target: deb}]`). */
function targets(section: PlatformConfig | undefined): string[] {
  const raw = section?.target;
  const list = Array.isArray(raw) ? (raw as unknown[]) : raw === undefined ? [] : [raw];
  return list.map((entry) => (typeof entry === 'string' ? entry : String((entry as { target?: unknown }).target)));
}

/** Width and height of a PNG file (its IHDR chunk). */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(0, 8).toString('hex'), `${file} is a PNG`).toBe('89504e470d0a1a0a');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** What FpmTarget.computeFpmMetaInfoOptions (app-builder-lib) requires of a deb, as one maintainer line. */
function debMaintainer(): string | null {
  const explicit = config.deb?.maintainer ?? config.linux?.maintainer;
  if (explicit) return explicit;
  const author = pkg.author;
  if (typeof author === 'object' && author.email) return `${author.name ?? ''} <${author.email}>`;
  if (typeof author === 'string' && /<[^>]+@[^>]+>/.test(author)) return author;
  return null;
}

describe('electron-builder.yml', () => {
  it('builds AppImage and deb on Linux, a dmg (and the zip its updates need) on macOS and an NSIS installer on Windows', () => {
    expect(targets(config.linux).sort()).toEqual(['AppImage', 'deb']);
    expect(targets(config.mac)).toEqual(['dmg', 'zip']);
    expect(targets(config.win)).toEqual(['nsis']);
    expect(config.appId).toBe('com.merchantdesk.app');
    expect(config.productName).toBe('Merchant Desk');
    expect(config.linux?.category).toBe('Finance');
  });

  it('publishes to a generic update feed (a placeholder in the reserved .example domain until the real one)', () => {
    expect(config.publish).toEqual({ provider: 'generic', url: 'https://updates.merchant-desk.example/desktop' });
  });

  it('points every platform at an icon in resources/ that exists and is big enough', () => {
    expect(config.directories?.buildResources).toBe('resources');
    for (const platform of [config.linux, config.mac, config.win]) {
      const icon = platform?.icon ?? '';
      expect(icon.startsWith('resources/')).toBe(true);
      const file = join(root, icon);
      expect(existsSync(file), icon).toBe(true);
      const size = pngSize(file);
      // macOS needs 512×512 (or more) for a dmg icon; square.
      expect(size.width).toBeGreaterThanOrEqual(512);
      expect(size.height).toBe(size.width);
    }
  });

  it('copies the tray and notification images the shell reads at run time, and they exist', () => {
    const copied = config.extraResources?.find((entry) => entry.from === 'resources');
    expect(copied?.to).toBe('resources');
    const names = copied?.filter ?? [];
    // src/main/shell/paths.ts: trayIconName() and the notification icon.
    for (const name of ['icon.png', 'tray.png', 'trayTemplate.png', 'trayTemplate@2x.png']) {
      expect(names, name).toContain(name);
      expect(existsSync(join(root, 'resources', name)), name).toBe(true);
    }
    expect(pngSize(join(root, 'resources', 'trayTemplate@2x.png')).width).toBe(
      2 * pngSize(join(root, 'resources', 'trayTemplate.png')).width,
    );
  });

  it('has the deb metadata electron-builder demands: a homepage and a maintainer with an email', () => {
    expect(pkg.homepage ?? pkg.repository, 'package.json homepage (or repository)').toBeTruthy();
    if (pkg.homepage) expect(new URL(pkg.homepage).protocol).toBe('https:');
    const maintainer = debMaintainer();
    expect(maintainer).not.toBeNull();
    expect(maintainer).toMatch(/^[^<>]+ <[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$/);
    // The package's description (the deb's Description) and synopsis.
    expect(pkg.description).toBeTruthy();
    expect(config.linux?.synopsis).toBeTruthy();
  });

  it('packs only the bundles and package.json, and unpacks the native modules', () => {
    const files = (config.files ?? []).flatMap((entry) => (typeof entry === 'string' ? [entry] : (entry.filter ?? [])));
    expect(files).toEqual(['out/**', 'package.json']);
    expect(pkg.main).toBe('out/main/index.js');
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['**/node_modules/better-sqlite3/**', '**/node_modules/keytar/**']),
    );
  });
});

describe('Electron fuses (flipped by electron-builder right before signing)', () => {
  const builderRequire = createRequire(require.resolve('app-builder-lib'));
  const fuses = builderRequire('@electron/fuses') as FusesModule;
  const constants = builderRequire('@electron/fuses/dist/constants') as Pick<FusesModule, 'SENTINEL' | 'FuseState'>;
  /** Electron 40's shipped wire, in FuseV1Options order: RunAsNode on, cookie encryption off, NODE_OPTIONS on, --inspect on, asar integrity off, only-asar off, browser snapshot off, file: privileges on. */
  const ELECTRON_DEFAULT_WIRE = '10110001';

  /** A stand-in Electron binary: some bytes, the fuse sentinel, wire version 1, its length and the default wire. */
  function fakeElectronBinary(dir: string): string {
    const file = join(dir, 'merchant-desk');
    const wire = Buffer.concat([
      Buffer.from(constants.SENTINEL),
      Buffer.from([1, ELECTRON_DEFAULT_WIRE.length]),
      Buffer.from(ELECTRON_DEFAULT_WIRE),
    ]);
    writeFileSync(file, Buffer.concat([Buffer.alloc(4096, 0x90), wire, Buffer.alloc(4096, 0x90)]));
    return file;
  }

  it('turns off running as Node, NODE_OPTIONS and --inspect, and turns on asar-only loading, its integrity check and cookie encryption', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
    });
  });

  it('writes that wire into an Electron binary the way the packaging step does', async () => {
    const { PlatformPackager } = require('app-builder-lib') as {
      PlatformPackager: { prototype: { generateFuseConfig: GenerateFuseConfig } };
    };
    const fuseConfig = await PlatformPackager.prototype.generateFuseConfig.call(null, config.electronFuses ?? {});
    const dir = mkdtempSync(join(tmpdir(), 'md-fuses-'));
    try {
      const binary = fakeElectronBinary(dir);
      await fuses.flipFuses(binary, fuseConfig);
      const wire = await fuses.getCurrentFuseWire(binary);
      const state = (option: string): string => {
        const value = wire[String(fuses.FuseV1Options[option])];
        return value === constants.FuseState.ENABLE
          ? 'on'
          : value === constants.FuseState.DISABLE
            ? 'off'
            : `unexpected ${String(value)}`;
      };
      expect({
        RunAsNode: state('RunAsNode'),
        EnableNodeOptionsEnvironmentVariable: state('EnableNodeOptionsEnvironmentVariable'),
        EnableNodeCliInspectArguments: state('EnableNodeCliInspectArguments'),
        EnableEmbeddedAsarIntegrityValidation: state('EnableEmbeddedAsarIntegrityValidation'),
        OnlyLoadAppFromAsar: state('OnlyLoadAppFromAsar'),
        EnableCookieEncryption: state('EnableCookieEncryption'),
      }).toEqual({
        RunAsNode: 'off',
        EnableNodeOptionsEnvironmentVariable: 'off',
        EnableNodeCliInspectArguments: 'off',
        EnableEmbeddedAsarIntegrityValidation: 'on',
        OnlyLoadAppFromAsar: 'on',
        EnableCookieEncryption: 'on',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('merchantdesk:// links', () => {
  it('declares the scheme, so the packages register it (the .desktop file, the Info.plist)', () => {
    expect(config.protocols?.flatMap((protocol) => protocol.schemes ?? [])).toContain(DEEP_LINK_SCHEME);
    expect(config.protocols?.[0]?.name).toBeTruthy();
  });

  it("the deb's .desktop file, as electron-builder writes it, handles x-scheme-handler/merchantdesk and passes the link", async () => {
    const { LinuxTargetHelper } = require('app-builder-lib/out/targets/LinuxTargetHelper') as LinuxTargetHelperModule;
    // The part of electron-builder's Linux packager the desktop entry is made from, filled from the real config.
    const packager = {
      config,
      platformSpecificBuildOptions: config.linux ?? {},
      appInfo: { productName: 'Merchant Desk', sanitizedProductName: 'Merchant Desk', description: pkg.description },
      info: { metadata: { desktopName: 'merchant-desk.desktop' } },
      executableName: 'merchant-desk',
      fileAssociations: [],
    };
    const entry = await new LinuxTargetHelper(packager).computeDesktopEntry(config.deb ?? {});
    const lines = entry.split('\n');
    expect(lines.find((line) => line.startsWith('MimeType='))).toBe(`MimeType=x-scheme-handler/${DEEP_LINK_SCHEME};`);
    // %U: the link reaches the app as an argument (read by src/main/shell/protocolClient.ts linkInArgv).
    expect(lines.find((line) => line.startsWith('Exec='))).toMatch(/ %U$/);
  });
});
