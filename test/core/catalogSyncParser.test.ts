import { describe, expect, it } from 'vitest';
import { leadingItemId } from '../../src/main/core/catalog/download';
import { quickItemCheck } from '../../src/main/core/catalog/itemRows';
import { bytesAt } from '../../src/main/core/catalog/itemSplitter';
import { generateCatalog } from '../../src/server/catalog/generator';

describe('quickItemCheck', () => {
  const [good] = [...generateCatalog({ seed: 5, count: 1, imageBaseUrl: 'http://x/img' })];
  it('accepts a valid item and names what is wrong with a bad one', () => {
    expect(quickItemCheck(good)).toBeNull();
    expect(quickItemCheck(null)).toBe('not an object');
    expect(quickItemCheck({ ...good, itemId: -1 })).toMatch(/itemId/);
    expect(quickItemCheck({ ...good, price: 1.5 })).toMatch(/price/);
    expect(quickItemCheck({ ...good, market_hash_name: 5 })).toMatch(/market_hash_name/);
    expect(quickItemCheck({ ...good, float: 'x' })).toMatch(/float/);
    expect(quickItemCheck({ ...good, stickers: [{}] })).toMatch(/stickers/);
  });
});

describe('leadingItemId', () => {
  const at = (text: string) => {
    const bytes = Buffer.from(`xx${text}yy`);
    return leadingItemId(bytes, 2, bytes.length - 2);
  };
  it('reads the id of an item that starts with it, and only then', () => {
    expect(at('{"itemId":1000001,"assetId":"1"}')).toBe(1000001);
    expect(at('{"itemId":7}')).toBe(7);
    expect(at('{"assetId":"1","itemId":7}')).toBe(-1);
    expect(at('{ "itemId":7}')).toBe(-1);
    expect(at('{"itemId":-7}')).toBe(-1);
    expect(at('{"itemId":7.5}')).toBe(-1);
    expect(at('{"itemId":"7"}')).toBe(-1);
    expect(at('{"itemId":1234567890123456789}')).toBe(-1);
    expect(at('{"itemId":')).toBe(-1);
  });
});

describe('bytesAt', () => {
  const bytes = Buffer.from('ab{"itemId":12}');
  const prefix = Buffer.from('{"itemId":');
  it('finds a prefix at an offset, never past either end', () => {
    expect(bytesAt(bytes, 2, prefix)).toBe(true);
    expect(bytesAt(bytes, 1, prefix)).toBe(false);
    expect(bytesAt(bytes, 3, prefix)).toBe(false);
    expect(bytesAt(bytes.subarray(0, 11), 2, prefix)).toBe(false);
    expect(bytesAt(bytes, -1, prefix)).toBe(false);
    expect(bytesAt(bytes, bytes.length, Buffer.alloc(0))).toBe(true);
  });
});
