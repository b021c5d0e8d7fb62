import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * The store worker bundled from the current source, the way a packaged build
 * ships it (one storeWorker file beside the host code). A worker thread started
 * from TypeScript source registers tsx first (worker/bootstrap.mjs), which costs
 * about 0.4 s per thread; tests that open hundreds of stores pass this entry as
 * `workerEntry` instead. The bundle lives under node_modules/.cache so that
 * `better-sqlite3` (left external, a native addon) resolves from the repository.
 */
export async function bundleStoreWorker(): Promise<{ entry: URL; dispose(): void }> {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'reliability-store-worker-'));
  const outfile = join(dir, 'storeWorker.mjs');
  await build({
    entryPoints: [join(ROOT, 'src/main/core/store/worker/storeWorker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    external: ['better-sqlite3'],
    logLevel: 'warning',
  });
  return { entry: pathToFileURL(outfile), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
