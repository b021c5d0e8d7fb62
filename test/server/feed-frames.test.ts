import { describe, expect, it } from 'vitest';
import { feedFrameSchema } from '../../src/shared/api';
import {
  FrameQueue,
  MAX_ITEMS_PER_FRAME,
  chunked,
  connectedFrame,
  itemRemovedFrame,
  priceChangedFrame,
  revealKey,
  tradeUpdatedFrame,
} from '../../src/server/feed/frames';

describe('feed frames', () => {
  it('builds JSON that parses and validates', () => {
    const frames = [
      connectedFrame('m_"quoted"'),
      itemRemovedFrame([1, 2, 3]),
      itemRemovedFrame([]),
      priceChangedFrame([
        { itemId: 5, price: 100 },
        { itemId: 6, price: 200 },
      ]),
      tradeUpdatedFrame({
        tradeId: 't1',
        status: 'FAILED',
        externalId: null,
        offerId: 'o',
        failReason: 'why "so"',
        errorCode: 3,
      }),
    ];
    const parsed = frames.map((text) => feedFrameSchema.parse(JSON.parse(text)));
    expect(parsed[0]).toEqual({ type: 'connected', merchantId: 'm_"quoted"' });
    expect(parsed[3]).toEqual({
      type: 'price_changed',
      items: [
        { itemId: 5, price: 100 },
        { itemId: 6, price: 200 },
      ],
    });
    expect(Object.keys(parsed[4] as object)).toEqual([
      'type',
      'tradeId',
      'status',
      'externalId',
      'offerId',
      'failReason',
      'errorCode',
    ]);
  });

  it('merges consecutive events of one type and keeps the order across types', () => {
    const queue = new FrameQueue();
    queue.addItems('item_removed', [1]);
    queue.addItems('item_removed', [2, 3]);
    queue.addItems('price_changed', [{ itemId: 4, price: 1 }]);
    queue.addItems('item_removed', []);
    queue.addTrade('m', {
      tradeId: 't',
      status: 'PENDING',
      externalId: null,
      offerId: null,
      failReason: null,
      errorCode: null,
    });
    queue.addItems('item_removed', [5]);
    const frames = queue.take();
    expect(frames.map((f) => f.type)).toEqual(['item_removed', 'price_changed', 'trade_updated', 'item_removed']);
    expect(frames[0]).toMatchObject({ parts: [[1], [2, 3]], count: 3 });
    expect(queue.isEmpty).toBe(true);
  });

  it('cuts merged arrays into frames of at most MAX_ITEMS_PER_FRAME, in order', () => {
    const first = Array.from({ length: MAX_ITEMS_PER_FRAME - 1 }, (_, i) => i);
    const second = Array.from({ length: MAX_ITEMS_PER_FRAME + 5 }, (_, i) => MAX_ITEMS_PER_FRAME - 1 + i);
    const chunks = chunked([first, second], first.length + second.length);
    expect(chunks.map((c) => c.length)).toEqual([MAX_ITEMS_PER_FRAME, MAX_ITEMS_PER_FRAME, 4]);
    expect(chunks.flat()).toEqual([...first, ...second]);
    const single = [1, 2];
    expect(chunked([single], 2)[0]).toBe(single);
  });

  it('numbers the 8 reveal combinations', () => {
    const keys = new Set<number>();
    for (const steamId of [false, true])
      for (const inspectInGame of [false, true])
        for (const tradeUrl of [false, true]) keys.add(revealKey({ steamId, inspectInGame, tradeUrl }));
    expect([...keys].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
