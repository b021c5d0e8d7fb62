// Stands in for src/main/core/engine/create.ts when DRIVE_ENGINE=fail (electronHooks.mjs):
// the engine cannot start, and its error quotes a key the way a careless keychain or
// HTTP library error might (the variable's value, and a header the shell never saw).
export async function createEngineFromOptions() {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const error = new Error(
    `keychain said no for MERCHANT_API_KEY=${process.env.MERCHANT_API_KEY} while sending x-api-key: ${process.env.DRIVE_UNSEEN_KEY}`,
  );
  error.stack = `${error.message}\n    at open (/keys/${process.env.MERCHANT_API_KEY}.js:1:1)`;
  throw error;
}

export async function startDemoSandbox() {
  throw new Error('no demo sandbox in this scenario');
}
