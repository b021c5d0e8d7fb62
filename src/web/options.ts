// The command line of `npm run web`, as a pure function (the CLI prints, exits and starts
// things; this only decides), so tests can check every refusal and warning.
import { parseArgs } from 'node:util';
import { MAX_TEST_RATE_LIMIT_SCALE } from '../shared/api';
import { parseAllowedHost, parsePublicUrl } from './hostNames';

export const USAGE = `Usage: npm run web -- [options]

  --port <n>            port to listen on (default: any free port)
  --host <address>      address to bind (default: 127.0.0.1; anything else exposes the UI to the network)
  --public-url <url>    where browsers reach this host (a server name or a TLS reverse proxy,
                        e.g. https://desk.example.com): printed instead, its Host and origin allowed
  --allow-host <name>   another Host name browsers may use (repeatable; name or name:port)
  --base-url <url>      Merchant Trading API base URL (default: an embedded demo sandbox)
  --ws-url <url>        its WebSocket feed URL (default: derived from --base-url)
  --data-dir <dir>      app data (default: $MERCHANT_DESK_DATA_DIR or ~/.merchant-desk)
  --token <token>       access token (default: random; $MERCHANT_DESK_WEB_TOKEN also works and
                        stays out of the process list)
  --forward-to-private-networks
                        chat forwarding and webhook replay may post to loopback and private-network
                        addresses too (a server on your own network); without it only public addresses
  --test-rate-limit-scale <n>
                        benchmarks only: the desk's API rate limits are the spec's times n (a whole
                        number, 1-${MAX_TEST_RATE_LIMIT_SCALE}), for a sandbox started with the same scale; never
                        against the real API
  --no-open             do not open a browser
  -h, --help            this text`;

export interface WebCliOptions {
  help: boolean;
  host: string;
  port: number;
  publicUrl: string | null;
  allowHosts: string[];
  baseUrl: string | null;
  wsUrl: string | null;
  dataDir: string | null;
  token: string | null;
  open: boolean;
  /** Chat forwarding may reach non-public addresses: only the command line sets it, never a setting in the UI. */
  forwardToPrivateNetworks: boolean;
  /** Benchmarks only: the client's rate limits times this (1 = the spec's). Only the command line sets it. */
  testRateLimitScale: number;
  /** Lines for stderr before anything starts (never the token). */
  warnings: string[];
}

export type WebCliParse = { ok: true; options: WebCliOptions } | { ok: false; message: string };

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Reads `npm run web` arguments; `env` supplies $MERCHANT_DESK_WEB_TOKEN. */
export function parseWebCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): WebCliParse {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        'public-url': { type: 'string' },
        'allow-host': { type: 'string', multiple: true, default: [] },
        'base-url': { type: 'string' },
        'ws-url': { type: 'string' },
        'data-dir': { type: 'string' },
        token: { type: 'string' },
        'no-open': { type: 'boolean', default: false },
        'forward-to-private-networks': { type: 'boolean', default: false },
        'test-rate-limit-scale': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }

  let port = 0;
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65_535)
      return { ok: false, message: `--port must be 0-65535, got ${values.port}` };
    port = Number(values.port);
  }
  const publicUrl = values['public-url'] ?? null;
  try {
    if (publicUrl !== null) parsePublicUrl(publicUrl);
    for (const name of values['allow-host']) parseAllowedHost(name);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }

  const host = values.host;
  const warnings: string[] = [];
  if (!isLoopbackHost(host)) {
    warnings.push(
      `WARNING: --host ${host} makes Merchant Desk reachable from the network, protected only by the token. ` +
        'On a network you do not trust, put it behind a TLS reverse proxy and pass --public-url https://….',
    );
  } else if (publicUrl !== null && !publicUrl.startsWith('https:')) {
    warnings.push(`WARNING: --public-url ${publicUrl} is plain http: the token crosses the network unencrypted.`);
  }
  const forwardToPrivateNetworks = values['forward-to-private-networks'];
  if (forwardToPrivateNetworks) {
    warnings.push(
      'WARNING: --forward-to-private-networks lets a chat or replay webhook URL saved in Settings reach this machine and its network.',
    );
  }
  let testRateLimitScale = 1;
  const scale = values['test-rate-limit-scale'];
  if (scale !== undefined) {
    if (!/^\d{1,4}$/.test(scale) || Number(scale) < 1 || Number(scale) > MAX_TEST_RATE_LIMIT_SCALE)
      return {
        ok: false,
        message: `--test-rate-limit-scale must be a whole number from 1 to ${MAX_TEST_RATE_LIMIT_SCALE}, got ${scale}`,
      };
    testRateLimitScale = Number(scale);
  }
  if (testRateLimitScale !== 1) {
    warnings.push(
      `WARNING: --test-rate-limit-scale ${testRateLimitScale}: the desk sends up to ${testRateLimitScale}× the API's rate limits (benchmarks against a sandbox only).`,
    );
  }
  const token = values.token ?? (env['MERCHANT_DESK_WEB_TOKEN'] || null);
  return {
    ok: true,
    options: {
      help: values.help,
      host,
      port,
      publicUrl,
      allowHosts: values['allow-host'],
      baseUrl: values['base-url'] ?? null,
      wsUrl: values['ws-url'] ?? null,
      dataDir: values['data-dir'] ?? null,
      token,
      open: !values['no-open'],
      forwardToPrivateNetworks,
      testRateLimitScale,
      warnings,
    },
  };
}
