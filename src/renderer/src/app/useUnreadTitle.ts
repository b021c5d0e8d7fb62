import { useEffect } from 'react';
import { titleWithUnread } from '../state/slices/inbox';
import { useStore } from '../state/store';

const BASE_TITLE = 'Merchant Desk';

/** The window title carries the unread count: `(3) Merchant Desk` (Electron shows the page's title on the window). */
export function useUnreadTitle(): void {
  const unread = useStore((s) => s.inbox.unread);
  useEffect(() => {
    document.title = titleWithUnread(BASE_TITLE, unread);
  }, [unread]);
}
