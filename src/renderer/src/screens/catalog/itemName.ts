/** Exterior (wear) names of a market hash name's suffix and their trade abbreviations. */
const WEAR_SHORT: Readonly<Record<string, string>> = {
  'Factory New': 'FN',
  'Minimal Wear': 'MW',
  'Field-Tested': 'FT',
  'Well-Worn': 'WW',
  'Battle-Scarred': 'BS',
};

const WEAR_SUFFIX = / \((Factory New|Minimal Wear|Field-Tested|Well-Worn|Battle-Scarred)\)$/;

/**
 * A market hash name in the parts a narrow grid shows apart: the weapon ("StatTrak™ AK-47"), the
 * rest (" | Redline") and the wear suffix (" (Field-Tested)", shown as "FT"). head + tail + wear is
 * the name, character for character.
 */
export interface NameParts {
  head: string;
  tail: string;
  /** The wear suffix as written in the name; '' when there is none. */
  wear: string;
  wearName: string | null;
  wearShort: string | null;
}

export function nameParts(name: string): NameParts {
  const match = WEAR_SUFFIX.exec(name);
  const wearName = match?.[1] ?? null;
  const wear = match ? match[0] : '';
  const rest = name.slice(0, name.length - wear.length);
  const bar = rest.indexOf(' | ');
  return {
    head: bar < 0 ? rest : rest.slice(0, bar),
    tail: bar < 0 ? '' : rest.slice(bar),
    wear,
    wearName,
    wearShort: wearName === null ? null : (WEAR_SHORT[wearName] ?? null),
  };
}
