// Worker entry used when the engine runs from TypeScript source (vitest, tsx).
//
// A worker thread starts with plain Node's loader, which cannot import .ts;
// register tsx's ESM hooks in this thread first, then load the real entry.
// (When the host itself runs under the `tsx` CLI the hooks are inherited
// through execArgv; registering again is harmless.) Bundled builds do not use
// this file: they start the compiled storeWorker.js directly (see
// resolveWorkerEntry in ../localStore.ts).
//
// The unit tests bundle storeWorker.ts once per run (test/support/globalSetup.ts)
// and name the bundle in STORE_WORKER_BUNDLE: registering tsx and compiling the
// worker in every thread costs seconds on a busy machine, and the tests start
// hundreds of threads.
const bundle = process.env.STORE_WORKER_BUNDLE;
if (bundle) {
  await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./storeWorker.ts');
}
