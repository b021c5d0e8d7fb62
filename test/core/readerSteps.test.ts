/**
 * A large catalog change (a first sync) reaches the reader's snapshot in steps (what the reader thread does with a
 * catalog read that comes meanwhile: `storeWorker` holds it until the last step, and answers every other read at
 * once). The writer and the reader run in this thread, so nothing steps the snapshot between the write and the read.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CatalogInfo } from '../../src/shared/ipc';
import { applyItemUpserts } from '../support/liveChanges';
import { closeLiveStore, openLiveStore } from '../support/liveStore';
import { tempDirs } from '../support/tempDirs';
import { makeItem } from './storeModel/items';

const temp = tempDirs();
// Ten steps of 2,000 rows.
const ITEMS = 20_000;

describe('the reader patches a large change in steps', () => {
  it('holds a catalog read until the last step, other reads answered meanwhile, and answers it with the whole change', async () => {
    const dir = temp('reader-steps-');
    const { writer, reader } = openLiveStore(join(dir, 'm1.sqlite'));
    try {
      const items = Array.from({ length: ITEMS }, (_, i) => makeItem(i + 1, i * 31, 100 + ((i * 37) % 900)));
      applyItemUpserts(writer.catalog, items);

      expect(reader.snapshotCaughtUp()).toBe(false);
      const answered: string[] = [];
      const info = new Promise<CatalogInfo>((resolve) =>
        reader.whenCaughtUp(() => {
          answered.push('catalog');
          resolve(reader.catalogInfo());
        }),
      );
      expect(reader.unreadNotificationCount()).toBe(0);
      answered.push('cheap');
      const { totalItems } = await info;

      expect(answered).toEqual(['cheap', 'catalog']);
      expect(totalItems).toBe(ITEMS);
      // Caught up: the next catalog read goes at once.
      expect(reader.snapshotCaughtUp()).toBe(true);
      let atOnce = false;
      reader.whenCaughtUp(() => (atOnce = true));
      expect(atOnce).toBe(true);
    } finally {
      closeLiveStore(dir, reader, writer);
    }
  });

  it('answers the catalog reads still waiting when the reader closes', () => {
    const dir = temp('reader-steps-close-');
    const { writer, reader } = openLiveStore(join(dir, 'm1.sqlite'));
    const items = Array.from({ length: ITEMS }, (_, i) => makeItem(i + 1, i * 31, 100 + ((i * 37) % 900)));
    applyItemUpserts(writer.catalog, items);
    expect(reader.snapshotCaughtUp()).toBe(false);
    let total: number | null = null;
    reader.whenCaughtUp(() => (total = reader.catalogInfo().totalItems));
    closeLiveStore(dir, reader, writer);
    expect(total).toBe(ITEMS);
  });
});
