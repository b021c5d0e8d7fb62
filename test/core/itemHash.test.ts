/**
 * The item hash a sync compares to skip unchanged items: the same for a text and
 * its bytes, for a range inside a larger buffer, and different for any change.
 */
import { describe, expect, it } from 'vitest';
import { hashBytes, hashJson } from '../../src/main/core/catalog/itemRows';
import { generateCatalog } from '../../src/server/catalog/generator';

const items = [...generateCatalog({ seed: 21, count: 3000, imageBaseUrl: 'http://sandbox.invalid/img' })].map((item) =>
  JSON.stringify(item),
);

/** The hash as stored by every earlier version (byte by byte): stored hashes must stay valid. */
function storedHash(bytes: Uint8Array): number {
  const mix = (h: number) => {
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return h ^ (h >>> 16);
  };
  let h1 = 0x9747b28c ^ bytes.length;
  let h2 = 0x85ebca6b ^ bytes.length;
  let i = 0;
  for (; i + 4 <= bytes.length; i += 4) {
    const word =
      (bytes[i] as number) |
      ((bytes[i + 1] as number) << 8) |
      ((bytes[i + 2] as number) << 16) |
      ((bytes[i + 3] as number) << 24);
    let k1 = Math.imul(word, 0xcc9e2d51);
    k1 = Math.imul((k1 << 15) | (k1 >>> 17), 0x1b873593);
    h1 ^= k1;
    h1 = (Math.imul((h1 << 13) | (h1 >>> 19), 5) + 0xe6546b64) | 0;
    let k2 = Math.imul(word, 0x85ebca77);
    k2 = Math.imul((k2 << 13) | (k2 >>> 19), 0xc2b2ae3d);
    h2 ^= k2;
    h2 = (Math.imul((h2 << 17) | (h2 >>> 15), 5) + 0x561ccd1b) | 0;
  }
  let tail = 0;
  for (let j = bytes.length - 1; j >= i; j--) tail = (tail << 8) | (bytes[j] as number);
  const t1 = Math.imul(tail, 0xcc9e2d51);
  h1 ^= Math.imul((t1 << 15) | (t1 >>> 17), 0x1b873593);
  const t2 = Math.imul(tail, 0x85ebca77);
  h2 ^= Math.imul((t2 << 13) | (t2 >>> 19), 0xc2b2ae3d);
  return (mix(h1) >>> 0) * 0x200000 + (mix(h2) >>> 11);
}

describe('hashJson / hashBytes', () => {
  it('gives the hashes stored so far, at any offset in any buffer (word loads, any alignment)', () => {
    const texts = items.slice(0, 50);
    for (const text of texts) {
      const bytes = Buffer.from(text, 'utf8');
      const expected = storedHash(bytes);
      expect(hashJson(text)).toBe(expected);
      for (let offset = 1; offset <= 8; offset++) {
        // A fresh ArrayBuffer per offset (not Node's pool), and a view of it that starts one byte in.
        const outer = new Uint8Array(new ArrayBuffer(bytes.length + 16));
        outer.set(bytes, offset);
        expect(hashBytes(outer, offset, offset + bytes.length)).toBe(expected);
        expect(hashBytes(outer.subarray(1), offset - 1, offset - 1 + bytes.length)).toBe(expected);
      }
    }
    // Alternating between two buffers (the cached view follows the buffer).
    const a = Buffer.from(texts[0] as string);
    const b = Buffer.from(texts[1] as string);
    for (let round = 0; round < 3; round++) {
      expect(hashBytes(a, 0, a.length)).toBe(storedHash(a));
      expect(hashBytes(b, 0, b.length)).toBe(storedHash(b));
    }
  });

  it('hashes a text, its UTF-8 bytes and the same bytes inside a larger buffer alike', () => {
    const text = '{"itemId":7,"market_hash_name":"★ Karambit | Doppler (Factory New)","phase":"Ruby","price":123456}';
    const bytes = Buffer.from(text, 'utf8');
    const padded = Buffer.concat([Buffer.from('[{"x":1},'), bytes, Buffer.from(',{"y":2}]')]);
    const start = padded.indexOf(bytes);
    expect(hashJson(text)).toBe(hashJson(bytes));
    expect(hashBytes(padded, start, start + bytes.length)).toBe(hashJson(text));
    // Every tail length (0–3 bytes past the last whole word) is covered by the range.
    for (let cut = 1; cut <= 4; cut++)
      expect(hashBytes(padded, start, start + bytes.length - cut)).toBe(
        hashJson(bytes.subarray(0, bytes.length - cut)),
      );
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
    const repriced = items.map((text) =>
      text.replace(/"price":(\d+)/, (_match, price: string) => `"price":${Number(price) + 1}`),
    );
    for (const text of repriced) hashes.add(hashJson(text));
    expect(hashes.size).toBe(items.length * 2);
  });
});
