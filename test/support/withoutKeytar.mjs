// `node --import test/support/withoutKeytar.mjs …`: the process sees no keytar module, as on a machine
// where npm left the optional dependency out because it could not be built.
import { register } from 'node:module';

const hook = `export async function resolve(specifier, context, next) {
  if (specifier === 'keytar' || specifier.startsWith('keytar/')) {
    const error = new Error("Cannot find package 'keytar' imported from " + (context.parentURL ?? 'the app'));
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
