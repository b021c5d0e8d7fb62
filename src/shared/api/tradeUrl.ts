/**
 * The platform's trade offer URL:
 * `https://steamcommunity.com/tradeoffer/new/?partner=<digits>&token=<8 chars>`.
 * The partner number identifies the trade URL owner (the unit of the
 * active-offer and partner-block limits).
 */
const TRADE_URL_PATTERN =
  /^https:\/\/steamcommunity\.com\/tradeoffer\/new\/\?partner=(\d{1,10})&token=([A-Za-z0-9_-]{8})$/;

export interface ParsedTradeUrl {
  partner: string;
  token: string;
}

export function parseTradeUrl(url: string): ParsedTradeUrl | null {
  const match = TRADE_URL_PATTERN.exec(url);
  if (!match) return null;
  const [, partner, token] = match as unknown as [string, string, string];
  // Account ids are unsigned 32-bit numbers; 0 is no account.
  const id = Number(partner);
  if (id < 1 || id > 0xffff_ffff) return null;
  return { partner, token };
}

export function isValidTradeUrl(url: string): boolean {
  return parseTradeUrl(url) !== null;
}

export function buildTradeUrl(partner: string | number, token: string): string {
  return `https://steamcommunity.com/tradeoffer/new/?partner=${partner}&token=${token}`;
}

/** For logs and messages: the token is a secret of the recipient, keep two characters. */
export function redactTradeUrl(url: string): string {
  return url.replace(/([?&]token=)([^&]{0,2})[^&]*/, (_all, key: string, head: string) => `${key}${head}******`);
}
