import { formatNumberList } from '../../../shared/filters';
import type { CatalogFilters } from '../../../shared/ipc/contract';
import { formatCents } from '../../../shared/money';
import { RARITIES } from './rarity';

const LIST_CHARS = 32;
const clip = (text: string) => (text.length > LIST_CHARS ? `${text.slice(0, LIST_CHARS - 1)}…` : text);
const yesNo = (value: boolean | null, yes: string, no: string) => (value === null ? [] : [value ? yes : no]);

/** The filters a rule or a saved search sets, in a few words each ("seeds 1-25, 661 · with a charm · ≥ 20 % under reference"). */
export function filterSummary(f: CatalogFilters): string[] {
  const parts: string[] = [];
  if (f.search.trim() !== '') parts.push(`“${f.search.trim()}”`);
  if (f.priceMin !== null || f.priceMax !== null)
    parts.push(
      `price ${f.priceMin === null ? 'any' : formatCents(f.priceMin)}–${f.priceMax === null ? 'any' : formatCents(f.priceMax)}`,
    );
  if (f.rarityColors.length > 0)
    parts.push(
      f.rarityColors.map((color) => RARITIES.find((r) => r.color === color.toLowerCase())?.name ?? color).join(' or '),
    );
  if (f.floatMin !== null || f.floatMax !== null) parts.push(`float ${f.floatMin ?? 0}–${f.floatMax ?? 1}`);
  if (f.wears.length > 0) parts.push(f.wears.join('/'));
  if (f.phase !== null) parts.push(f.phase);
  parts.push(
    ...yesNo(f.statTrak, 'StatTrak™', 'no StatTrak™'),
    ...yesNo(f.souvenir, 'souvenir', 'no souvenir'),
    ...yesNo(f.hasStickers, 'with stickers', 'without stickers'),
  );
  if (f.stickerName.trim() !== '') parts.push(`sticker “${f.stickerName.trim()}”`);
  if (f.seeds.length > 0) parts.push(`seeds ${clip(formatNumberList(f.seeds))}`);
  parts.push(...yesNo(f.hasCharm, 'with a charm', 'without a charm'));
  if (f.charmName.trim() !== '') parts.push(`charm “${f.charmName.trim()}”`);
  if (f.charmPatterns.length > 0) parts.push(`charm patterns ${clip(formatNumberList(f.charmPatterns))}`);
  if (f.stickerCountMin !== null) parts.push(`≥ ${f.stickerCountMin} stickers`);
  if (f.sameStickerMin !== null) parts.push(`${f.sameStickerMin}× the same sticker`);
  if (f.stickerNames.length > 0) parts.push(`any of ${clip(f.stickerNames.join(', '))}`);
  if (f.excludeWords.trim() !== '') parts.push(`not “${f.excludeWords.trim()}”`);
  if (f.discountMin !== null) parts.push(`≥ ${f.discountMin} % under reference`);
  if (f.listingsMin !== null) parts.push(`≥ ${f.listingsMin} on sale`);
  if (f.floatRankMax !== null) parts.push(`float rank ≤ ${f.floatRankMax}`);
  return parts;
}
