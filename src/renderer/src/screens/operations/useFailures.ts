import { useCallback, useEffect, useRef, useState } from 'react';
import type { FailuresBoard } from '../../../../shared/ipc/operations';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { useStore } from '../../state/store';

export interface FailuresState {
  board: FailuresBoard | null;
  error: string | null;
  /** The days asked (UTC); null: the engine's default (the last 30 to today). */
  range: { from: string; to: string } | null;
  setRange: (range: { from: string; to: string } | null) => void;
  reload: () => void;
}

/** The failures board, read again when the engine says failures changed (a failed trade or a refusal stored). */
export function useFailures(): FailuresState {
  const [board, setBoard] = useState<FailuresBoard | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [range, setRange] = useState<{ from: string; to: string } | null>(null);
  const accountId = useStore((s) => s.conn.account?.merchantId ?? null);
  const asked = useRef(0);
  const reload = useCallback(() => {
    const ask = ++asked.current;
    unwrap(api().operations.failures(range ?? {}))
      .then((value) => {
        if (ask !== asked.current) return;
        setBoard(value);
        setError(null);
      })
      .catch((problem: unknown) => {
        if (ask === asked.current) setError(errorMessage(problem));
      });
  }, [range]);
  useEffect(() => {
    reload();
    return api().events.subscribe((batch) => {
      if (batch.failuresChanged || batch.tradesInvalidated || batch.accountChanged) reload();
    });
  }, [reload, accountId]);
  return { board, error, range, setRange, reload };
}
