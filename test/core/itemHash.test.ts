/**
 * The item hash a sync compares to skip unchanged items: the same for a text and
 * its bytes, for a range inside a larger buffer, and different for any change.
 */
import { describe, expect, it } from 'vitest';
import { hashBytes, hashJson } from '../../src/main/core/store/worker/rows';
import { generateCatalog } from '../../src/server/catalog/generator';

const items = [...generateCatalog({ seed: 21, count: 3000, imageBaseUrl: 'http://sandbox.invalid/img' })].map((item) => JSON.stringify(item));

describe('hashJson / hashBytes', () => {
  it('hashes a text, its UTF-8 bytes and the same bytes inside a larger buffer alike', () => {
    const text = '{"itemId":7,"market_hash_name":"★ Karambit | Doppler (Factory New)","phase":"Ruby","price":123456}';
    const bytes = Buffer.from(text, 'utf8');
    const padded = Buffer.concat([Buffer.from('[{"x":1},'), bytes, Buffer.from(',{"y":2}]')]);
    const start = padded.indexOf(bytes);
    expect(hashJson(text)).toBe(hashJson(bytes));
    expect(hashBytes(padded, start, start + bytes.length)).toBe(hashJson(text));
    // Every tail length (0–3 bytes past the last whole word) is covered by the range.
    for (let cut = 1; cut <= 4; cut++) expect(hashBytes(padded, start, start + bytes.length - cut)).toBe(hashJson(bytes.subarray(0, bytes.length - cut)));
  });

  it('is a non-negative integer below 2^53', () => {
    for (const text of ['', 'a', ...items.slice(0, 200)]) {
      const hash = hashJson(text);
      expect(Number.isSafeInteger(hash)).toBe(true);
      expect(hash).toBeGreaterThanOrEqual(0);
    }
  });

  it('changes with any one byte, with two bytes swapped, with a byte more or less', () => {
    const bytes = Buffer.from(items[0] as string, 'utf8');
    const original = hashJson(bytes);
    const seen = new Set<number>([original]);
    for (let i = 0; i < bytes.length; i++) {
      const edited = Buffer.from(bytes);
      edited[i] = ((edited[i] as number) + 1) & 0xff;
      seen.add(hashJson(edited));
      if (i + 1 < bytes.length && bytes[i] !== bytes[i + 1]) {
        const swapped = Buffer.from(bytes);
        swapped[i] = bytes[i + 1] as number;
        swapped[i + 1] = bytes[i] as number;
        expect(hashJson(swapped)).not.toBe(original);
      }
    }
    // Each of the one-byte edits hashed to its own value.
    expect(seen.size).toBe(bytes.length + 1);
    expect(hashJson(bytes.subarray(0, bytes.length - 1))).not.toBe(original);
    expect(hashJson(Buffer.concat([bytes, Buffer.from(' ')]))).not.toBe(original);
  });

  it('tells 3,000 catalog items and their repricings apart', () => {
    const hashes = new Set(items.map((text) => hashJson(text)));
    const repriced = items.map((text) => text.replace(/"price":(\d+)/, (_match, price: string) => `"price":${Number(price) + 1}`));
    for (const text of repriced) hashes.add(hashJson(text));
    expect(hashes.size).toBe(items.length * 2);
  });
});
