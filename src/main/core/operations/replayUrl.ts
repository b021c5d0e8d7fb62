import { isIP } from 'node:net';
import { isPublicAddress } from '../notify/webhookPost';

/**
 * Why a replay may not post to `url`, or null. The schema let only http(s) through; here an address of this machine
 * or its network is refused unless the host was started to allow it (`--forward-to-private-networks`): a URL typed
 * in Settings must not make the desk a way into its own network. A name is checked again as it resolves
 * (webhookPost.ts), so a public-looking name that points inside is refused when the replay connects.
 */
export function replayUrlProblem(url: string, allowPrivateAddresses: boolean): string | null {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'The webhook URL is not a valid address';
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return 'The webhook URL must be an http:// or https:// address';
  if (allowPrivateAddresses) return null;
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const loopbackName = host === 'localhost' || host.endsWith('.localhost');
  if (loopbackName || (isIP(host) !== 0 && !isPublicAddress(host))) {
    return (
      `${target.host} is a loopback or private address: replays go to public addresses only, unless the desk is ` +
      'started with --forward-to-private-networks'
    );
  }
  return null;
}
