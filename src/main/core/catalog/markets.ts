/**
 * Each listing's standing in its market (name and phase) among the listings on sale: the reference (the median price of
 * the plain ones, without stickers or charms), counts, discount, float rank. A refresh computes again the groups it
 * changed; a listing off sale keeps what it had when it left.
 */
import type { MarketStanding } from '../../../shared/ipc';
import { columnsOf, growColumns, isColumns, type Columns } from './columns';

/** The snapshot's columns a market reads, by slot. */
interface MarketInput {
  itemId: Float64Array;
  onSale: Uint8Array;
  price: Float64Array;
  float: Float64Array;
  seed: Float64Array;
  stickers: Float64Array;
  charms: Float64Array;
}

/** The columns below by slot, as a saved snapshot holds them. */
const MARKET_COLUMNS = {
  group: Int32Array,
  reference: Float64Array,
  discount: Float64Array,
  floatRank: Float64Array,
  listings: Float64Array,
  plain: Float64Array,
};
export type SavedMarkets = Columns<typeof MARKET_COLUMNS>;

/** A group's key: a number (phase codes are few): a string per write was most of `touch`'s time in a full read. */
const groupKey = (nameId: number, phaseCode: number) => nameId * 65_536 + phaseCode + 1;

/** The median of ascending prices (the two middle ones: their mean, rounded down to a cent); null for none. */
export function medianOf(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : Math.floor(((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2);
}

export class Markets {
  /** By slot: its group (-1: none yet); for a slot on sale, its reference, discount, float rank (NaN: none), its group's listings and plain ones. */
  group = new Int32Array(0);
  reference = new Float64Array(0);
  discount = new Float64Array(0);
  floatRank = new Float64Array(0);
  listings = new Float64Array(0);
  plain = new Float64Array(0);
  /** By group: its slots, on sale or not. */
  private members: number[][] = [];
  private readonly groupOf = new Map<number, number>();
  private readonly dirty = new Set<number>();

  saved(): SavedMarkets {
    return columnsOf(this, MARKET_COLUMNS);
  }

  /** Markets as saved (their columns), the groups rebuilt from the slots' names and phases; null when they do not fit. */
  static restored(saved: SavedMarkets, size: number, nameId: Int32Array, phase: Int32Array): Markets | null {
    if (!isColumns(saved, MARKET_COLUMNS, size)) return null;
    const markets = Object.assign(new Markets(), saved);
    for (let slot = 0; slot < size; slot++) {
      const group = markets.group[slot] as number;
      if (group >= size) return null;
      if (group < 0) continue;
      markets.groupOf.set(groupKey(nameId[slot] as number, phase[slot] as number), group);
      (markets.members[group] ??= []).push(slot);
    }
    return markets;
  }

  /** A slot's name and phase after a write: it joins that group, computed again with the one it left. `capacity`: the snapshot's. */
  touch(slot: number, nameId: number, phaseCode: number, capacity: number): void {
    if (slot >= this.group.length) {
      const previous = this.group.length;
      growColumns(this, MARKET_COLUMNS, capacity);
      this.group.fill(-1, previous);
    }
    const key = groupKey(nameId, phaseCode);
    let group = this.groupOf.get(key);
    if (group === undefined) {
      group = this.members.push([]) - 1;
      this.groupOf.set(key, group);
    }
    const before = this.group[slot] as number;
    if (before !== group) {
      if (before >= 0) {
        const list = this.members[before] as number[];
        list.splice(list.indexOf(slot), 1);
        this.dirty.add(before);
      }
      (this.members[group] as number[]).push(slot);
      this.group[slot] = group;
    }
    this.dirty.add(group);
  }

  update(input: MarketInput): void {
    for (const group of this.dirty) {
      const onSale = (this.members[group] as number[]).filter((slot) => input.onSale[slot] === 1);
      if (onSale.length === 0) continue;
      const plain = onSale.filter((slot) => input.stickers[slot] === 0 && input.charms[slot] === 0);
      const reference = medianOf(plain.map((slot) => input.price[slot] as number).sort((a, b) => a - b)) ?? Number.NaN;
      const byFloat = onSale
        .filter((slot) => !Number.isNaN(input.float[slot]))
        .sort(
          (a, b) =>
            (input.float[a] as number) - (input.float[b] as number) ||
            (input.itemId[a] as number) - (input.itemId[b] as number),
        );
      for (const slot of onSale) {
        this.reference[slot] = reference;
        this.discount[slot] = reference === 0 ? 0 : ((reference - (input.price[slot] as number)) / reference) * 100;
        this.floatRank[slot] = Number.NaN;
        this.listings[slot] = onSale.length;
        this.plain[slot] = plain.length;
      }
      byFloat.forEach((slot, rank) => (this.floatRank[slot] = rank + 1));
    }
    this.dirty.clear();
  }

  /** A slot's standing (what it had when it left, for one off sale). */
  standing(slot: number): MarketStanding {
    const value = (column: Float64Array) => (Number.isNaN(column[slot]) ? null : (column[slot] as number));
    return {
      reference: value(this.reference),
      listings: this.listings[slot] as number,
      plainListings: this.plain[slot] as number,
      discount: value(this.discount),
      floatRank: value(this.floatRank),
    };
  }

  /** Its float rank among its group's listings on sale with its seed (computed when asked: a detail, a page's rows). */
  seedRank(slot: number, { onSale, seed, float, itemId }: MarketInput): MarketStanding['seedRank'] {
    if (onSale[slot] !== 1 || Number.isNaN(seed[slot]) || Number.isNaN(float[slot])) return null;
    const same = this.groupSlots(slot).filter(
      (other) => onSale[other] === 1 && seed[other] === seed[slot] && !Number.isNaN(float[other]),
    );
    const before = same.filter(
      (other) =>
        (float[other] as number) < (float[slot] as number) ||
        (float[other] === float[slot] && (itemId[other] as number) < (itemId[slot] as number)),
    );
    return { rank: before.length + 1, of: same.length };
  }

  /** The slots of a slot's group, on sale or not. */
  groupSlots(slot: number): readonly number[] {
    return this.members[this.group[slot] as number] ?? [];
  }
}
