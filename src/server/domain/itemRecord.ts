import type { Item, RevealedItemField } from '../../shared/api';

/**
 * An item as stored: its JSON without the three holder fields, which each
 * merchant sees only when an administrator enabled them.
 */
export interface ItemRecord {
  itemId: number;
  assetId: string;
  market_hash_name: string;
  phase: string | null;
  price: number;
  float: number | null;
  steamId: string | null;
  inspectInGame: string | null;
  tradeUrl: string | null;
  /** JSON of the Item minus steamId, inspectInGame and tradeUrl. */
  json: string;
}

export type Reveal = Record<RevealedItemField, boolean>;
export const HIDE_ALL: Reveal = { steamId: false, inspectInGame: false, tradeUrl: false };

const HIDDEN_SUFFIX = ',"steamId":null,"inspectInGame":null,"tradeUrl":null}';

export function toItemRecord(item: Item): ItemRecord {
  const { steamId, inspectInGame, tradeUrl, ...visible } = item;
  return {
    itemId: item.itemId,
    assetId: item.assetId,
    market_hash_name: item.market_hash_name,
    phase: item.phase,
    price: item.price,
    float: item.float,
    steamId,
    inspectInGame,
    tradeUrl,
    json: JSON.stringify(visible),
  };
}

/** The Item JSON a merchant may see; string surgery keeps large catalogs cheap. */
export function serializeItem(record: Pick<ItemRecord, 'json' | RevealedItemField>, reveal: Reveal): string {
  if (!reveal.steamId && !reveal.inspectInGame && !reveal.tradeUrl) return record.json.slice(0, -1) + HIDDEN_SUFFIX;
  const shown = (field: RevealedItemField) => (reveal[field] ? JSON.stringify(record[field]) : 'null');
  return `${record.json.slice(0, -1)},"steamId":${shown('steamId')},"inspectInGame":${shown('inspectInGame')},"tradeUrl":${shown('tradeUrl')}}`;
}

export function itemFor(record: ItemRecord, reveal: Reveal): Item {
  return JSON.parse(serializeItem(record, reveal)) as Item;
}
