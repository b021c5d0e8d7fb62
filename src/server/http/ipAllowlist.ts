import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

const DOMAIN_CACHE_MS = 60_000;

/** `::ffff:127.0.0.1` and `127.0.0.1` are the same client. */
export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/**
 * A merchant's allowlist holds IP addresses or domain names (spec: up to 20);
 * a domain allows every address it resolves to, looked up at most once a minute.
 */
export class IpAllowlist {
  private readonly resolved = new Map<string, { at: number; addresses: string[] }>();

  async allows(entries: readonly string[], clientIp: string): Promise<boolean> {
    if (entries.length === 0) return true;
    const ip = normalizeIp(clientIp);
    for (const entry of entries) {
      if (isIP(entry) !== 0) {
        if (normalizeIp(entry) === ip) return true;
        continue;
      }
      if ((await this.resolve(entry)).includes(ip)) return true;
    }
    return false;
  }

  private async resolve(domain: string): Promise<string[]> {
    const cached = this.resolved.get(domain);
    if (cached && Date.now() - cached.at < DOMAIN_CACHE_MS) return cached.addresses;
    let addresses: string[] = [];
    try {
      addresses = (await lookup(domain, { all: true })).map((a) => normalizeIp(a.address));
    } catch {
      // An unresolvable name allows nobody.
    }
    this.resolved.set(domain, { at: Date.now(), addresses });
    return addresses;
  }
}
