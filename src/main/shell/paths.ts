import { isAbsolute, join, resolve } from 'node:path';

/**
 * Where the shell finds things. The data dir is Electron's `userData` unless
 * `MERCHANT_DESK_DATA_DIR` names another (tests, a second profile).
 */
export function resolveDataDir(env: NodeJS.ProcessEnv, userData: string): string {
  const override = env.MERCHANT_DESK_DATA_DIR?.trim();
  if (!override) return userData;
  return isAbsolute(override) ? override : resolve(override);
}

/**
 * A file from `resources/`: in a build run from the repository, `<repo>/resources`
 * (the bundle is `<repo>/out/main/index.js`); packaged, electron-builder's
 * `extraResources` copy beside app.asar (`<resourcesPath>/resources`).
 */
export function resourceFile(
  name: string,
  where: { isPackaged: boolean; bundleDir: string; resourcesPath: string },
): string {
  if (name.includes('/') || name.includes('\\') || name.includes('..')) throw new Error(`not a resource name: ${name}`);
  return where.isPackaged
    ? join(where.resourcesPath, 'resources', name)
    : join(where.bundleDir, '..', '..', 'resources', name);
}

/** The tray image for a platform: a monochrome template image on macOS (its name must end in `Template`). */
export function trayIconName(platform: NodeJS.Platform): string {
  return platform === 'darwin' ? 'trayTemplate.png' : 'tray.png';
}
