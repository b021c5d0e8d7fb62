import { api, errorMessage, unwrap } from '../../lib/ipc';
import { toast } from './toast';

/** "Retry now": the engine reconnects the feed and reconciles at once, instead of at its next backed-off attempt. */
export async function retryConnectionNow(): Promise<void> {
  try {
    const result = await unwrap(api().connection.retryNow({}));
    if (!result.started) toast('warn', 'Nothing to retry', 'No account is open.');
  } catch (error) {
    toast('error', 'Retry failed', errorMessage(error));
  }
}
