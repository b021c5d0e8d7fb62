import { useEffect, useMemo, useState } from 'react';
import type { NotificationCategory, NotificationSeverity, StoredNotification } from '../../../../shared/ipc/models';
import {
  CATEGORY_LABELS,
  groupNotifications,
  NOTIFICATION_CATEGORIES,
  NOTIFICATION_SEVERITIES,
  SEVERITY_LABELS,
  type NotificationGroup,
} from '../../../../shared/notifications';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { TimeAgo } from '../../components/TimeAgo';
import {
  loadNotifications,
  markAllNotificationsRead,
  markNotificationsRead,
  setNotificationFilters,
  showMoreNotifications,
} from '../../state/actions/inbox';
import { openTarget } from '../../state/actions/navigation';
import { toggled } from '../../state/slices/inbox';
import { useStore } from '../../state/store';

/** The same tags the rest of the app uses for good, bad and watch-out. */
const SEVERITY_TAG: Record<NotificationSeverity, string> = {
  success: 'tag-ok',
  danger: 'tag-bad',
  warning: 'tag-warn',
  neutral: '',
};

function SeverityTag({ severity }: { severity: NotificationSeverity }) {
  return <span className={`tag sev-tag ${SEVERITY_TAG[severity]}`}>{SEVERITY_LABELS[severity]}</span>;
}

function targetLabel(target: StoredNotification['target']): string {
  return target?.type === 'trade' ? 'Open trade' : 'Open item';
}

function NotificationLine({ n }: { n: StoredNotification }) {
  return (
    <li className={`inbox-member ${n.readAt === null ? 'unread' : ''}`}>
      <span className="inbox-member-title">{n.title}</span>
      <span className="muted small">{n.body}</span>
      {n.target ? (
        <button
          type="button"
          className="link-btn"
          onClick={() => openTarget(n.target)}
          aria-label={`${targetLabel(n.target)}: ${n.title}`}
        >
          {targetLabel(n.target)}
        </button>
      ) : null}
    </li>
  );
}

function GroupRow({ group }: { group: NotificationGroup<StoredNotification> }) {
  const [open, setOpen] = useState(false);
  const unreadIds = group.members.filter((n) => n.readAt === null).map((n) => n.id);
  const many = group.members.length > 1;
  const membersId = `inbox-members-${group.id}`;
  return (
    <li
      className={`inbox-row sev-${group.severity} ${unreadIds.length > 0 ? 'unread' : ''}`}
      data-severity={group.severity}
      data-category={group.category}
    >
      <div className="inbox-row-main">
        <div className="inbox-row-head">
          {unreadIds.length > 0 ? <span className="inbox-dot" aria-hidden="true" /> : null}
          <SeverityTag severity={group.severity} />
          <span className="tag">{CATEGORY_LABELS[group.category]}</span>
          <span className="inbox-title">{group.title}</span>
          {unreadIds.length > 0 ? <span className="sr-only">(unread)</span> : null}
        </div>
        <div className="inbox-body">{group.body}</div>
        {many && open ? (
          <ul className="inbox-members" id={membersId}>
            {group.members.map((n) => (
              <NotificationLine key={n.id} n={n} />
            ))}
          </ul>
        ) : null}
      </div>
      <div className="inbox-row-side">
        <TimeAgo iso={group.at} />
        <div className="inbox-actions">
          {many ? (
            <button
              type="button"
              className="btn sm ghost"
              aria-expanded={open}
              aria-controls={membersId}
              onClick={() => setOpen(!open)}
            >
              {open ? 'Hide' : `Show ${group.members.length}`}
            </button>
          ) : null}
          {group.target ? (
            <button
              type="button"
              className="btn sm ghost"
              onClick={() => openTarget(group.target)}
              aria-label={`${targetLabel(group.target)}: ${group.title}`}
            >
              {targetLabel(group.target)}
            </button>
          ) : null}
          {unreadIds.length > 0 ? (
            <button
              type="button"
              className="btn sm"
              onClick={() => void markNotificationsRead(unreadIds)}
              aria-label={`Mark read: ${group.title}`}
            >
              Mark read
            </button>
          ) : null}
        </div>
      </div>
    </li>
  );
}

function ChipGroup<T extends string>({
  label,
  values,
  chosen,
  names,
  onChange,
}: {
  label: string;
  values: readonly T[];
  chosen: T[];
  names: Record<T, string>;
  onChange: (next: T[]) => void;
}) {
  return (
    <div className="filter-group" role="group" aria-label={label}>
      <span className="filter-label">{label}</span>
      {values.map((value) => {
        const on = chosen.includes(value);
        return (
          <button
            key={value}
            type="button"
            className={`status-chip ${on ? 'on' : ''}`}
            aria-pressed={on}
            onClick={() => onChange(toggled(chosen, value))}
          >
            {names[value]}
          </button>
        );
      })}
    </div>
  );
}

function Filters() {
  const filters = useStore((s) => s.inbox.filters);
  return (
    <div className="filter-bar" role="group" aria-label="Notification filters">
      <ChipGroup<NotificationCategory>
        label="Kind"
        values={NOTIFICATION_CATEGORIES}
        chosen={filters.categories}
        names={CATEGORY_LABELS}
        onChange={(categories) => setNotificationFilters({ categories })}
      />
      <ChipGroup<NotificationSeverity>
        label="Severity"
        values={NOTIFICATION_SEVERITIES}
        chosen={filters.severities}
        names={SEVERITY_LABELS}
        onChange={(severities) => setNotificationFilters({ severities })}
      />
      <label className="check">
        <input
          type="checkbox"
          checked={filters.unreadOnly}
          onChange={(e) => setNotificationFilters({ unreadOnly: e.target.checked })}
        />
        Unread only
      </label>
    </div>
  );
}

export function NotificationsScreen() {
  const page = useStore((s) => s.inbox.page);
  const status = useStore((s) => s.inbox.status);
  const error = useStore((s) => s.inbox.error);
  const unread = useStore((s) => s.inbox.unread);
  const groups = useMemo(() => groupNotifications(page?.rows ?? []), [page]);
  // First visit, and again when another account's list was dropped.
  useEffect(() => {
    if (status === 'idle') void loadNotifications();
  }, [status]);
  const shown = page?.rows.length ?? 0;
  return (
    <div className="screen notifications-screen">
      <header className="screen-head">
        <div className="screen-title">
          <h1>Notifications</h1>
          <div className="head-stats">
            <span aria-live="polite">{unread === 0 ? 'All read' : `${unread} unread`}</span>
          </div>
        </div>
        <div className="head-actions">
          <button
            type="button"
            className="btn"
            onClick={() => void loadNotifications()}
            aria-label="Reload notifications"
            title="Reload"
          >
            <Icon name="refresh" size={14} />
          </button>
          <button type="button" className="btn" disabled={unread === 0} onClick={() => void markAllNotificationsRead()}>
            Mark all read
          </button>
        </div>
      </header>
      <Filters />
      <div className="split-main inbox-main">
        {status === 'error' ? <div className="notice error">Could not load notifications: {error}</div> : null}
        {page && groups.length === 0 ? (
          <EmptyState title="No notifications">
            Trade updates, alert firings, auto-buys and connection changes are kept here.
          </EmptyState>
        ) : (
          <ul className="inbox-list" aria-label="Notifications" aria-busy={status === 'loading'}>
            {groups.map((group) => (
              <GroupRow key={group.id} group={group} />
            ))}
          </ul>
        )}
        {page && page.total > shown ? (
          <footer className="table-foot">
            <span className="muted small">
              {shown} of {page.total}
            </span>
            <button type="button" className="btn sm" onClick={showMoreNotifications}>
              Show more
            </button>
          </footer>
        ) : null}
      </div>
    </div>
  );
}
