// The --public-url and --allow-host values, checked without loading the web host (and its HTTP server).

/** A public URL as the host uses it: origin and Host header value; throws a readable error when unusable. */
export function parsePublicUrl(value: string): { origin: string; host: string; secure: boolean } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--public-url ${value}: not a URL (e.g. https://desk.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`--public-url ${value}: must start with http:// or https://`);
  if (url.username || url.password) throw new Error(`--public-url ${value}: must not carry a user name or password`);
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`--public-url ${value}: only the root of a host is supported (no path, query or fragment)`);
  }
  return { origin: url.origin.toLowerCase(), host: url.host.toLowerCase(), secure: url.protocol === 'https:' };
}

/** A Host name given with --allow-host: `name` or `name:port`, no scheme or path. */
export function parseAllowedHost(value: string): { name: string; port: number | null } {
  const trimmed = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+|[0-9a-f:]+)(?::(\d{1,5}))?$/.exec(trimmed);
  const port = match?.[2] === undefined ? null : Number(match[2]);
  if (!match?.[1] || (port !== null && (port < 1 || port > 65_535)) || trimmed.includes('/')) {
    throw new Error(`--allow-host ${value}: a host name or address, optionally with :port (no scheme or path)`);
  }
  // A bare IPv6 address has colons of its own: it never carries a port without brackets.
  if (!match[1].startsWith('[') && match[1].includes(':')) return { name: trimmed, port: null };
  return { name: match[1].replace(/^\[|\]$/g, ''), port };
}
