/**
 * Incremental byte-level splitter of a list envelope: the catalog's `{"totalItems":N,"totalValue":V,"items":[{…},…],"lastUpdate":"…"}`
 * or the trade window's `{"trades":[{…},…],"total":N,…}` (EnvelopeShape). A 1M-item body (~560 MB) exceeds V8's longest
 * string, so each element of the array is handed over as a byte range. Fields outside the array are kept as a small
 * "skeleton" text, parsed at the end.
 */
import { StringDecoder } from 'node:string_decoder';

export class EnvelopeFormatError extends Error {
  override name = 'EnvelopeFormatError';
}

export interface EnvelopeFields {
  totalItems: number | null;
  totalValue: number | null;
  lastUpdate: string | null;
}

/** Which envelope: its array's key, how its elements usually start (the fast path), its name in errors, its count's key. */
export interface EnvelopeShape {
  key: string;
  elementStart: string;
  name: string;
  totalKey: string;
}

export const CATALOG_ENVELOPE: EnvelopeShape = {
  key: 'items',
  elementStart: '{"itemId":',
  name: 'the catalog',
  totalKey: 'totalItems',
};
export const TRADES_ENVELOPE: EnvelopeShape = {
  key: 'trades',
  elementStart: '{"tradeId":',
  name: 'the trade window',
  totalKey: 'total',
};

/** One element: bytes [start, end) of `bytes` (valid during the call); false if not one JSON value (then retried exactly, once). */
export type ElementSink = (bytes: Buffer, start: number, end: number) => boolean;

/** In the envelope before the items array, in it, after it (depth 0 there: past the envelope's closing brace). */
const enum Mode {
  Before,
  Items,
  After,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export const ITEM_START = Buffer.from(CATALOG_ENVELOPE.elementStart);
/** The skeleton and a fast-path element never need more: a longer skeleton is not an envelope's, a longer element is in another formatting. */
const MAX_PART_BYTES = 1 << 20;

/** Whether `bytes` holds `prefix` at `at`. A plain loop: `Buffer#compare` checks its five arguments each call (~0.2 µs, twice per item). */
export function bytesAt(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at < 0 || at + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

const numberOrNull = (value: unknown) => (typeof value === 'number' ? value : null);

export class ItemSplitter {
  /** Bytes not consumed yet (an element not handed over yet, or nothing); positions below are relative to it. */
  private pending: Buffer = Buffer.alloc(0);
  /** Next byte to scan, and the scanner's state there. */
  private pos = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private mode: Mode = Mode.Before;
  /** Start of the element being scanned exactly, or -1 between elements. */
  private elementStart = -1;
  /** A comma (or the array's start) was seen and no element followed yet. */
  private expectElement = true;
  /** The fast path is tried until it fails once (see scan). */
  private fast = true;
  /** Start of envelope bytes not yet in the skeleton, whose bytes may end inside a character. */
  private envStart = 0;
  private readonly decoder = new StringDecoder('utf8');
  private skeleton = '';
  private skeletonBytes = 0;
  private totalItemsEarly: number | null = null;
  private count = 0;
  private readonly start: Buffer;
  private readonly separator: Buffer;
  /** The array's key, as a whole string token (a key ending in `\"items` is another key). */
  private readonly arrayKey: RegExp;
  private readonly name: string;

  /**
   * @param bridgeBytes how much of a new chunk is joined to the previous one's leftover (a longer spanning element joins both whole)
   * @param shape the envelope (default: the catalog's)
   */
  constructor(
    private readonly onElement: ElementSink,
    private readonly bridgeBytes = 8192,
    private readonly shape: EnvelopeShape = CATALOG_ENVELOPE,
  ) {
    this.start = Buffer.from(shape.elementStart);
    this.separator = Buffer.from(`},${shape.elementStart}`);
    this.arrayKey = new RegExp(`[{,]\\s*"${shape.key}"\\s*:\\s*\\[$`);
    this.name = shape.name;
  }

  get received(): number {
    return this.count;
  }

  /** totalItems as soon as it was seen before the array (the usual order), else null. */
  get totalItems(): number | null {
    return this.totalItemsEarly;
  }

  push(chunk: Buffer): void {
    const left = this.pending.length;
    if (left > 0 && chunk.length > this.bridgeBytes) {
      // Join only the chunk's first bytes to the leftover (the spanning element ends there); the rest is scanned in
      // place: copying whole chunks behind the leftover cost a 500k sync ~280 MB of copies.
      this.pending = Buffer.concat([this.pending, chunk.subarray(0, this.bridgeBytes)]);
      this.scan(false);
      const keptFrom = left + this.bridgeBytes - this.pending.length;
      this.pending =
        keptFrom >= left
          ? chunk.subarray(keptFrom - left)
          : Buffer.concat([this.pending, chunk.subarray(this.bridgeBytes)]);
    } else {
      this.pending = left === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    }
    this.scan(false);
  }

  /** Call at the end of a catalog body: checks it was complete and returns the envelope's other fields. */
  end(): EnvelopeFields {
    const fields = this.endFields();
    const lastUpdate = fields['lastUpdate'];
    return {
      totalItems: numberOrNull(fields['totalItems']),
      totalValue: numberOrNull(fields['totalValue']),
      lastUpdate: typeof lastUpdate === 'string' ? lastUpdate : null,
    };
  }

  /** Call at the end of the body: checks it was complete and returns the envelope's fields outside the array. */
  endFields(): Record<string, unknown> {
    this.scan(true);
    if (this.mode !== Mode.After || this.depth !== 0) {
      throw new EnvelopeFormatError(
        this.mode === Mode.Before
          ? `${this.name} body has no "${this.shape.key}" array`
          : `${this.name} body ended early`,
      );
    }
    const fields = parseObject(this.skeleton + this.decoder.end());
    if (fields instanceof Error)
      throw new EnvelopeFormatError(`${this.name} envelope is not valid JSON (${fields.message})`);
    return fields;
  }

  /** Scans `pending` (but waits for more bytes to end a fast-path element), then drops what is consumed. */
  private scan(atEnd: boolean): void {
    const s = this.pending;
    const n = s.length;
    let i = this.pos;
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    bytes: for (; i < n; i++) {
      const c = s[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (depth === 2 && this.mode === Mode.Items) {
        if (this.elementStart >= 0) {
          // Only a scalar element is open at this depth (the consumer refuses any stray text in it).
          if (c !== COMMA && c !== CLOSE_BRACKET && c !== CLOSE_BRACE && !isSpace(c)) continue;
          this.emitExact(s, i);
        }
        if (isSpace(c)) continue;
        if (c === COMMA) {
          if (this.expectElement)
            throw new EnvelopeFormatError(
              `an empty element in the ${this.shape.key} array after ${this.count} elements`,
            );
          this.expectElement = true;
          continue;
        }
        if (c === CLOSE_BRACKET) {
          if (this.expectElement && this.count > 0)
            throw new EnvelopeFormatError(`a trailing comma in the ${this.shape.key} array`);
          [depth, this.mode, this.envStart] = [1, Mode.After, i];
          continue;
        }
        if (!this.expectElement)
          throw new EnvelopeFormatError(`a missing comma in the ${this.shape.key} array after ${this.count} elements`);
        this.expectElement = false;
        // Fast path: an element starting `{"itemId":` ends before the next `},{"itemId":` (in valid JSON only an object keyed
        // itemId first starts so, as a `"` in a string is escaped), which starts the next element the same way. A range
        // cut at a nested one is not one JSON value: once the consumer refuses one, every element is scanned exactly.
        while (this.fast && bytesAt(s, i, this.start)) {
          const found = s.indexOf(this.separator, i + this.start.length);
          if (found < 0 && !atEnd && n - i <= MAX_PART_BYTES) {
            this.expectElement = true;
            break bytes;
          }
          this.count += 1;
          if (found >= 0 && this.onElement(s, i, found + 1)) {
            i = found + 2;
            continue;
          }
          // The last element (its end is found exactly, with the array's close), other formatting, or a refused range.
          this.count -= 1;
          this.fast = false;
        }
        this.elementStart = i;
        if (c !== OPEN_BRACE && c !== OPEN_BRACKET && c !== QUOTE) continue;
      } else if (depth === 0 && this.mode === Mode.After) {
        if (!isSpace(c)) throw new EnvelopeFormatError(`unexpected text after ${this.name} body`);
        continue;
      }
      if (c === QUOTE) {
        inString = true;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        if (depth === 1 && c !== OPEN_BRACE) throw new EnvelopeFormatError(`${this.name} body is not a JSON object`);
        if (depth === 2 && c === OPEN_BRACKET && this.mode === Mode.Before) {
          this.addSkeleton(i + 1);
          if (this.arrayKey.test(this.skeleton)) {
            this.mode = Mode.Items;
            const head = parseObject(`${this.skeleton}]}`);
            this.totalItemsEarly = head instanceof Error ? null : numberOrNull(head[this.shape.totalKey]);
          }
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (this.mode === Mode.Items && depth === 2) this.emitExact(s, i + 1);
        else if (depth < 0) throw new EnvelopeFormatError(`unbalanced brackets in ${this.name} body`);
        else if (depth === 0 && this.mode === Mode.Before)
          throw new EnvelopeFormatError(`${this.name} body has no "${this.shape.key}" array`);
      }
    }
    [this.depth, this.inString, this.escaped] = [depth, inString, escaped];
    if (this.mode !== Mode.Items) this.addSkeleton(n);
    const keep = this.elementStart >= 0 ? this.elementStart : i;
    this.pending = s.subarray(keep);
    this.pos = i - keep;
    this.envStart = 0;
    if (this.elementStart >= 0) this.elementStart = 0;
  }

  private emitExact(bytes: Buffer, end: number): void {
    this.count += 1;
    if (!this.onElement(bytes, this.elementStart, end)) {
      throw new EnvelopeFormatError(`an element of ${this.name} is not valid JSON after ${this.count - 1} elements`);
    }
    this.elementStart = -1;
  }

  /** Moves envelope bytes up to `to` into the skeleton. */
  private addSkeleton(to: number): void {
    if (to <= this.envStart) return;
    this.skeletonBytes += to - this.envStart;
    if (this.skeletonBytes > MAX_PART_BYTES)
      throw new EnvelopeFormatError(`${this.name} envelope outside its "${this.shape.key}" array is over 1 MB`);
    this.skeleton += this.decoder.write(this.pending.subarray(this.envStart, to));
    this.envStart = to;
  }
}

function parseObject(text: string): Record<string, unknown> | Error {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    return error as Error;
  }
}
