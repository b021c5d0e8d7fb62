/**
 * One gzip stream assembled from separately compressed, cacheable segments (the
 * pigz technique). Each segment is raw deflate ending in a sync flush: byte-aligned
 * and never final, so segments concatenate into one deflate stream; the gzip
 * trailer's CRC-32 is combined from the segments' own CRCs (zlib's crc32_combine).
 * The result is a single-member gzip body, which every client decodes (browsers
 * and curl stop after the first member of a multi-member one).
 */
import zlib from 'node:zlib';

export interface GzipSegment {
  /** Raw deflate, sync-flushed. */
  deflated: Buffer;
  crc: number;
  /** Uncompressed bytes. */
  length: number;
}

/** Level 1: the catalog is large and mostly served from cache; speed matters more than 20% size. */
const SEGMENT_OPTIONS: zlib.ZlibOptions = { level: 1, finishFlush: zlib.constants.Z_SYNC_FLUSH };

export function segmentOf(text: string | Buffer): GzipSegment {
  const raw = typeof text === 'string' ? Buffer.from(text) : text;
  return { deflated: zlib.deflateRawSync(raw, SEGMENT_OPTIONS), crc: zlib.crc32(raw), length: raw.length };
}

export function segmentOfAsync(text: string): Promise<GzipSegment> {
  const raw = Buffer.from(text);
  return new Promise((resolve, reject) =>
    zlib.deflateRaw(raw, SEGMENT_OPTIONS, (error, deflated) =>
      error ? reject(error) : resolve({ deflated, crc: zlib.crc32(raw), length: raw.length }),
    ),
  );
}

/** gzip header: deflate, no flags, no mtime, OS unknown. */
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty final fixed-Huffman block: ends the deflate stream. */
const FINAL_BLOCK = Buffer.from([3, 0]);

/** The trailer after every segment: final block, CRC-32 and length of all the uncompressed data. */
export function gzipTrailer(crc: number, length: number): Buffer {
  const out = Buffer.alloc(10);
  FINAL_BLOCK.copy(out, 0);
  out.writeUInt32LE(crc >>> 0, 2);
  out.writeUInt32LE(length % 2 ** 32, 6);
  return out;
}

// ---- crc32_combine (zlib, crc32.c): CRC of A‖B from crc(A), crc(B) and len(B), by GF(2) matrices.

function gf2Times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i] as number;
  return sum >>> 0;
}

function gf2Square(square: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(mat, mat[n] as number);
}

export function crc32Combine(crc1: number, crc2: number, len2: number): number {
  if (len2 <= 0) return crc1 >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320; // the CRC-32 polynomial: operator for one zero bit
  let row = 1;
  for (let n = 1; n < 32; n++) {
    odd[n] = row;
    row <<= 1;
  }
  gf2Square(even, odd); // two zero bits
  gf2Square(odd, even); // four zero bits
  let c1 = crc1 >>> 0;
  let len = len2;
  do {
    gf2Square(even, odd);
    if (len % 2 === 1) c1 = gf2Times(even, c1);
    len = Math.floor(len / 2);
    if (len === 0) break;
    gf2Square(odd, even);
    if (len % 2 === 1) c1 = gf2Times(odd, c1);
    len = Math.floor(len / 2);
  } while (len !== 0);
  return (c1 ^ crc2) >>> 0;
}
