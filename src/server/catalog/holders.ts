/**
 * The platform accounts holding the catalog's items: a deterministic pool per
 * (seed, size), with 17-digit steam ids, trade URLs and inspect links.
 */
import { buildTradeUrl, steamIdOf } from '../../shared/api';
import { hashString, mix32, Rng } from './rng';

export interface Holder {
  /** 32-bit account id, the trade URL's partner number. */
  readonly accountId: number;
  readonly steamId: string;
  readonly tradeUrl: string;
}

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const INSPECT_PREFIX = 'steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S';

function token(rng: Rng): string {
  let text = '';
  for (let i = 0; i < 8; i++) text += TOKEN_ALPHABET[rng.int(0, 63)] ?? 'A';
  return text;
}

/** The trade URL of an account outside the pool: its token derived from the account id. */
export function tradeUrlOf(accountId: number, seed: number): string {
  return buildTradeUrl(accountId, token(new Rng(mix32(hashString('token', seed >>> 0), accountId))));
}

export function inspectLink(steamId: string, assetId: string, d: string): string {
  return `${INSPECT_PREFIX}${steamId}A${assetId}D${d}`;
}

/** The D parameter of an inspect link: 18 digits. */
export function inspectDigits(rng: Rng): string {
  return String(rng.int(100_000_000, 999_999_999)) + String(rng.int(0, 999_999_999)).padStart(9, '0');
}

export interface HolderPool {
  readonly holders: readonly Holder[];
  readonly bySteamId: ReadonlyMap<string, Holder>;
}

let cached: { key: string; pool: HolderPool } | null = null;

/** `size` distinct accounts for `seed`; the same arguments give the same pool. */
export function holderPool(seed: number, size: number): HolderPool {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`holder count must be a positive integer, got ${size}`);
  const key = `${seed}:${size}`;
  if (cached?.key === key) return cached.pool;
  const rng = new Rng(seed).fork('holders');
  const holders: Holder[] = [];
  const bySteamId = new Map<string, Holder>();
  while (holders.length < size) {
    const accountId = rng.int(10_000_000, 1_999_999_999);
    const steamId = steamIdOf(accountId);
    if (bySteamId.has(steamId)) continue;
    const holder = { accountId, steamId, tradeUrl: buildTradeUrl(accountId, token(rng)) };
    holders.push(holder);
    bySteamId.set(steamId, holder);
  }
  const pool = { holders, bySteamId };
  cached = { key, pool };
  return pool;
}
