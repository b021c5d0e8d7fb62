// Module hooks: `electron` resolves to the stand-in beside this file. With
// DRIVE_ENGINE=fail, the shell's engine factory (src/main/core/engine/create) resolves to
// failingEngine.mjs, whose start rejects with an error quoting an API key.
export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: new URL('./fakeElectron.mjs', import.meta.url).href, shortCircuit: true };
  if (
    process.env.DRIVE_ENGINE === 'fail' &&
    /(^|\/)core\/engine\/create(\.ts|\.js)?$/.test(specifier) &&
    context.parentURL?.endsWith('/src/main/index.ts')
  ) {
    return { url: new URL('./failingEngine.mjs', import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}
