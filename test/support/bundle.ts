import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');

/** The store worker's source: bundled, it is the `workerEntry` a packaged build ships (one file beside the host code). */
export const STORE_WORKER_SOURCE = join(ROOT, 'src/main/core/store/worker/storeWorker.ts');

export interface Bundles<Name extends string> {
  /** Each entry's bundle (`<name>.mjs`). */
  files: Record<Name, URL>;
  dispose(): void;
}

/**
 * The tests' one bundler: each entry (TypeScript source) bundled for Node from the current source, as a packaged
 * build would (ESM, `better-sqlite3` left external: a native addon), into a fresh folder under node_modules/.cache,
 * so that `better-sqlite3` resolves from the repository. A worker thread or child started from TypeScript source
 * registers tsx first (the store worker's bootstrap.mjs), which costs about 0.4 s per thread, seconds on a busy
 * machine: every test's store threads load the bundle globalSetup.ts makes once per run; a test that needs a bundle
 * of its own passes it (LocalStore.open's `workerEntry`).
 */
export async function bundleForNode<Name extends string>(entries: Record<Name, string>): Promise<Bundles<Name>> {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'test-bundle-'));
  const names = Object.keys(entries) as Name[];
  await Promise.all(
    names.map((name) =>
      build({
        entryPoints: [entries[name]],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        outfile: join(dir, `${name}.mjs`),
        external: ['better-sqlite3'],
        logLevel: 'warning',
      }),
    ),
  );
  const files = Object.fromEntries(names.map((name) => [name, pathToFileURL(join(dir, `${name}.mjs`))])) as Record<
    Name,
    URL
  >;
  return { files, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
