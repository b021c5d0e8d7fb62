/**
 * Incremental parser of the on-sale list envelope
 * `{"totalItems":N,"totalValue":V,"items":[{…},{…}],"lastUpdate":"…"}`.
 *
 * The body of a 1M-item catalog is ~760 MB of JSON, more than V8's longest
 * string, so it is never held whole: text is fed chunk by chunk, a small
 * state machine (string / escape state and bracket depth) finds the top-level
 * `"items"` array and the commas between its elements, and each run of
 * complete elements is handed to `JSON.parse` as one `[…]` batch. Everything
 * outside the array (totals, lastUpdate, any field a newer server adds) is
 * kept as a small "skeleton" text and parsed at the end, so the fields may come
 * before or after the array.
 */

export class EnvelopeFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvelopeFormatError';
  }
}

export interface EnvelopeFields {
  totalItems: number | null;
  totalValue: number | null;
  lastUpdate: string | null;
}

const enum Mode {
  /** Inside the envelope, before the items array. */
  Before,
  /** Inside the items array. */
  Items,
  /** Inside the envelope, after the items array. */
  After,
  /** The envelope's closing brace was seen. */
  Done,
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

const ITEMS_KEY = /"items"\s*:\s*$/;
/** The skeleton never needs more than this; a bigger one means this is not an envelope. */
const MAX_SKELETON_CHARS = 1 << 20;

export class EnvelopeParser {
  private buf = '';
  /** Next index of `buf` to scan. */
  private pos = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private mode: Mode = Mode.Before;
  /** Envelope text outside the items array (the array itself reads `[]`). */
  private skeleton = '';
  /** Start in `buf` of envelope text not yet moved to the skeleton. */
  private envStart = 0;
  /** Start in `buf` of array elements not yet parsed. */
  private segStart = 0;
  /** Last comma between two array elements in `buf`, or -1. */
  private lastSep = -1;
  private totalItemsEarly: number | null = null;
  private itemCount = 0;

  /** `onItems` receives each batch of parsed elements, in order. */
  constructor(private readonly onItems: (items: unknown[]) => void) {}

  /** Elements parsed so far. */
  get received(): number {
    return this.itemCount;
  }

  /** totalItems as soon as it was seen before the array (the usual order), else null. */
  get totalItems(): number | null {
    return this.totalItemsEarly;
  }

  push(chunk: string): void {
    if (chunk.length === 0) return;
    // Positions are relative to the start of `buf`, so prepending it keeps them valid.
    const s = this.buf.length === 0 ? chunk : this.buf + chunk;
    const n = s.length;
    let i = this.pos;
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    let mode = this.mode;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (c === QUOTE) {
        if (mode === Mode.Done) throw new EnvelopeFormatError('unexpected text after the catalog body');
        inString = true;
      } else if (c === COMMA) {
        if (depth === 2 && mode === Mode.Items) this.lastSep = i;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (mode === Mode.Done) throw new EnvelopeFormatError('unexpected text after the catalog body');
        depth++;
        if (depth === 1 && c !== OPEN_BRACE) throw new EnvelopeFormatError('the catalog body is not a JSON object');
        if (depth === 2 && c === OPEN_BRACKET && mode === Mode.Before) {
          const before = this.skeleton + s.slice(this.envStart, i);
          if (ITEMS_KEY.test(before)) {
            this.skeleton = before + '[';
            mode = Mode.Items;
            this.segStart = i + 1;
            this.lastSep = -1;
            this.totalItemsEarly = readTotalItems(this.skeleton);
          }
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth < 0) throw new EnvelopeFormatError('unbalanced brackets in the catalog body');
        if (depth === 1 && mode === Mode.Items) {
          // The items array closes: parse what is left of it.
          if (c !== CLOSE_BRACKET) throw new EnvelopeFormatError('unbalanced brackets in the items array');
          this.emit(s.slice(this.segStart, i), true);
          mode = Mode.After;
          this.envStart = i;
        } else if (depth === 0) {
          if (mode !== Mode.After) throw new EnvelopeFormatError('the catalog body has no "items" array');
          this.skeleton += s.slice(this.envStart, i + 1);
          mode = Mode.Done;
          this.envStart = i + 1;
        }
      } else if (mode === Mode.Done && c > 32) {
        throw new EnvelopeFormatError('unexpected text after the catalog body');
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.mode = mode;

    if (mode === Mode.Items && this.lastSep > this.segStart) {
      this.emit(s.slice(this.segStart, this.lastSep), false);
      this.segStart = this.lastSep + 1;
    }
    // Keep only what is not consumed yet.
    let keep: number;
    if (mode === Mode.Items) {
      keep = this.segStart;
    } else {
      if (mode !== Mode.Done) this.skeleton += s.slice(this.envStart, n);
      if (this.skeleton.length > MAX_SKELETON_CHARS) throw new EnvelopeFormatError('the catalog body has no "items" array near its start');
      keep = n;
      this.envStart = n;
    }
    this.buf = keep === n ? '' : s.slice(keep);
    this.pos = n - keep;
    this.envStart -= keep;
    this.segStart -= keep;
    this.lastSep = this.lastSep >= keep ? this.lastSep - keep : -1;
  }

  /** Call at the end of the body: checks it was complete and returns the envelope's other fields. */
  end(): EnvelopeFields {
    if (this.mode !== Mode.Done) {
      throw new EnvelopeFormatError(this.mode === Mode.Before ? 'the catalog body has no "items" array' : 'the catalog body ended early');
    }
    let envelope: unknown;
    try {
      envelope = JSON.parse(this.skeleton);
    } catch (error) {
      throw new EnvelopeFormatError(`the catalog envelope is not valid JSON (${(error as Error).message})`);
    }
    const fields = envelope as Record<string, unknown>;
    return {
      totalItems: typeof fields['totalItems'] === 'number' ? fields['totalItems'] : null,
      totalValue: typeof fields['totalValue'] === 'number' ? fields['totalValue'] : null,
      lastUpdate: typeof fields['lastUpdate'] === 'string' ? fields['lastUpdate'] : null,
    };
  }

  private emit(region: string, last: boolean): void {
    if (last && region.trim() === '') return;
    let items: unknown;
    try {
      items = JSON.parse(`[${region}]`);
    } catch (error) {
      throw new EnvelopeFormatError(`an item of the catalog is not valid JSON (${(error as Error).message}) after ${this.itemCount} items`);
    }
    const list = items as unknown[];
    this.itemCount += list.length;
    if (list.length > 0) this.onItems(list);
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
