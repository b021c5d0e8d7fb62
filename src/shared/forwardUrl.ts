/**
 * The webhook URL notifications are forwarded to ("To the phone"). Two body formats: a Telegram bot's
 * `sendMessage` (recognised by its path, `/bot<token>/sendMessage?chat_id=<chat>`, on api.telegram.org or a
 * self-hosted Bot API server), else a Discord-compatible JSON body (`{ content }`, which Discord, Slack-style
 * bridges and most chat webhooks take). Such URLs carry a secret (the bot token, the webhook token): shown and
 * logged by host only (`forwardHost`).
 */

export type ForwardFormat = 'discord' | 'telegram';

export interface ForwardTarget {
  url: string;
  format: ForwardFormat;
  /** Telegram only: the chat the bot writes to. */
  chatId: string | null;
}

export const MAX_FORWARD_URL_LENGTH = 2048;

const TELEGRAM_PATH = /^\/bot[^/]+\/sendMessage\/?$/i;

export function parseForwardUrl(text: string): { ok: true; target: ForwardTarget } | { ok: false; problem: string } {
  const value = text.trim();
  if (value.length > MAX_FORWARD_URL_LENGTH)
    return { ok: false, problem: `The webhook URL is longer than ${MAX_FORWARD_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, problem: 'Not a URL: paste the webhook URL, starting with https://' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, problem: `Only http:// and https:// webhook URLs are allowed (not ${url.protocol})` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, problem: 'The webhook URL must not contain a user name or password' };
  if (TELEGRAM_PATH.test(url.pathname)) {
    const chatId = url.searchParams.get('chat_id')?.trim() ?? '';
    if (!/^(-?\d{1,20}|@[A-Za-z0-9_]{5,32})$/.test(chatId)) {
      return {
        ok: false,
        problem: 'A Telegram sendMessage URL needs the chat: add ?chat_id=<chat id> (a number, or @channelname)',
      };
    }
    return { ok: true, target: { url: url.toString(), format: 'telegram', chatId } };
  }
  return { ok: true, target: { url: url.toString(), format: 'discord', chatId: null } };
}

/** What may be shown of a webhook URL: its host (the path and query carry the token). */
export function forwardHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the webhook';
  }
}
