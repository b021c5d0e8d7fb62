import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReversalExposure } from '../../../../shared/ipc/operations';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { onLedgerChanged, onRecipientsChanged } from '../../state/actions/operations';
import { useStore } from '../../state/store';

/** A reversal, a completion or its ledger entry moves the numbers: re-read after the engine's signal (a burst reads once). */
const CHANGE_DELAY_MS = 250;
/** Protection ends with time alone: read again this often while shown. */
const RELOAD_MS = 60_000;

export interface ReversalsState {
  exposure: ReversalExposure | null;
  error: string | null;
  reload: () => void;
  /** Shows the page of reversed trades from `offset` (newest first). */
  setOffset: (offset: number) => void;
}

export function useReversals(): ReversalsState {
  const [exposure, setExposure] = useState<ReversalExposure | null>(null);
  const [error, setError] = useState<string | null>(null);
  const accountId = useStore((s) => s.conn.account?.merchantId ?? null);
  // The page belongs to the account it was chosen in: another account starts at its first page.
  const [page, setPage] = useState({ accountId, offset: 0 });
  const offset = page.accountId === accountId ? page.offset : 0;
  const setOffset = useCallback((next: number) => setPage({ accountId, offset: next }), [accountId]);
  const asked = useRef(0);
  const reload = useCallback(() => {
    const ticket = ++asked.current;
    unwrap(api().operations.reversals({ offset }))
      .then((value) => {
        if (ticket !== asked.current) return;
        setExposure(value);
        setError(null);
      })
      .catch((problem: unknown) => {
        if (ticket === asked.current) setError(errorMessage(problem));
      });
  }, [offset]);
  useEffect(() => {
    reload();
    let pending: ReturnType<typeof setTimeout> | null = null;
    const changed = () => {
      pending ??= setTimeout(() => {
        pending = null;
        reload();
      }, CHANGE_DELAY_MS);
    };
    const stops = [onRecipientsChanged(changed), onLedgerChanged(changed)];
    const timer = setInterval(reload, RELOAD_MS);
    return () => {
      for (const stop of stops) stop();
      clearInterval(timer);
      if (pending) clearTimeout(pending);
    };
  }, [reload, accountId]);
  return { exposure, error, reload, setOffset };
}
