import type { NotificationCategory, NotificationPage, NotificationSeverity, StoredNotification } from '../../../../shared/ipc';
import type { NotificationMarkRead, ParsedNotificationQuery } from '../../../../shared/ipc/contract';
import { NOTIFICATIONS_KEPT, type NotificationInsertResult } from '../notifications';
import type { Db } from './open';

/** SQL of the notification centre (table `notifications`), run by the writer and reader services. */

interface NotificationRow {
  id: string;
  kind: StoredNotification['kind'];
  category: NotificationCategory;
  severity: NotificationSeverity;
  title: string;
  body: string;
  target: string | null;
  at: string;
  readAt: string | null;
}

function notificationOf(row: NotificationRow): StoredNotification {
  return {
    id: row.id,
    kind: row.kind,
    category: row.category,
    severity: row.severity,
    title: row.title,
    body: row.body,
    target: row.target === null ? null : (JSON.parse(row.target) as StoredNotification['target']),
    at: row.at,
    readAt: row.readAt,
  };
}

export function unreadNotificationCount(db: Db): number {
  return db.prepare<[], number>('SELECT count(*) FROM notifications WHERE readAt IS NULL').pluck().get() as number;
}

export function insertNotifications(db: Db, list: StoredNotification[]): NotificationInsertResult {
  const insert = db.prepare(
    'INSERT OR IGNORE INTO notifications (id, kind, category, severity, title, body, target, at, readAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return db.transaction(() => {
    const inserted: StoredNotification[] = [];
    for (const n of list) {
      const target = n.target === null ? null : JSON.stringify(n.target);
      if (insert.run(n.id, n.kind, n.category, n.severity, n.title, n.body, target, n.at, n.readAt).changes > 0) inserted.push(n);
    }
    if (inserted.length > 0) {
      db.prepare('DELETE FROM notifications WHERE id IN (SELECT id FROM notifications ORDER BY at DESC, id LIMIT -1 OFFSET ?)').run(NOTIFICATIONS_KEPT);
    }
    return { inserted, unread: unreadNotificationCount(db) };
  })();
}

export function markNotificationsRead(db: Db, input: NotificationMarkRead, now: string): { marked: number; unread: number } {
  return db.transaction(() => {
    let marked = 0;
    if ('ids' in input) {
      const mark = db.prepare('UPDATE notifications SET readAt = ? WHERE id = ? AND readAt IS NULL');
      for (const id of input.ids) marked += mark.run(now, id).changes;
    } else {
      marked = db.prepare('UPDATE notifications SET readAt = ? WHERE readAt IS NULL AND at <= ?').run(now, input.through ?? now).changes;
    }
    return { marked, unread: unreadNotificationCount(db) };
  })();
}

export function listNotifications(db: Db, query: ParsedNotificationQuery): NotificationPage {
  const clauses: string[] = [];
  const params: (string | number)[] = [];
  if (query.categories.length > 0) {
    clauses.push(`category IN (${query.categories.map(() => '?').join(', ')})`);
    params.push(...query.categories);
  }
  if (query.severities.length > 0) {
    clauses.push(`severity IN (${query.severities.map(() => '?').join(', ')})`);
    params.push(...query.severities);
  }
  if (query.unreadOnly) clauses.push('readAt IS NULL');
  const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
  const total = db.prepare(`SELECT count(*) FROM notifications ${where}`).pluck().get(...params) as number;
  const rows = db
    .prepare(`SELECT id, kind, category, severity, title, body, target, at, readAt FROM notifications ${where} ORDER BY at DESC, id LIMIT ? OFFSET ?`)
    .all(...params, query.limit, query.offset) as NotificationRow[];
  return { rows: rows.map(notificationOf), total, unread: unreadNotificationCount(db) };
}
