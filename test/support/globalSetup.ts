import type { TestProject } from 'vitest/node';
import { bundleForNode, STORE_WORKER_SOURCE, type Bundles } from './bundle';

/**
 * Bundles the store worker once per run (again before each watch-mode rerun, so it follows the source) and names it
 * in STORE_WORKER_BUNDLE, which the store worker's bootstrap.mjs loads instead of registering tsx in every thread.
 * The test processes are started after this, with this environment.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  let bundles: Bundles<'storeWorker'> | null = null;
  const build = async (): Promise<void> => {
    const next = await bundleForNode({ storeWorker: STORE_WORKER_SOURCE });
    bundles?.dispose();
    bundles = next;
    process.env.STORE_WORKER_BUNDLE = next.files.storeWorker.href;
  };
  await build();
  project.onTestsRerun(build);
  return () => bundles?.dispose();
}
