import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { StoredNotification } from '../../src/shared/ipc';
import { groupNotifications, type NotificationGroup } from '../../src/shared/notifications';
import { LocalStore } from '../../src/main/core/store';

const dirs: string[] = [];
const opened: LocalStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function openStore(file?: string): Promise<{ store: LocalStore; file: string }> {
  const path = file ?? join(mkdtempSync(join(tmpdir(), 'notification-store-')), 'm1.sqlite');
  if (!file) dirs.push(join(path, '..'));
  const store = await LocalStore.open({ file: path });
  opened.push(store);
  return { store, file: path };
}

function note(id: string, at: string, extra: Partial<StoredNotification> = {}): StoredNotification {
  return {
    id,
    kind: 'trade',
    category: 'trade',
    severity: 'success',
    title: `T ${id}`,
    body: 'b',
    target: { type: 'trade', tradeId: id },
    at,
    readAt: null,
    ...extra,
  };
}

describe('notification centre store (real SQLite file)', () => {
  it('keeps notifications across a reopen, newest first, idempotent by id, with the unread count', async () => {
    const { store, file } = await openStore();
    const first = await store.insertNotifications([
      note('a', '2026-11-26T05:00:00.000Z'),
      note('b', '2026-11-26T05:00:01.000Z'),
    ]);
    expect(first.inserted.map((n) => n.id)).toEqual(['a', 'b']);
    expect(first.unread).toBe(2);
    // A replay of the same notification is not a second one.
    const again = await store.insertNotifications([note('a', '2026-11-26T05:00:00.000Z')]);
    expect(again.inserted).toEqual([]);
    await store.close();
    const { store: reopened } = await openStore(file);
    const page = await reopened.listNotifications();
    expect(page.rows.map((n) => n.id)).toEqual(['b', 'a']);
    expect(page.rows[0]).toEqual(note('b', '2026-11-26T05:00:01.000Z'));
    expect(page).toMatchObject({ total: 2, unread: 2 });
  });

  it('filters by category, severity and unread, and marks read by id or all up to a time', async () => {
    const { store } = await openStore();
    await store.insertNotifications([
      note('t1', '2026-11-26T05:00:00.000Z'),
      note('t2', '2026-11-26T05:00:01.000Z', { severity: 'danger' }),
      note('al', '2026-11-26T05:00:02.000Z', {
        kind: 'alert',
        category: 'alert',
        severity: 'neutral',
        target: { type: 'item', itemId: 7 },
      }),
      note('cx', '2026-11-26T05:00:03.000Z', {
        kind: 'system',
        category: 'connection',
        severity: 'warning',
        target: null,
      }),
    ]);
    expect((await store.listNotifications({ categories: ['trade'] })).rows.map((n) => n.id)).toEqual(['t2', 't1']);
    expect((await store.listNotifications({ severities: ['danger', 'warning'] })).rows.map((n) => n.id)).toEqual([
      'cx',
      't2',
    ]);
    expect(await store.markNotificationsRead({ ids: ['t2', 'missing'] })).toEqual({ marked: 1, unread: 3 });
    const unread = await store.listNotifications({ unreadOnly: true });
    expect(unread.rows.map((n) => n.id)).toEqual(['cx', 'al', 't1']);
    expect((await store.listNotifications({ categories: ['trade'] })).rows.find((n) => n.id === 't2')?.readAt).toMatch(
      /Z$/,
    );
    // "Mark all read" does not mark what arrived after the list the user saw.
    expect(await store.markNotificationsRead({ all: true, through: '2026-11-26T05:00:02.000Z' })).toEqual({
      marked: 2,
      unread: 1,
    });
    expect(await store.unreadNotificationCount()).toBe(1);
    expect((await store.listNotifications({ limit: 1, offset: 1 })).rows.map((n) => n.id)).toEqual(['al']);
  });

  it('counts unread rows as the centre shows them: 30 notifications in 6 runs are 6 unread, a run marked read is one less', async () => {
    const { store } = await openStore();
    const statuses = ['SENT', 'COMPLETED', 'CANCELLED'] as const;
    const severity = { SENT: 'neutral', COMPLETED: 'success', CANCELLED: 'danger' } as const;
    // Six runs of five, a kind at a time, each run within a few seconds, the runs minutes apart.
    const list = Array.from({ length: 30 }, (_, i) => {
      const run = Math.floor(i / 5);
      const status = statuses[run % 3] as (typeof statuses)[number];
      const at = new Date(Date.UTC(2026, 10, 28, 12, run * 5, i % 5)).toISOString();
      return note(`trade:t${i}:${status}`, at, { severity: severity[status], title: `Item ${i}` });
    });
    const inserted = await store.insertNotifications(list);
    const page = await store.listNotifications({ limit: 100 });
    const rows = groupNotifications(page.rows);
    expect(rows).toHaveLength(6);
    expect(inserted.unread).toBe(6);
    expect(page.unread).toBe(6);
    // Reading one row's members (the screen's "Mark read") takes one off; one member of a run leaves its row unread.
    const [newest, second] = rows as [NotificationGroup<StoredNotification>, NotificationGroup<StoredNotification>];
    expect(await store.markNotificationsRead({ ids: newest.members.map((n) => n.id) })).toEqual({
      marked: 5,
      unread: 5,
    });
    expect(await store.markNotificationsRead({ ids: [second.members[0]?.id ?? ''] })).toEqual({ marked: 1, unread: 5 });
    expect(await store.unreadNotificationCount()).toBe(5);
    await store.markNotificationsRead({ all: true });
    expect(await store.unreadNotificationCount()).toBe(0);
  });

  it('refuses a bad query or mark-read with a clear error and changes nothing', async () => {
    const { store } = await openStore();
    await store.insertNotifications([note('a', '2026-11-26T05:00:00.000Z')]);
    await expect(store.listNotifications({ categories: ['bogus' as 'trade'] })).rejects.toThrow(/categories/);
    await expect(store.markNotificationsRead({ ids: [] })).rejects.toThrow();
    await expect(store.markNotificationsRead({ all: true, through: 'yesterday' })).rejects.toThrow();
    expect(await store.unreadNotificationCount()).toBe(1);
  });
});
