/**
 * Incremental byte-level splitter of the list envelope `{"totalItems":N,"totalValue":V,"items":[{…},…],"lastUpdate":"…"}`:
 * a 1M-item body (~560 MB) exceeds V8's longest string, so each element of `"items"` is handed over as a byte range.
 * Fast path: an element starting `{"itemId":` ends before the next `},{"itemId":` (in valid JSON only an object keyed itemId
 * first starts so, as a `"` in a string is escaped); the consumer refuses a range cut at a nested one, and an exact byte
 * state machine takes over. Fields outside the array are kept as a small "skeleton" text, parsed at the end.
 */

export class EnvelopeFormatError extends Error {
  override name = 'EnvelopeFormatError';
}

export interface EnvelopeFields {
  totalItems: number | null;
  totalValue: number | null;
  lastUpdate: string | null;
}

/** One element: bytes [start, end) of `bytes` (valid during the call); false if not one JSON value (then retried exactly, once). */
export type ElementSink = (bytes: Buffer, start: number, end: number) => boolean;

/** In the envelope before the items array, in it, after it, past the envelope's closing brace. */
const enum Mode {
  Before,
  Items,
  After,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export const ITEM_START = Buffer.from('{"itemId":');
const ITEM_SEPARATOR = Buffer.from('},{"itemId":');
const ITEMS_KEY = /"items"\s*:\s*$/;
/** The skeleton never needs more than this; a bigger one means this is not an envelope. */
const MAX_SKELETON_BYTES = 1 << 20;
/** A fast-path element longer than this means the separator is not there (other formatting): go exact. */
const MAX_FAST_ELEMENT_BYTES = 1 << 20;

/** Whether `bytes` holds `prefix` at `at`. A plain loop: `Buffer#compare` checks its five arguments each call (~0.2 µs, twice per item). */
export function bytesAt(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at < 0 || at + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export class ItemSplitter {
  /** Bytes not consumed yet; positions below are relative to its start. */
  private pending: Buffer = Buffer.alloc(0);
  /** Next byte of `pending` the exact scanner looks at. */
  private pos = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private mode: Mode = Mode.Before;
  /** Exact splitting inside the array (after a refused fast split, or for other shapes). */
  private exact = false;
  /** Envelope text outside the items array (the array itself reads `[]`). */
  private skeleton = '';
  private skeletonBytes = 0;
  /** Start of envelope bytes not yet moved to the skeleton. */
  private envStart = 0;
  /** Items mode: start of the current element, or -1 between elements. */
  private elementStart = -1;
  /** Items mode, exact: a separator was seen and no element followed yet. */
  private expectElement = true;
  private totalItemsEarly: number | null = null;
  private count = 0;

  /** @param bridgeBytes how much of a new chunk is joined to the previous one's leftover (a longer spanning element joins both whole) */
  constructor(
    private readonly onElement: ElementSink,
    private readonly bridgeBytes = 8192,
  ) {}

  get received(): number {
    return this.count;
  }

  /** totalItems as soon as it was seen before the array (the usual order), else null. */
  get totalItems(): number | null {
    return this.totalItemsEarly;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.pending.length === 0) {
      this.pending = chunk;
    } else if (chunk.length > this.bridgeBytes) {
      // Join only the chunk's first bytes to the leftover (the spanning element ends there); the rest is scanned in
      // place: copying whole chunks behind the leftover cost a 500k sync ~280 MB of copies.
      const left = this.pending.length;
      this.pending = Buffer.concat([this.pending, chunk.subarray(0, this.bridgeBytes)]);
      this.scan(false);
      this.compact();
      // What is kept starts this far into the joined bytes; positions are relative to it.
      const keptFrom = left + this.bridgeBytes - this.pending.length;
      this.pending = keptFrom >= left ? chunk.subarray(keptFrom - left) : Buffer.concat([this.pending, chunk.subarray(this.bridgeBytes)]);
    } else {
      this.pending = Buffer.concat([this.pending, chunk]);
    }
    this.scan(false);
    this.compact();
  }

  /** Call at the end of the body: checks it was complete and returns the envelope's other fields. */
  end(): EnvelopeFields {
    this.scan(true);
    if (this.mode !== Mode.Done) {
      throw new EnvelopeFormatError(this.mode === Mode.Before ? 'the catalog body has no "items" array' : 'the catalog body ended early');
    }
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(this.skeleton) as Record<string, unknown>;
    } catch (error) {
      throw new EnvelopeFormatError(`the catalog envelope is not valid JSON (${(error as Error).message})`);
    }
    return {
      totalItems: typeof fields['totalItems'] === 'number' ? fields['totalItems'] : null,
      totalValue: typeof fields['totalValue'] === 'number' ? fields['totalValue'] : null,
      lastUpdate: typeof fields['lastUpdate'] === 'string' ? fields['lastUpdate'] : null,
    };
  }

  private scan(atEnd: boolean): void {
    while (this.mode === Mode.Items && !this.exact) if (!this.fastItems(atEnd)) return;
    this.exactScan();
  }

  /** One fast-path step; false when nothing more can be done with the bytes at hand. */
  private fastItems(atEnd: boolean): boolean {
    const bytes = this.pending;
    let start = this.elementStart;
    if (start < 0) {
      // Between elements: skip blanks and at most one comma, then expect `{"itemId":`.
      let i = this.pos;
      while (i < bytes.length && isSpace(bytes[i] as number)) i++;
      if (i >= bytes.length) {
        this.pos = i;
        if (atEnd) this.goExact(i);
        return atEnd;
      }
      if (bytes.length - i < ITEM_START.length && !atEnd) {
        this.pos = i;
        return false;
      }
      if (!bytesAt(bytes, i, ITEM_START)) {
        this.goExact(i);
        return true;
      }
      start = i;
      this.elementStart = i;
      this.pos = i + 1;
    }
    const found = bytes.indexOf(ITEM_SEPARATOR, Math.max(this.pos, start + 1));
    if (found < 0) {
      if (atEnd || bytes.length - start > MAX_FAST_ELEMENT_BYTES) {
        // The last element (its end is found exactly, with the array's close), or other formatting.
        this.goExact(start);
        return true;
      }
      this.pos = Math.max(start + 1, bytes.length - ITEM_SEPARATOR.length + 1);
      return false;
    }
    const end = found + 1;
    this.count += 1;
    if (!this.onElement(bytes, start, end)) {
      this.count -= 1;
      this.goExact(start);
      return true;
    }
    // The next element starts at the `{` after the comma.
    this.elementStart = -1;
    this.pos = end + 1;
    this.expectElement = true;
    return true;
  }

  /** Continue byte by byte from `at`, at an element start (or before the next one) inside the array. */
  private goExact(at: number): void {
    this.exact = true;
    this.pos = at;
    this.elementStart = -1;
    this.depth = 2;
    this.inString = false;
    this.escaped = false;
  }

  private exactScan(): void {
    const s = this.pending;
    const n = s.length;
    let i = this.pos;
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    for (; i < n; i++) {
      const c = s[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      const mode = this.mode;
      if (mode === Mode.Done) {
        if (!isSpace(c)) throw new EnvelopeFormatError('unexpected text after the catalog body');
        continue;
      }
      if (mode === Mode.Items && depth === 2 && this.elementStart < 0) {
        if (isSpace(c)) continue;
        if (c === COMMA) {
          if (this.expectElement) throw new EnvelopeFormatError(`an empty element in the items array after ${this.count} items`);
          this.expectElement = true;
          continue;
        }
        if (c === CLOSE_BRACKET) {
          if (this.expectElement && this.count > 0) throw new EnvelopeFormatError('a trailing comma in the items array');
          depth = 1;
          this.mode = Mode.After;
          this.envStart = i;
          continue;
        }
        if (!this.expectElement) throw new EnvelopeFormatError(`a missing comma in the items array after ${this.count} items`);
        this.elementStart = i;
        this.expectElement = false;
        // Scalars are elements too (they end at the next comma or bracket); the consumer refuses them.
        if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
          if (c === QUOTE) inString = true;
          continue;
        }
      }
      if (c === QUOTE) {
        inString = true;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        if (depth === 1 && c !== OPEN_BRACE) throw new EnvelopeFormatError('the catalog body is not a JSON object');
        if (depth === 2 && c === OPEN_BRACKET && mode === Mode.Before) {
          this.addSkeleton(s, this.envStart, i);
          if (ITEMS_KEY.test(this.skeleton)) {
            this.skeleton += '[';
            this.mode = Mode.Items;
            this.elementStart = -1;
            this.expectElement = true;
            this.totalItemsEarly = readTotalItems(this.skeleton);
            this.envStart = i + 1;
            if (!this.exact) {
              this.pos = i + 1;
              this.depth = depth;
              this.inString = false;
              this.escaped = false;
              this.scan(false);
              return;
            }
          } else {
            this.envStart = i;
          }
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth < 0) throw new EnvelopeFormatError('unbalanced brackets in the catalog body');
        if (mode === Mode.Items && depth === 2 && this.elementStart >= 0) {
          this.emitExact(s, this.elementStart, i + 1);
          this.elementStart = -1;
        } else if (mode === Mode.Items && depth < 2) {
          throw new EnvelopeFormatError('unbalanced brackets in the items array');
        } else if (depth === 0) {
          if (mode !== Mode.After) throw new EnvelopeFormatError('the catalog body has no "items" array');
          this.addSkeleton(s, this.envStart, i + 1);
          this.mode = Mode.Done;
          this.envStart = i + 1;
        }
      } else if (mode === Mode.Items && depth === 2 && this.elementStart >= 0 && (c === COMMA || isSpace(c))) {
        // The end of a scalar element.
        this.emitExact(s, this.elementStart, i);
        this.elementStart = -1;
        if (c === COMMA) this.expectElement = true;
      }
    }
    this.pos = i;
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
  }

  private emitExact(bytes: Buffer, start: number, end: number): void {
    this.count += 1;
    if (!this.onElement(bytes, start, end)) {
      throw new EnvelopeFormatError(`an item of the catalog is not valid JSON after ${this.count - 1} items`);
    }
  }

  private addSkeleton(bytes: Buffer, from: number, to: number): void {
    if (to <= from) return;
    this.skeletonBytes += to - from;
    if (this.skeletonBytes > MAX_SKELETON_BYTES) throw new EnvelopeFormatError('the catalog body has no "items" array near its start');
    this.skeleton += bytes.toString('utf8', from, to);
  }

  /** Drops consumed bytes, keeping the current element (or envelope text not yet in the skeleton). */
  private compact(): void {
    if (this.mode === Mode.Before || this.mode === Mode.After) {
      // Envelope bytes may end inside a multi-byte character: keep a partial one for the next chunk.
      let cut = this.pending.length;
      while (cut > this.envStart && cut > this.pending.length - 4 && ((this.pending[cut - 1] as number) & 0xc0) === 0x80) cut--;
      if (cut > this.envStart && ((this.pending[cut - 1] as number) & 0x80) !== 0) cut--;
      this.addSkeleton(this.pending, this.envStart, cut);
      this.envStart = cut;
    }
    const keep = this.mode !== Mode.Items ? Math.min(this.envStart, this.pos) : this.elementStart >= 0 ? this.elementStart : this.pos;
    if (keep <= 0) return;
    this.pending = keep >= this.pending.length ? Buffer.alloc(0) : this.pending.subarray(keep);
    this.pos -= keep;
    this.envStart = Math.max(0, this.envStart - keep);
    if (this.elementStart >= 0) this.elementStart -= keep;
  }
}

function readTotalItems(skeletonWithOpenArray: string): number | null {
  try {
    const head = JSON.parse(`${skeletonWithOpenArray}]}`) as Record<string, unknown>;
    return typeof head['totalItems'] === 'number' ? head['totalItems'] : null;
  } catch {
    return null;
  }
}
