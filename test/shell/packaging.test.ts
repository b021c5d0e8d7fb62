// electron-builder's configuration, read the way electron-builder reads it (app-builder-lib's
// getConfig finds electron-builder.yml and merges package.json), checked without building:
// the targets the issue names, the icons they point at, and the metadata the deb target
// refuses to build without (a homepage, and a maintainer or an author email).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

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
  it('builds AppImage and deb on Linux, a dmg on macOS and an NSIS installer on Windows', () => {
    expect(targets(config.linux).sort()).toEqual(['AppImage', 'deb']);
    expect(targets(config.mac)).toEqual(['dmg']);
    expect(targets(config.win)).toEqual(['nsis']);
    expect(config.appId).toBe('com.merchantdesk.app');
    expect(config.productName).toBe('Merchant Desk');
    expect(config.linux?.category).toBe('Finance');
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
    expect(pngSize(join(root, 'resources', 'trayTemplate@2x.png')).width).toBe(2 * pngSize(join(root, 'resources', 'trayTemplate.png')).width);
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
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['**/node_modules/better-sqlite3/**', '**/node_modules/keytar/**']));
  });
});
