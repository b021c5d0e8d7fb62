import { isValidTradeUrl } from '../../../shared/api/tradeUrl';

const PREFIX = 'https://steamcommunity.com/tradeoffer/new/';

/**
 * What is wrong with a pasted trade URL, in words a person can act on; null when it is
 * valid or still empty.
 */
export function tradeUrlProblem(raw: string): string | null {
  const url = raw.trim();
  if (url === '' || isValidTradeUrl(url)) return null;
  if (!url.startsWith('https://')) return 'A trade URL starts with https://steamcommunity.com/tradeoffer/new/';
  if (!url.startsWith(PREFIX)) return `This is not a trade offer link: it must start with ${PREFIX}`;
  const query = url.slice(PREFIX.length).replace(/^\?/, '');
  const params = new URLSearchParams(query);
  const partner = params.get('partner');
  const token = params.get('token');
  if (partner === null) return 'The partner number is missing (partner=…)';
  if (!/^\d{1,10}$/.test(partner) || Number(partner) < 1 || Number(partner) > 0xffff_ffff)
    return 'The partner number is not a valid account id';
  if (token === null) return 'The token is missing (token=…, 8 characters)';
  if (!/^[A-Za-z0-9_-]{8}$/.test(token))
    return `The token must be exactly 8 letters, digits, - or _ (this one has ${token.length})`;
  return 'Use the link exactly as Steam shows it: …/tradeoffer/new/?partner=<number>&token=<8 characters>';
}
