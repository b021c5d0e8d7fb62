/**
 * Market hash names and image slugs: `StatTrak™ AK-47 | Redline (Field-Tested)`,
 * `Souvenir AWP | Dragon Lore (Factory New)`, `★ StatTrak™ Karambit | Doppler (Factory New)`,
 * `★ Karambit` (vanilla).
 */
import { WEAR_NAMES } from './cs2Data';

export const STAR = '★ ';
export const STATTRAK = 'StatTrak™ ';
export const SOUVENIR = 'Souvenir ';

export const VARIANT_NORMAL = 0;
export const VARIANT_STATTRAK = 1;
export const VARIANT_SOUVENIR = 2;
export type Variant = typeof VARIANT_NORMAL | typeof VARIANT_STATTRAK | typeof VARIANT_SOUVENIR;

/** Slug alphabet accepted by the image route. */
export const SLUG_PATTERN = /^[a-z0-9-]{1,120}$/;

/** "★ Karambit | Doppler" → "karambit-doppler"; "Pandora's Box" → "pandoras-box". */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’™★]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/g, '');
  return slug === '' ? 'item' : slug;
}

/**
 * The market hash name of `base` (the name without StatTrak™/Souvenir and
 * wear) for a variant and wear index (-1 = no wear).
 */
export function marketHashName(base: string, variant: Variant, wearIndex: number): string {
  let name = base;
  if (variant === VARIANT_STATTRAK) {
    name = base.startsWith(STAR) ? STAR + STATTRAK + base.slice(STAR.length) : STATTRAK + base;
  } else if (variant === VARIANT_SOUVENIR) {
    name = SOUVENIR + base;
  }
  return wearIndex < 0 ? name : `${name} (${WEAR_NAMES[wearIndex] ?? ''})`;
}

export interface ParsedName {
  base: string;
  variant: Variant;
  /** Index into WEAR_NAMES, or -1 when the name carries no wear. */
  wearIndex: number;
}

const WEAR_SUFFIX = new RegExp(` \\((${WEAR_NAMES.join('|')})\\)$`);

/** Splits a market hash name into base, variant and wear. Never fails; unknown names parse as their own base. */
export function parseMarketHashName(name: string): ParsedName {
  let rest = name;
  let wearIndex = -1;
  const wear = WEAR_SUFFIX.exec(rest);
  if (wear) {
    wearIndex = (WEAR_NAMES as readonly string[]).indexOf(wear[1] ?? '');
    rest = rest.slice(0, wear.index);
  }
  let variant: Variant = VARIANT_NORMAL;
  if (rest.startsWith(STAR + STATTRAK)) {
    variant = VARIANT_STATTRAK;
    rest = STAR + rest.slice(STAR.length + STATTRAK.length);
  } else if (rest.startsWith(STATTRAK)) {
    variant = VARIANT_STATTRAK;
    rest = rest.slice(STATTRAK.length);
  } else if (rest.startsWith(SOUVENIR) && !rest.startsWith('Souvenir Charm |')) {
    variant = VARIANT_SOUVENIR;
    rest = rest.slice(SOUVENIR.length);
  }
  return { base: rest, variant, wearIndex };
}
