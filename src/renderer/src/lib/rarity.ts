import { RARITY_COLORS } from '../../../shared/api/values';

/** Rarity colour → grade name, low to high. */
export const RARITY_NAMES: Record<string, string> = {
  '#b0c3d9': 'Consumer',
  '#5e98d9': 'Industrial',
  '#4b69ff': 'Mil-Spec',
  '#8847ff': 'Restricted',
  '#d32ce6': 'Classified',
  '#eb4b4b': 'Covert',
  '#e4ae39': 'Contraband',
};

export const RARITIES: readonly { color: string; name: string }[] = RARITY_COLORS.map((color) => ({
  color,
  name: RARITY_NAMES[color] ?? color,
}));

export const NO_RARITY_COLOR = '#5c6370';

export function rarityName(color: string | null): string {
  if (!color) return 'Unknown rarity';
  return RARITY_NAMES[color.toLowerCase()] ?? color;
}

export function rarityColor(color: string | null): string {
  return color ?? NO_RARITY_COLOR;
}

/** Phase labels of phase-variant items (Doppler, Gamma Doppler). */
export const KNOWN_PHASES = ['Phase 1', 'Phase 2', 'Phase 3', 'Phase 4', 'Ruby', 'Sapphire', 'Black Pearl', 'Emerald'] as const;
