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

/**
 * `token` and its `=` as a URL, a URL-encoded (once or twice), an HTML or a JSON text writes them, then the
 * value: unreserved characters and percent-escapes other than `&`, `#` and a space (where a value ends).
 */
const TRADE_TOKEN = /(token(?:=|%3D|%253D|&#61;|&#x3d;|\\u003d))((?:[A-Za-z0-9_.~-]|%(?!26|23|20)[0-9A-Fa-f]{2})*)/gi;

/**
 * For logs and messages: a trade URL's token is a secret of the recipient. Every token in `text` (a URL, or
 * any text holding one however it is written) keeps two characters.
 */
export function redactTradeUrl(text: string): string {
  return text.replace(TRADE_TOKEN, (_all, key: string, value: string) => `${key}${value.slice(0, 2)}******`);
}
