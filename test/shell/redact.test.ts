import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLog } from '../../src/main/shell/log';
import { describeError, errorMessage, REDACTED, SecretScrubber } from '../../src/main/shell/redact';

const KEY = 'mk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

describe('SecretScrubber', () => {
  it('cuts every remembered secret out, wherever it appears', () => {
    const scrubber = new SecretScrubber();
    scrubber.remember(KEY);
    const text = `Error: keychain refused ${KEY}\n    at set (${KEY}.js:1:1) ${KEY}${KEY}`;
    const clean = scrubber.scrub(text);
    expect(clean).not.toContain(KEY);
    expect(clean).toContain(REDACTED);
    expect(clean).toContain('keychain refused');
  });

  it('a remembered key inside a credential-shaped field is cut once, cleanly', () => {
    const scrubber = new SecretScrubber();
    scrubber.remember(KEY);
    expect(scrubber.scrub(`MERCHANT_API_KEY=${KEY} next`)).toBe(`MERCHANT_API_KEY=${REDACTED} next`);
  });

  it('cuts a part of a remembered secret too: a prefix, a tail, URL-encoded, in another letter case', () => {
    const scrubber = new SecretScrubber();
    const key = 'Mk_Live+Mixed/Case=Key-0123456789abcdef';
    scrubber.remember(key);
    for (const form of [
      key.slice(0, 12),
      key.slice(-10),
      encodeURIComponent(key),
      key.toLowerCase(),
      key.toUpperCase(),
      encodeURIComponent(key).toLowerCase(),
    ]) {
      expect(scrubber.scrub(`sent ${form}, then`), form).toBe(`sent ${REDACTED}, then`);
    }
    // Runs shorter than 8 of its characters are ordinary text.
    expect(scrubber.scrub('Mk_Live+ alone')).toBe(`${REDACTED} alone`);
    expect(scrubber.scrub('Mk_Live alone')).toBe('Mk_Live alone');
  });

  it('cuts the longer of two overlapping secrets whole', () => {
    const scrubber = new SecretScrubber();
    scrubber.remember('abcdefgh');
    scrubber.remember('abcdefgh-ijklmnop');
    expect(scrubber.scrub('key abcdefgh-ijklmnop')).toBe(`key ${REDACTED}`);
  });

  it('ignores empty and very short values (they are no secrets and would shred the log)', () => {
    const scrubber = new SecretScrubber();
    for (const value of [undefined, null, '', '   ', 'short']) scrubber.remember(value);
    expect(scrubber.size).toBe(0);
    expect(scrubber.scrub('a short line')).toBe('a short line');
  });

  it('cuts credential-shaped values it was never told about', () => {
    const scrubber = new SecretScrubber();
    const unknown = 'Zx81Yw72Xv63Wu54Tt45';
    const lines = [
      `request failed: x-api-key: ${unknown}`,
      `headers {"x-api-key":"${unknown}","x-merchant-id":"m_1"}`,
      `apiKey=${unknown}&merchantId=m_1`,
      `{"apiKey": "${unknown}"}`,
      `api_key: '${unknown}'`,
      `Authorization: Bearer ${unknown}`,
      `signature secret=${unknown}`,
      `https://steamcommunity.com/tradeoffer/new/?partner=1234&token=${unknown}`,
      `MERCHANT_API_KEY=${unknown}`,
    ];
    for (const line of lines) {
      const clean = scrubber.scrub(line);
      expect(clean, line).not.toContain(unknown);
      expect(clean, line).toContain(REDACTED);
    }
    // The merchant id is no secret.
    expect(scrubber.scrub(`headers {"x-api-key":"${unknown}","x-merchant-id":"m_1"}`)).toContain(
      '"x-merchant-id":"m_1"',
    );
  });

  it('leaves ordinary lines alone', () => {
    const scrubber = new SecretScrubber();
    for (const line of [
      'engine: demo sandbox demo at http://127.0.0.1:4321',
      'renderer gone: crashed (exit code 139)',
      'apiKeyConfigured: true',
      'catalog sync (stale): +19957 ~0 -0 = 19999 items in 920 ms',
    ]) {
      expect(scrubber.scrub(line)).toBe(line);
    }
  });
});

describe('describeError / errorMessage', () => {
  it('prefers the stack, copes with strings, objects and cycles', () => {
    const error = new Error('boom');
    expect(describeError(error)).toContain('boom');
    expect(describeError(error)).toContain('redact.test.ts');
    expect(describeError('plain')).toBe('plain');
    expect(describeError({ code: 7 })).toBe('{"code":7}');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(describeError(cyclic)).toBe('[object Object]');
    expect(errorMessage(new Error('only this'))).toBe('only this');
  });
});

describe('the shell log with the scrubber in front (as src/main/shellContext.ts wires it)', () => {
  it('never writes a remembered key, even inside a stack trace', () => {
    const lines: string[] = [];
    const scrubber = new SecretScrubber();
    scrubber.remember(KEY);
    const dir = mkdtempSync(join(tmpdir(), 'md-redact-'));
    try {
      const write = createLog(dir, { echo: (line) => lines.push(line) });
      const log = (line: string) => write(scrubber.scrub(line));
      const error = new Error(`connect refused for key ${KEY}`);
      log(`unhandled rejection: ${describeError(error)}`);
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toContain(KEY);
      expect(lines[0]).toContain('connect refused for key [redacted]');
      const file = readFileSync(join(dir, 'logs', 'main.log'), 'utf8');
      expect(file).toContain('[redacted]');
      expect(file).not.toContain(KEY);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
