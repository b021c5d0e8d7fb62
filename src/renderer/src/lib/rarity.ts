import { RARITY_COLORS } from '../../../shared/api/values';

const GOLD = '#e4ae39';

/**
 * Rarity colour → grade name, low to high. The gold colour is the grade of knives and gloves (★):
 * traders call it Extraordinary. Contraband items (the Howl) share the colour without the ★.
 */
export const RARITY_NAMES: Record<string, string> = {
  '#b0c3d9': 'Consumer',
  '#5e98d9': 'Industrial',
  '#4b69ff': 'Mil-Spec',
  '#8847ff': 'Restricted',
  '#d32ce6': 'Classified',
  '#eb4b4b': 'Covert',
  [GOLD]: '★ Extraordinary',
};

export const RARITIES: readonly { color: string; name: string }[] = RARITY_COLORS.map((color) => ({
  color,
  name: RARITY_NAMES[color] ?? color,
}));

export const NO_RARITY_COLOR = '#5c6370';

/** The grade an item shows: its colour's name, told apart by the item's name where colours are shared. */
export function rarityName(color: string | null, marketHashName: string): string {
  if (!color) return 'Unknown rarity';
  const key = color.toLowerCase();
  if (key === GOLD && !marketHashName.startsWith('★')) return 'Contraband';
  return RARITY_NAMES[key] ?? color;
}

export function rarityColor(color: string | null): string {
  return color ?? NO_RARITY_COLOR;
}

/** Phase labels of phase-variant items (Doppler, Gamma Doppler). */
export const KNOWN_PHASES = [
  'Phase 1',
  'Phase 2',
  'Phase 3',
  'Phase 4',
  'Ruby',
  'Sapphire',
  'Black Pearl',
  'Emerald',
] as const;
