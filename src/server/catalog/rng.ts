/**
 * Seeded pseudo-random numbers for the catalog generator: sfc32 seeded through
 * splitmix32. The generator never calls Math.random, so one seed always gives
 * the same catalog.
 */

const TWO_POW_32 = 4_294_967_296;

/** 32-bit FNV-1a over UTF-16 code units, finished with a murmur3 mix. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** Combines two 32-bit values into one well-mixed 32-bit value. */
export function mix32(a: number, b: number): number {
  return (fmix32((a ^ Math.imul(b >>> 0, 0x9e3779b9) ^ (b >>> 16)) >>> 0) ^ fmix32(b + 0x7f4a7c15)) >>> 0;
}

/** A float in [0, 1) from a 32-bit hash. */
export function unitOf(hash: number): number {
  return (hash >>> 0) / TWO_POW_32;
}

function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The n-th output of a splitmix32 stream started at state s. */
function splitmix32(s: number, n: number): number {
  let z = (s + Math.imul(n, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}

/** Folds any finite number (also beyond 32 bits) into a 32-bit seed. */
export function seed32(seed: number): number {
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  const whole = Math.trunc(seed);
  const low = whole >>> 0;
  const high = Math.floor(whole / TWO_POW_32) >>> 0;
  return high === 0 ? low : mix32(low, high);
}

export class Rng {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  constructor(seed: number) {
    this.reseed(seed);
  }

  /** Restarts the stream as if newly constructed with this seed (no allocation). */
  reseed(seed: number): this {
    const s = seed32(seed);
    this.a = splitmix32(s, 1);
    this.b = splitmix32(s, 2);
    this.c = splitmix32(s, 3);
    this.d = splitmix32(s, 4);
    this.d = (this.d | 1) >>> 0;
    for (let i = 0; i < 12; i++) this.uint32();
    return this;
  }

  /** The next 32-bit unsigned integer (sfc32). */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / TWO_POW_32;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
      throw new RangeError(`int(${min}, ${max}): need integers with min <= max`);
    }
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A float in [min, max). */
  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty array');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /**
   * An independent stream derived from this stream's current state and the
   * label. Does not advance this stream: the same label at the same point
   * gives the same sub-stream.
   */
  fork(label: string): Rng {
    const h = hashString(label, mix32(mix32(this.a, this.b), mix32(this.c, this.d)));
    return new Rng(h);
  }
}
