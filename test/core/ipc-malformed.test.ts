import { describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { FORBIDDEN, handleIpcCall } from '../../src/main/shell/ipcGuard';
import { IPC_METHOD_NAMES } from '../../src/shared/ipc';
import { EchoEngine } from '../web/support';

/**
 * Bridge calls no schema was written for: whatever a frame carries (as JSON from the web host's socket,
 * or structured-cloned by Electron's IPC), the gate answers with an envelope; it never throws, so no
 * call is left without an answer.
 */

const DEPTH = 200_000;
/** A 200,000-deep array, as JSON.parse makes it from a frame of 400 KB. */
const deepArray = (): unknown => JSON.parse(`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`) as unknown;
/** The same depth of objects: `{"a":{"a":…}}`. */
const deepObject = (): unknown => JSON.parse(`${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`) as unknown;

const malformedMethods: [string, () => unknown][] = [
  ['an object whose toString is a number (JSON)', () => JSON.parse('{"toString":1}') as unknown],
  ['an object whose toString is an object (JSON)', () => JSON.parse('{"toString":{},"valueOf":{}}') as unknown],
  [
    'an object whose toString throws',
    () => ({
      toString: () => {
        throw new Error('boom');
      },
    }),
  ],
  ['an object without a prototype', () => Object.create(null) as unknown],
  ['a symbol', () => Symbol('app.snapshot')],
  ['a 200,000-deep array', deepArray],
  ['a 200,000-deep object', deepObject],
  ['a very long string', () => `app.snapshot${'x'.repeat(1_000_000)}`],
];

describe('malformed bridge calls', () => {
  it.each(malformedMethods)(
    'a method that is %s is answered invalid_input, and the engine is not reached',
    async (_what, make) => {
      const engine = new EchoEngine();
      const answer = await dispatchIpc(engine, make(), {});
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      if (answer.ok) throw new Error('accepted');
      expect(answer.error.message).toMatch(/^unknown method /);
      expect(answer.error.message.length).toBeLessThanOrEqual(120);
      expect(engine.calls).toEqual([]);
    },
  );

  it.each([...IPC_METHOD_NAMES])(
    '%s: a 200,000-deep input, an array or an object, anywhere, is answered invalid_input',
    async (method) => {
      const engine = new EchoEngine();
      const inputs = [deepArray(), deepObject(), { search: deepArray() }, { itemId: deepObject() }, [deepArray()]];
      for (const input of inputs) {
        const answer = await dispatchIpc(engine, method, input);
        expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      }
      expect(engine.calls).toEqual([]);
    },
  );

  it('the Electron gate answers a refused sender whose method is an object, and logs no more than a description of it', async () => {
    const lines: string[] = [];
    const sender = { url: 'https://evil.example/', isMainFrame: true, isAppWindow: true };
    for (const [, make] of malformedMethods) {
      const answer = await handleIpcCall(
        new EchoEngine(),
        sender,
        make(),
        {},
        { rendererUrl: 'file:///app/out/renderer/index.html', log: (line) => lines.push(line) },
      );
      expect(answer).toBe(FORBIDDEN);
    }
    expect(lines).toHaveLength(malformedMethods.length);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(200);
  });
});
