// The web host as a user starts it (`npm run web -- …`), in its own process group, and calls to its engine
// through the bridge as a browser window makes them.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { IpcMethod, IpcResult } from '../../src/shared/ipc';
import { openBridge } from '../web/support';
import { waitFor } from './waitFor';

const ROOT = resolve(import.meta.dirname, '../..');

export interface WebCliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exitCode: () => number | null | undefined;
  /** Ends the host (SIGTERM to its group, SIGKILL if it lingers). */
  stop: () => Promise<void>;
}

/** `npx tsx src/web/cli.ts --no-open …args` with `env`. */
export function webCli(args: string[], env: NodeJS.ProcessEnv): WebCliRun {
  const child = spawn('npx', ['tsx', 'src/web/cli.ts', '--no-open', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  let exitCode: number | null | undefined;
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.on('exit', (code) => (exitCode = code));
  const stop = async () => {
    if (exitCode !== undefined) return;
    try {
      process.kill(-(child.pid as number), 'SIGTERM');
    } catch {
      return;
    }
    await waitFor(() => exitCode !== undefined, 15_000, 'the web host to stop').catch(() =>
      process.kill(-(child.pid as number), 'SIGKILL'),
    );
  };
  return { child, stdout: () => stdout, stderr: () => stderr, exitCode: () => exitCode, stop };
}

/** The page URL the host printed (with its token); throws with the host's stderr if it exited first. */
export async function webHostUrl(run: WebCliRun, timeoutMs = 60_000): Promise<URL> {
  await waitFor(
    () => /web host: (http\S+)/.exec(run.stdout()) ?? run.exitCode() !== undefined,
    timeoutMs,
    'the URL line or an exit',
  );
  const line = /web host: (http\S+)/.exec(run.stdout());
  if (!line) throw new Error(`the web host exited (${String(run.exitCode())}):\n${run.stderr()}`);
  return new URL(line[1] as string);
}

/** One call to the host's engine through the bridge. */
export async function callHost<M extends IpcMethod>(url: URL, method: M, input: unknown = {}): Promise<IpcResult<M>> {
  const token = url.searchParams.get('token') as string;
  const { ws } = await openBridge(url, { token });
  try {
    return await new Promise((done, fail) => {
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as {
          type: string;
          id?: number;
          envelope?: { ok: boolean; value?: unknown; error?: unknown };
        };
        if (message.type !== 'result' || message.id !== 1) return;
        if (message.envelope?.ok) done(message.envelope.value as IpcResult<M>);
        else fail(new Error(`${method}: ${JSON.stringify(message.envelope?.error)}`));
      });
      ws.send(JSON.stringify({ type: 'call', id: 1, method, input }));
    });
  } finally {
    ws.terminate();
  }
}
