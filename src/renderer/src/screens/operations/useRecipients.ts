import { useCallback, useEffect, useRef, useState } from 'react';
import type { RecipientsQuery } from '../../../../shared/ipc/contract';
import type { RecipientsPage } from '../../../../shared/ipc/operations';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { onRecipientsChanged } from '../../state/actions/operations';
import { useStore } from '../../state/store';

/** A live change re-reads the page after this pause (several changes in a burst read once; well within 1 s). */
const CHANGE_DELAY_MS = 250;
/** The 24 h counts and block countdowns move with time alone: read again this often while shown. */
const RELOAD_MS = 60_000;

export const FIRST_RECIPIENTS: RecipientsQuery = {
  sort: 'active',
  descending: true,
  search: '',
  only: 'all',
  offset: 0,
  limit: 50,
};

export interface RecipientsState {
  query: RecipientsQuery;
  page: RecipientsPage | null;
  error: string | null;
  setQuery: (patch: Partial<RecipientsQuery>) => void;
  reload: () => void;
}

export function useRecipients(): RecipientsState {
  const [query, setQueryState] = useState<RecipientsQuery>(FIRST_RECIPIENTS);
  const [page, setPage] = useState<RecipientsPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const accountId = useStore((s) => s.conn.account?.merchantId ?? null);
  // Only the newest read's answer is shown (a filter typed fast asks several times).
  const asked = useRef(0);
  const reload = useCallback(() => {
    const ticket = ++asked.current;
    unwrap(api().operations.recipients(query))
      .then((value) => {
        if (ticket !== asked.current) return;
        setPage(value);
        setError(null);
      })
      .catch((problem: unknown) => {
        if (ticket === asked.current) setError(errorMessage(problem));
      });
  }, [query]);
  useEffect(() => {
    reload();
    let pending: ReturnType<typeof setTimeout> | null = null;
    const stop = onRecipientsChanged(() => {
      pending ??= setTimeout(() => {
        pending = null;
        reload();
      }, CHANGE_DELAY_MS);
    });
    const timer = setInterval(reload, RELOAD_MS);
    return () => {
      stop();
      clearInterval(timer);
      if (pending) clearTimeout(pending);
    };
  }, [reload, accountId]);
  const setQuery = useCallback(
    (patch: Partial<RecipientsQuery>) => setQueryState((q) => ({ ...q, ...patch, offset: patch.offset ?? 0 })),
    [],
  );
  return { query, page, error, setQuery, reload };
}
