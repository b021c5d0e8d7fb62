/**
 * Market hash names as people type them: without the ★ of knives and gloves, without the ™ of
 * StatTrak™, in any case. These helpers compare and search names that way.
 */
const DECORATIONS = /[★™]/gu;

/** A name's comparison key: no ★ or ™, lower case, single spaces. */
export function nameKey(name: string): string {
  return name.replace(DECORATIONS, ' ').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** The name as catalog search text: its words without ★ or ™ (the search matches words as substrings). */
export function nameSearchText(name: string): string {
  return name.replace(DECORATIONS, ' ').replace(/\s+/gu, ' ').trim();
}

/**
 * The one name among `known` that `typed` means: itself when listed, else the single name with the
 * same key; null when none or several match.
 */
export function resolveName(typed: string, known: Iterable<string>): string | null {
  const key = nameKey(typed);
  const matches = new Set<string>();
  for (const name of known) {
    if (name === typed) return name;
    if (nameKey(name) === key) matches.add(name);
  }
  return matches.size === 1 ? (matches.values().next().value ?? null) : null;
}
