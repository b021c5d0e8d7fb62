/**
 * A platform account's 64-bit id (SteamID64, the 17 digits in a profile URL) is a fixed base plus its 32-bit account
 * id, the trade URL's `partner`: a player's site usually stores the former, the marketplace's limits count the latter.
 */
const STEAM_ID_BASE = 76561197960265728n;

export function steamIdOf(accountId: number): string {
  return String(STEAM_ID_BASE + BigInt(accountId));
}

/** The account id of a 17-digit steam id, or null when it is not one. */
export function accountIdOf(steamId: string): number | null {
  if (!/^\d{17}$/.test(steamId)) return null;
  const id = BigInt(steamId) - STEAM_ID_BASE;
  return id >= 1n && id <= 0xffff_ffffn ? Number(id) : null;
}
