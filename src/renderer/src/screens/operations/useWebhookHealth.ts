import { useCallback, useEffect, useState } from 'react';
import type { WebhookHealth } from '../../../../shared/ipc/operations';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { useStore } from '../../state/store';

/** While the screen shows, the engine's answer is read again this often (it asks the server once a minute). */
const RELOAD_MS = 30_000;

export interface WebhookHealthState {
  health: WebhookHealth | null;
  error: string | null;
  reload: () => void;
}

export function useWebhookHealth(): WebhookHealthState {
  const [health, setHealth] = useState<WebhookHealth | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A switch of account or a settings change reads again.
  const accountId = useStore((s) => s.conn.account?.merchantId ?? null);
  const settings = useStore((s) => s.settings.settings);
  const reload = useCallback(() => {
    unwrap(api().operations.webhookHealth({}))
      .then((value) => {
        setHealth(value);
        setError(null);
      })
      .catch((problem: unknown) => setError(errorMessage(problem)));
  }, []);
  useEffect(() => {
    reload();
    const timer = setInterval(reload, RELOAD_MS);
    return () => clearInterval(timer);
  }, [reload, accountId, settings]);
  return { health, error, reload };
}
