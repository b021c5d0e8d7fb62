/** The one-sentence `detail` texts of the feed's status, for the status bar. */

/** `8 s`, `1 min 30 s`, `5 min`: rounded up to the second, so a countdown never shows `0 s` early. */
export function formatDelay(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) {
    const minutes = Math.floor(seconds / 60);
    const rest = seconds % 60;
    return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
  }
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.round((seconds % 3600) / 60);
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
}

/** Plain words for the error codes of a connection that could not be made. */
export function describeNetworkError(code: string | null, message: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return 'server name not found';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return 'timed out';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENETDOWN':
      return 'network unreachable';
    case null:
      break;
    default:
      return code;
  }
  if (/handshake has timed out/i.test(message)) return 'no answer in time';
  return 'network error';
}

export const DETAIL = {
  notStarted: 'Live feed not started',
  stopped: 'Live feed stopped',
  connecting: 'Connecting to the live feed…',
  connected: 'Live feed connected',
  reconnectingIn: (delayMs: number, attempt: number) => `Reconnecting in ${formatDelay(delayMs)} (attempt ${attempt})`,
  reconnectingNow: (attempt: number) => `Reconnecting… (attempt ${attempt})`,
  offlineIn: (cause: string, delayMs: number, attempt: number) =>
    `Cannot reach the server (${cause}); retrying in ${formatDelay(delayMs)} (attempt ${attempt})`,
  offlineNow: (cause: string, attempt: number) =>
    `Cannot reach the server (${cause}); retrying now (attempt ${attempt})`,
  maintenanceIn: (label: string, delayMs: number) => `${label} under maintenance; retrying in ${formatDelay(delayMs)}`,
  maintenanceNow: (label: string) => `${label} under maintenance; checking again now`,
  connectionLimitIn: (limit: number, pollMs: number, delayMs: number) =>
    `Feed refused: ${limit} connections already open for this merchant; polling every ${formatDelay(pollMs)}, retrying the feed in ${formatDelay(delayMs)}`,
  connectionLimitNow: (limit: number, pollMs: number) =>
    `Feed refused: ${limit} connections already open for this merchant; polling every ${formatDelay(pollMs)}, retrying the feed now`,
  unauthorized: 'Feed refused: invalid API key or merchant ID; enter valid credentials to reconnect',
  credentialsChanged: 'Feed closed: the API key was changed; enter the new key to reconnect',
  ipNotAllowedIn: (delayMs: number) =>
    `Feed refused: this computer's IP address is not on the merchant's allowlist; retrying in ${formatDelay(delayMs)}`,
  feedRefusedIn: (cause: string, pollMs: number, delayMs: number) =>
    `Feed refused (${cause}); polling every ${formatDelay(pollMs)}, retrying the feed in ${formatDelay(delayMs)}`,
  feedRefusedNow: (cause: string, pollMs: number) =>
    `Feed refused (${cause}); polling every ${formatDelay(pollMs)}, retrying the feed now`,
  ipNotAllowedNow: "Feed refused: this computer's IP address is not on the merchant's allowlist; retrying now",
  badAddress: 'Feed address is not a valid ws:// or wss:// URL; check the account settings',
} as const;
