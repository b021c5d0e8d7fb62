import { useEffect, useState } from 'react';
import { nameKey, nameSearchText, resolveName } from '../../../../shared/itemNames';
import { api, unwrap } from '../../lib/ipc';

/** One market hash name on sale in the local catalog, with its cheapest listing. */
export interface NameSuggestion {
  name: string;
  cheapest: number;
  listings: number;
}

const MAX_SUGGESTIONS = 8;
const SCANNED_ROWS = 400;
const DEBOUNCE_MS = 120;

/**
 * Names on sale in the cache that contain every typed word (★, ™ and case ignored), cheapest
 * listing first. The catalog's search index finds the rows; this groups them by name.
 */
export async function suggestNames(typed: string): Promise<NameSuggestion[]> {
  const text = nameSearchText(typed);
  if (text.length < 2) return [];
  const page = await unwrap(
    api().catalog.query({ search: text, sort: 'price', direction: 'asc', offset: 0, limit: SCANNED_ROWS }),
  );
  const words = nameKey(typed).split(' ');
  const byName = new Map<string, NameSuggestion>();
  for (const row of page.rows) {
    const known = byName.get(row.market_hash_name);
    if (known) {
      known.listings += 1;
      continue;
    }
    const key = nameKey(row.market_hash_name);
    if (words.every((word) => key.includes(word)))
      byName.set(row.market_hash_name, { name: row.market_hash_name, cheapest: row.price, listings: 1 });
  }
  const exact = nameKey(typed);
  // The name typed in full first, then the cheapest.
  return [...byName.values()]
    .sort((a, b) => Number(nameKey(b.name) === exact) - Number(nameKey(a.name) === exact) || a.cheapest - b.cheapest)
    .slice(0, MAX_SUGGESTIONS);
}

/** The cached name a typed name means (★, ™ and case ignored), or the name as typed. */
export async function canonicalName(typed: string): Promise<string> {
  try {
    const page = await unwrap(
      api().catalog.query({
        search: nameSearchText(typed),
        sort: 'price',
        direction: 'asc',
        offset: 0,
        limit: SCANNED_ROWS,
      }),
    );
    return (
      resolveName(
        typed.trim(),
        page.rows.map((row) => row.market_hash_name),
      ) ?? typed.trim()
    );
  } catch {
    return typed.trim();
  }
}

/** Suggestions for what is typed, refreshed shortly after typing stops; none while `enabled` is false. */
export function useNameSuggestions(typed: string, enabled: boolean): NameSuggestion[] {
  const [suggestions, setSuggestions] = useState<NameSuggestion[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    const timer = setTimeout(() => {
      suggestNames(typed).then(
        (found) => {
          if (current) setSuggestions(found);
        },
        () => {
          if (current) setSuggestions([]);
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [typed, enabled]);
  return enabled ? suggestions : [];
}
