import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, metaContentSecurityPolicy, withCspHeader } from '../../src/main/shell/csp';

/** The content of every `<meta http-equiv="Content-Security-Policy">` in an HTML text. */
function metaPolicies(html: string): string[] {
  return [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"\s*\/?>/gi)].map(
    (m) => m[1] ?? '',
  );
}

function directives(policy: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) map.set(name, sources);
  }
  return map;
}

describe('content security policy', () => {
  const policy = contentSecurityPolicy();
  const d = directives(policy);

  it('is exactly the documented policy', () => {
    expect(policy).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https: http://127.0.0.1:* http://localhost:*; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });

  it("denies by default and runs only the app's own scripts", () => {
    expect(d.get('default-src')).toEqual(["'none'"]);
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(policy).not.toMatch(/unsafe-eval|wasm-unsafe-eval|strict-dynamic/);
  });

  it('names no remote source for scripts, styles, fonts or connections', () => {
    for (const name of ['script-src', 'style-src', 'font-src', 'connect-src']) {
      for (const source of d.get(name) ?? []) expect(source, `${name} ${source}`).toMatch(/^'/);
    }
  });

  it('allows item images from https and the loopback demo sandbox only', () => {
    expect(d.get('img-src')).toEqual(["'self'", 'data:', 'https:', 'http://127.0.0.1:*', 'http://localhost:*']);
    expect(d.get('img-src')).not.toContain('http:');
  });

  it('forbids base, forms and framing', () => {
    expect(d.get('base-uri')).toEqual(["'none'"]);
    expect(d.get('form-action')).toEqual(["'none'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it("adds only the dev server's loopback socket for hot reload in dev", () => {
    const dev = directives(contentSecurityPolicy({ devServerOrigin: 'http://localhost:5173' }));
    expect(dev.get('connect-src')).toEqual(["'self'", 'ws://localhost:5173']);
    expect(dev.get('script-src')).toEqual(["'self'"]);
    expect(contentSecurityPolicy({ devServerOrigin: 'http://evil.example:5173' })).toBe(policy);
    expect(contentSecurityPolicy({ devServerOrigin: 'not a url' })).toBe(policy);
  });
});

describe('the <meta> policy', () => {
  const meta = metaContentSecurityPolicy();

  it('is the header policy without frame-ancestors (which a <meta> policy cannot carry)', () => {
    expect(meta).toBe(contentSecurityPolicy().replace("; frame-ancestors 'none'", ''));
    expect(directives(meta).has('frame-ancestors')).toBe(false);
    expect(directives(meta).get('default-src')).toEqual(["'none'"]);
    expect(directives(meta).get('connect-src')).toEqual(["'self'"]);
    expect(directives(meta).get('base-uri')).toEqual(["'none'"]);
    expect(directives(meta).get('form-action')).toEqual(["'none'"]);
  });

  it('is exactly the one in src/renderer/index.html, before any script', () => {
    const html = readFileSync(resolve(import.meta.dirname, '../../src/renderer/index.html'), 'utf8');
    expect(metaPolicies(html)).toEqual([meta]);
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
    expect(html).not.toMatch(/ws:(?!\/\/)|connect-src[^;"]*ws:/);
  });
});

describe('withCspHeader', () => {
  it('replaces any policy the response carried, whatever its case, and keeps other headers', () => {
    const headers = withCspHeader(
      { 'content-security-policy': ['default-src *'], 'Content-Type': 'text/html' },
      "default-src 'none'",
    );
    expect(headers).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': ["default-src 'none'"] });
  });

  it('works without response headers (file: responses)', () => {
    expect(withCspHeader(undefined, 'x')).toEqual({ 'Content-Security-Policy': ['x'] });
  });
});
