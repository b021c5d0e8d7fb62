/**
 * The forwarder's one HTTP call: a JSON POST to a chat webhook. Only to a public address: a webhook URL is
 * typed by the merchant (or pasted from a message), and must not make the app a way into its own machine or
 * network (loopback, private, link-local, metadata services). Names are checked as they resolve, on the very
 * connection, so a name pointing at 127.0.0.1 is refused too. At most a few KB of the answer are read (its
 * status and a retry hint are all we need), then the connection is dropped; redirects are not followed.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import { parseRetryAfter } from '../api/errors';

export interface PostResult {
  status: number;
  /** From a Retry-After header or the body's retry_after (Discord, Telegram), in ms. */
  retryAfterMs: number | null;
}

export interface PostOptions {
  /** Tests only (their receiver listens on loopback): no setting reaches it. */
  allowPrivateAddresses?: boolean;
}

/** More than a chat API's error JSON; the rest of an answer is never read. */
export const MAX_ANSWER_BYTES = 4096;

/** The webhook's address is not a public one: nothing was sent. */
export class NotPublicAddressError extends Error {
  override name = 'NotPublicAddressError';
}

/** Addresses no chat service has: this host, private networks, link-local, shared, documentation, multicast, reserved. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
// IPv4-mapped addresses (::ffff:a.b.c.d) are judged by the IPv4 list.
for (const [network, prefix] of [
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that refuses a name with any non-public address (net.connect calls it for names, not for IP literals). */
function publicLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true } as { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const first = addresses[0];
    if (first === undefined)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    if (addresses.some((a) => !isPublicAddress(a.address)))
      return callback(new NotPublicAddressError(`${hostname} is not a public address`), []);
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
}

/** POSTs `body` as JSON; resolves with the status once it is known and at most MAX_ANSWER_BYTES of the answer read. */
export function postJson(
  url: string,
  body: unknown,
  signal: AbortSignal,
  options: PostOptions = {},
): Promise<PostResult> {
  return postBody(url, JSON.stringify(body), {}, signal, options);
}

/** POSTs these exact JSON bytes with extra headers (a signed webhook), under the same rules as postJson. */
export function postBody(
  url: string,
  payload: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
  options: PostOptions = {},
): Promise<PostResult> {
  const target = new URL(url);
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!options.allowPrivateAddresses && isIP(literal) !== 0 && !isPublicAddress(literal)) {
    return Promise.reject(new NotPublicAddressError(`${target.host} is not a public address`));
  }
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        signal,
        agent: false,
        ...(options.allowPrivateAddresses ? {} : { lookup: publicLookup as unknown as typeof dnsLookup }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let done = false;
        const finish = (): void => {
          if (done) return;
          done = true;
          const text = Buffer.concat(chunks).toString('utf8');
          const header = response.headers['retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            retryAfterMs: retryAfterMs(typeof header === 'string' ? header : null, text),
          });
          // Whatever else the receiver would send is not read: the connection goes.
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_ANSWER_BYTES) finish();
        });
        response.on('end', finish);
        // A connection cut mid-answer: the status was given.
        response.on('error', finish);
        response.on('close', finish);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** The header's wait, else a chat API's `retry_after` (seconds) in the JSON body (Discord, Telegram). */
function retryAfterMs(header: string | null, body: string): number | null {
  const fromHeader = parseRetryAfter(header);
  if (fromHeader !== null) return fromHeader;
  try {
    const parsed = JSON.parse(body) as { retry_after?: unknown; parameters?: { retry_after?: unknown } };
    const value = parsed.retry_after ?? parsed.parameters?.retry_after;
    if (typeof value === 'number' && value >= 0) return value * 1000;
  } catch {
    // Not JSON (or cut at the cap): no hint.
  }
  return null;
}
