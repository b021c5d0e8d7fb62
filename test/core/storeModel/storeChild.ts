/**
 * The "app process" of the store model test: opens a LocalStore on argv[2] and serves its methods over
 * the IPC channel (advanced serialization: typed arrays cross as they are), so the test can SIGKILL it
 * mid-work like a crash and open the same file again in a new process.
 *
 *   node --import tsx storeChild.ts <file> [workerEntry]
 *
 * Messages in: {id, method, args}; out: {id, ok, value | error}, and {ready} once open.
 */
import { LocalStore } from '../../../src/main/core/store';

const [file, workerEntry] = process.argv.slice(2);
if (!file || !process.send) {
  process.stderr.write('usage: storeChild.ts <file> [workerEntry] (with an IPC channel)\n');
  process.exit(2);
}
const send = (message: unknown) => process.send?.(message);

interface Call {
  id: number;
  method: string;
  args: unknown[];
}

try {
  const store = await LocalStore.open({ file, ...(workerEntry ? { workerEntry: new URL(workerEntry) } : {}) });
  const methods = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  process.on('message', (message: Call) => {
    const { id, method, args } = message;
    const run = async () => {
      if (method === 'close') {
        await store.close();
        send({ id, ok: true, value: null });
        process.disconnect();
        return;
      }
      const fn = methods[method];
      if (typeof fn !== 'function') throw new Error(`no store method ${method}`);
      return fn.apply(store, args);
    };
    run().then(
      (value) => {
        if (method !== 'close') send({ id, ok: true, value });
      },
      (error: unknown) =>
        send({
          id,
          ok: false,
          error: {
            name: (error as Error).name,
            message: (error as Error).message,
            code: (error as { code?: unknown }).code ?? null,
          },
        }),
    );
  });
  send({ ready: true });
} catch (error) {
  send({ ready: false, error: (error as Error).message });
  process.exit(1);
}
