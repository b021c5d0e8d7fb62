/**
 * A reader's copy of the columns it filters and sorts on: one typed array per column, one slot per item ever held
 * (off sale keeps its slot). Each refresh patches in the rows whose `version` is above the last one read.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { CHARM_PATTERN_MAX } from '../../../shared/filters';
import { CACHE_ID_KEY, catalogVersion } from '../store/schema';
import { NAME_LIST_SEPARATOR } from './itemRows';
import { columnsOf, growColumns, isColumns, sortedIndexOf } from './columns';
import { Markets } from './markets';
import { SlotLists, type SavedLists } from './slotLists';
import type { Db } from '../store/worker/open';
import { readInOne } from '../store/worker/readInOne';

/** Lower-casing of ASCII letters only (what the catalog's search ignores; other letters match as written). */
export function asciiLower(text: string): string {
  // eslint-disable-next-line no-control-regex -- the ASCII range itself
  return /[^\x00-\x7f]/.test(text) ? text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : text.toLowerCase();
}

/** A row as the snapshot reads it: flags packed (STAT_TRAK, SOUVENIR, ON_SALE), no sticker names as null (fewer values to cross). */
type ItemRecord = [
  itemId: number,
  nameId: number,
  price: number,
  float: number | null,
  paintSeed: number | null,
  phase: string | null,
  rarity: number | null,
  flags: number,
  stickerCount: number,
  keyChainCount: number,
  stickerNames: string | null,
  charmNames: string | null,
  charmPatterns: string | null,
  listedAt: number,
  removedAt: number | null,
  version: number,
];

const ROW_SELECT =
  'SELECT itemId, name_id, price, float, paintSeed, phase, rarity, statTrak | (souvenir << 1) | ((removed_at IS NULL) << 2), stickerCount, keyChainCount, ' +
  "nullif(stickerNames, ''), nullif(keyChainNames, ''), nullif(keyChainPatterns, ''), listed_at, removed_at, version FROM items";
/** More changed rows than this share of the table: read them in id order rather than through the version index. */
const SCAN_SHARE = 0.1;
/**
 * The rows a refresh reads and patches at a time: one step of the timer's refresh (~25 ms at 2,000; a first sync's
 * 20,000 items in one step held every read of the thread ~300–800 ms). Small enough that the store model test's
 * 3,000-item profile reads in chunks.
 */
const SCAN_CHUNK = 2_000;
/** The layout of a saved snapshot (CatalogSnapshot.saved); a file of another is not read. */
const SAVED_FORMAT = 7;
/** Older saved snapshots are not read: rows the sync's retention drops (a week off sale) leave no version to patch from. */
const SAVED_MAX_AGE_MS = 5 * 24 * 3600_000;

/** A refresh in progress: the rows with a version in (since, upTo], read in chunks after the last row read. */
interface PendingRefresh {
  since: number;
  upTo: number;
  /** In id order (most rows changed) or in version order (through the index). */
  scan: boolean;
  /** The last row read (null: none yet). */
  afterId: number | null;
  afterVersion: number;
}

const isCharmPattern = (value: number) => Number.isInteger(value) && value >= 0 && value <= CHARM_PATTERN_MAX;
/** The snapshot's columns by slot, each with its array type: `grow` lengthens them, a saved snapshot holds them. */
const SLOT_COLUMNS = {
  itemId: Float64Array,
  onSale: Uint8Array,
  price: Float64Array,
  float: Float64Array,
  seed: Float64Array,
  phase: Int32Array,
  rarity: Int8Array,
  flags: Uint8Array,
  stickers: Float64Array,
  charms: Float64Array,
  listedAt: Float64Array,
  nameId: Int32Array,
  sameStickers: Float64Array,
  removedAt: Float64Array,
};

export const STAT_TRAK = 1;
export const SOUVENIR = 2;
const ON_SALE = 4;

/** Lists of names per slot (an item's stickers), each name kept once and named by a number. */
class NameLists {
  private readonly ids: Map<string, number>;

  constructor(
    /** By id: the name ASCII-lowered. */
    readonly names: string[] = [],
    /** By slot: the ids of its names. */
    readonly bySlot = new SlotLists(),
  ) {
    this.ids = new Map(names.map((name, id) => [name, id]));
  }

  saved(): { names: string[]; lists: SavedLists } {
    return { names: this.names, lists: this.bySlot.saved() };
  }

  /** Sets a slot's names; returns their ids. */
  set(slot: number, joined: string | null): number[] {
    const ids = joined === null ? [] : joined.split(NAME_LIST_SEPARATOR).map((name) => this.idOf(asciiLower(name)));
    this.bySlot.set(slot, ids);
    return ids;
  }

  private idOf(lower: string): number {
    let id = this.ids.get(lower);
    if (id === undefined) {
      id = this.names.push(lower) - 1;
      this.ids.set(lower, id);
    }
    return id;
  }

  /** By id: 1 for the names that hold `text`. */
  holding(text: string): Uint8Array {
    const wanted = new Uint8Array(this.names.length);
    this.names.forEach((name, id) => (wanted[id] = name.includes(text) ? 1 : 0));
    return wanted;
  }
}

export class CatalogSnapshot {
  size = 0;
  itemId = new Float64Array(0);
  onSale = new Uint8Array(0);
  price = new Float64Array(0);
  /** NaN: none (so no bound matches it). */
  float = new Float64Array(0);
  seed = new Float64Array(0);
  /** Index into `phases`, or -1. */
  phase = new Int32Array(0);
  /** Rank in RARITY_COLORS, or -1. */
  rarity = new Int8Array(0);
  flags = new Uint8Array(0);
  stickers = new Float64Array(0);
  charms = new Float64Array(0);
  listedAt = new Float64Array(0);
  nameId = new Int32Array(0);
  readonly stickerNames = new NameLists();
  /** The most stickers of one name on an item ("4× the same"). */
  sameStickers = new Float64Array(0);
  readonly charmNames = new NameLists();
  readonly charmPatterns = new SlotLists();
  /** When it left sale (NaN: on sale). */
  removedAt = new Float64Array(0);
  readonly markets = new Markets();
  /** By name_id: the name ASCII-lowered (search), and its rank in name order (sort). */
  readonly names: string[] = [];
  /** By name_id: the name as written. */
  readonly written: string[] = [];
  nameRank = new Int32Array(0);
  readonly phases: string[] = [];
  phaseRank = new Int32Array(0);
  onSaleCount = 0;
  onSaleValue = 0;
  /** Changes whenever a refresh changed a row: what cached sort keys and orders are valid for. */
  generation = 0;
  /** Slots [0, sortedSlots) hold ascending itemIds (found by binary search); slots added out of order are in laterSlots. */
  private sortedSlots = 0;
  private readonly laterSlots = new Map<number, number>();
  private readonly phaseCode = new Map<string, number>();
  private version = 0;
  private dataVersion = -1;
  /** A refresh read in steps, not finished yet. */
  private pending: PendingRefresh | null = null;
  private readonly statements;

  constructor(private readonly db: Db) {
    this.statements = {
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      changedCount: db.prepare<[number], number>('SELECT count(*) FROM items WHERE version > ?').pluck(),
      total: db.prepare<[], number>('SELECT count(*) FROM items').pluck(),
      highestVersion: db.prepare<[], number>('SELECT max(version) FROM items').pluck(),
      // A chunk in version order is the rest of one version, then the next versions: SQLite seeks `version = ? AND
      // itemId > ?` in the index, where a row value `(version, itemId) > (?, ?)` would walk every entry before it.
      byIndexSameVersion: db
        .prepare<[number, number], ItemRecord>(
          `${ROW_SELECT} WHERE version = ? AND itemId > ? ORDER BY itemId LIMIT ${SCAN_CHUNK}`,
        )
        .raw(),
      byIndex: db
        .prepare<[number, number, number], ItemRecord>(
          `${ROW_SELECT} WHERE version > ? AND version <= ? ORDER BY version, itemId LIMIT ?`,
        )
        .raw(),
      byScan: db
        .prepare<[number, number, number], ItemRecord>(
          `${ROW_SELECT} NOT INDEXED WHERE itemId > ? AND version > ? AND version <= ? ORDER BY itemId LIMIT ${SCAN_CHUNK}`,
        )
        .raw(),
      names: db
        .prepare<[number], [number, string]>('SELECT name_id, name FROM names WHERE name_id > ? ORDER BY name_id')
        .raw(),
      cacheId: db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck(),
    };
  }

  /** Saves the snapshot to `file` (written then renamed), so the next start patches it instead of reading every row (~1 s at 500k). */
  save(file: string): void {
    writeFileSync(`${file}.tmp`, serialize(this.saved()), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  }

  /** What a saved snapshot holds (SAVED_FORMAT): every part by name, so that a field added to the classes changes no file. */
  private saved() {
    return {
      format: SAVED_FORMAT,
      cacheId: this.statements.cacheId.get(CACHE_ID_KEY),
      savedAt: Date.now(),
      /** Every row up to this catalog version is in. */
      version: this.version,
      size: this.size,
      sortedSlots: this.sortedSlots,
      onSaleCount: this.onSaleCount,
      onSaleValue: this.onSaleValue,
      columns: columnsOf(this, SLOT_COLUMNS),
      /** By name_id, as written. */
      names: this.written,
      nameRank: this.nameRank,
      phases: this.phases,
      phaseRank: this.phaseRank,
      stickerNames: this.stickerNames.saved(),
      charmNames: this.charmNames.saved(),
      charmPatterns: this.charmPatterns.saved(),
      // The groups' slot lists are rebuilt from the slots' groups (as arrays of arrays, they were most of the take-up).
      markets: this.markets.saved(),
    };
  }

  /**
   * Takes up (into this new snapshot) a saved one of this format and cache, recent and no newer than the writer's
   * counter, whose columns are all there; the next refresh patches what came after it. Else (damaged, or this
   * snapshot already read the rows) false.
   */
  load(file: string): boolean {
    // A snapshot that already read rows (a query came before the start-up's load) holds names and phases the file
    // may not: taking the file's ranks over them would leave those without a sort key.
    if (this.dataVersion !== -1) return false;
    let saved: ReturnType<CatalogSnapshot['saved']>;
    let markets: Markets | null = null;
    try {
      saved = deserialize(readFileSync(file)) as typeof saved;
      const { size, columns } = saved;
      if (
        saved.format === SAVED_FORMAT &&
        saved.cacheId === this.statements.cacheId.get(CACHE_ID_KEY) &&
        Date.now() - saved.savedAt < SAVED_MAX_AGE_MS &&
        saved.version <= catalogVersion(this.db) &&
        isColumns(columns, SLOT_COLUMNS, size) &&
        [saved.names, saved.phases, saved.stickerNames.names, saved.charmNames.names].every(Array.isArray) &&
        [saved.stickerNames.lists, saved.charmNames.lists, saved.charmPatterns].every(SlotLists.fits)
      )
        markets = Markets.restored(saved.markets, size, columns.nameId, columns.phase);
    } catch {
      return false;
    }
    if (!markets) return false;
    const { columns, stickerNames, charmNames } = saved;
    Object.assign(this, columns, {
      size: saved.size,
      version: saved.version,
      sortedSlots: saved.sortedSlots,
      onSaleCount: saved.onSaleCount,
      onSaleValue: saved.onSaleValue,
      nameRank: saved.nameRank,
      phaseRank: saved.phaseRank,
      stickerNames: new NameLists(stickerNames.names, SlotLists.restored(stickerNames.lists)),
      charmNames: new NameLists(charmNames.names, SlotLists.restored(charmNames.lists)),
      charmPatterns: SlotLists.restored(saved.charmPatterns),
      markets,
      dataVersion: -1,
    });
    saved.names.forEach((name, id) => this.setName(id, name));
    saved.phases.forEach((phase, code) => {
      this.phases[code] = phase;
      this.phaseCode.set(phase, code);
    });
    for (let slot = saved.sortedSlots; slot < saved.size; slot++)
      this.laterSlots.set(this.itemId[slot] as number, slot);
    this.generation++;
    return true;
  }

  /** Reads what the writer committed since the last refresh, all of it now (a query's). */
  refresh(): void {
    // Every step in one committed state, so the query that follows reads the rows the snapshot says.
    readInOne(this.db, () => {
      for (let done = false; !done;) done = this.step();
    });
  }

  /**
   * One step of a refresh (the reader's timer): at most SCAN_CHUNK rows, in a read transaction of its own, so the
   * thread's other reads go between the steps; true when none is left. Safe across commits because a refresh reads only
   * the versions up to the highest one at its start: a row written again meanwhile has a higher version, so the next
   * refresh reads it, and a catalog query finishes a refresh in steps before it reads (`refresh`).
   */
  refreshStep(): boolean {
    return readInOne(this.db, () => this.step());
  }

  private step(): boolean {
    if (!this.pending && !this.begin()) return true;
    const run = this.pending as PendingRefresh;
    const records = this.chunk(run);
    for (const record of records) this.patch(record);
    const last = records[records.length - 1];
    if (records.length === SCAN_CHUNK && last) {
      run.afterId = last[0];
      run.afterVersion = last[15];
      return false;
    }
    this.pending = null;
    this.version = run.upTo;
    this.markets.update(this);
    this.generation++;
    return true;
  }

  private chunk(run: PendingRefresh): ItemRecord[] {
    if (run.scan) return this.statements.byScan.all(run.afterId ?? 0, run.since, run.upTo);
    const sameVersion =
      run.afterId === null ? [] : this.statements.byIndexSameVersion.all(run.afterVersion, run.afterId);
    if (sameVersion.length === SCAN_CHUNK) return sameVersion;
    return sameVersion.concat(this.statements.byIndex.all(run.afterVersion, run.upTo, SCAN_CHUNK - sameVersion.length));
  }

  /** Starts a refresh when the writer committed since the last; false when no row changed. */
  private begin(): boolean {
    const dataVersion = this.statements.dataVersion.get() as number;
    if (dataVersion === this.dataVersion) return false;
    this.dataVersion = dataVersion;
    this.readNames();
    const changed = this.statements.changedCount.get(this.version) as number;
    if (changed === 0) return false;
    const total = this.statements.total.get() as number;
    const scan = changed > SCAN_SHARE * total;
    // Room for every row at once: growing by doubling would copy every column several times at the peak.
    if (scan && this.itemId.length < total) this.grow(total + 1024);
    const upTo = this.statements.highestVersion.get() as number;
    this.pending = { since: this.version, upTo, scan, afterId: null, afterVersion: this.version };
    return true;
  }

  private readNames(): void {
    const added = this.statements.names.all(this.names.length - 1);
    if (added.length === 0) return;
    for (const [id, name] of added) this.setName(id, name);
    // Ranks by the names as written (the sort is by the name shown, not by its lower case).
    const ids = Object.keys(this.written).map(Number);
    ids.sort((a, b) => {
      const x = this.written[a] as string;
      const y = this.written[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    this.nameRank = new Int32Array(this.names.length);
    ids.forEach((id, rank) => (this.nameRank[id] = rank));
    this.generation++;
  }

  private setName(id: number, name: string): void {
    this.written[id] = name;
    this.names[id] = asciiLower(name);
  }

  private phaseOf(phase: string | null): number {
    if (phase === null) return -1;
    let code = this.phaseCode.get(phase);
    if (code === undefined) {
      code = this.phases.length;
      this.phases.push(phase);
      this.phaseCode.set(phase, code);
      const order = this.phases
        .map((_, i) => i)
        .sort((a, b) => ((this.phases[a] as string) < (this.phases[b] as string) ? -1 : 1));
      this.phaseRank = new Int32Array(this.phases.length);
      order.forEach((phaseIndex, rank) => (this.phaseRank[phaseIndex] = rank));
    }
    return code;
  }

  /** The code a phase filter compares with (-2: a phase no item has). */
  phaseFilterCode(phase: string): number {
    return this.phaseCode.get(phase) ?? -2;
  }

  slotOf(itemId: number): number {
    const sorted = this.sortedSlots;
    if (sorted > 0 && itemId <= (this.itemId[sorted - 1] as number)) {
      const found = sortedIndexOf(this.itemId, itemId, sorted);
      if (found >= 0) return found;
    }
    return this.laterSlots.get(itemId) ?? -1;
  }

  private slotFor(itemId: number): number {
    const found = this.slotOf(itemId);
    if (found >= 0) return found;
    const sorted = this.sortedSlots;
    if (this.size === this.itemId.length) this.grow(Math.max(1024, this.size * 2));
    const slot = this.size++;
    this.itemId[slot] = itemId;
    if (slot === sorted && (sorted === 0 || itemId > (this.itemId[sorted - 1] as number))) this.sortedSlots++;
    else this.laterSlots.set(itemId, slot);
    return slot;
  }

  private grow(capacity: number): void {
    growColumns(this, SLOT_COLUMNS, capacity);
  }

  private patch(record: ItemRecord): void {
    const [
      itemId,
      nameId,
      price,
      float,
      paintSeed,
      phase,
      rarity,
      flags,
      stickerCount,
      keyChainCount,
      stickerNames,
      charmNames,
      charmPatterns,
      listedAt,
      removedAt,
    ] = record;
    const onSale = (flags & ON_SALE) === 0 ? 0 : 1;
    const slot = this.slotFor(itemId);
    if (this.onSale[slot] === 1) {
      this.onSaleCount--;
      this.onSaleValue -= this.price[slot] as number;
    }
    if (onSale === 1) {
      this.onSaleCount++;
      this.onSaleValue += price;
    }
    this.onSale[slot] = onSale;
    this.price[slot] = price;
    this.float[slot] = float ?? Number.NaN;
    this.seed[slot] = paintSeed ?? Number.NaN;
    this.phase[slot] = this.phaseOf(phase);
    this.rarity[slot] = rarity ?? -1;
    this.flags[slot] = flags;
    this.stickers[slot] = stickerCount;
    this.charms[slot] = keyChainCount;
    this.listedAt[slot] = listedAt;
    this.nameId[slot] = nameId;
    const stickerIds = this.stickerNames.set(slot, stickerNames);
    this.sameStickers[slot] = stickerIds.reduce(
      (most, id) => Math.max(most, stickerIds.filter((other) => other === id).length),
      0,
    );
    this.charmNames.set(slot, charmNames);
    // A pattern no filter can ask for (not an integer in range) is kept as -1, which no filter wants.
    this.charmPatterns.set(
      slot,
      charmPatterns === null
        ? []
        : charmPatterns.split(',').map((text) => (isCharmPattern(Number(text)) ? Number(text) : -1)),
    );
    this.removedAt[slot] = removedAt ?? Number.NaN;
    this.markets.touch(slot, nameId, this.phase[slot] as number, this.itemId.length);
  }
}
