/**
 * Deep links read whole: shared/deepLinks reads a link's form; here a search link's filters are checked against the
 * saved-search schema. Main only (the shell's `merchantdesk://` links, the engine's `links.search`): it imports zod,
 * which the renderer never bundles (eslint's RENDERER_ZOD).
 */
import {
  DEEP_LINK_SCHEME,
  readDeepLink,
  readHashRoute,
  type DeepLinkResult,
  type LinkReading,
  type SearchLinkInput,
  type SearchLinkResult,
} from '../deepLinks';
import { savedSearchQuerySchema } from './catalogSchemas';

/** Reads a `merchantdesk://…` link, a search's filters checked. Never throws. */
export function parseDeepLink(link: unknown): DeepLinkResult {
  return checked(readDeepLink(link));
}

/** The web host's route of a link's place (`#/trade/<id>`, `#/search?…`), checked; null when it is none. */
export function parseHashRoute(hash: string): DeepLinkResult | null {
  const reading = readHashRoute(hash);
  return reading && checked(reading);
}

/** A search link's filters (the text after `search?`), as `links.search` answers them. */
export function parseSearchLink(params: string): SearchLinkResult {
  const result = parseDeepLink(`${DEEP_LINK_SCHEME}://search?${params}`);
  if (!result.ok) return result;
  if (result.target.type !== 'search') return { ok: false, reason: 'This is not a search link.' };
  return { ok: true, query: result.target.query };
}

function checked(reading: LinkReading): DeepLinkResult {
  if (!reading.ok) return reading;
  if (reading.target.type !== 'search') return { ok: true, target: reading.target };
  return searchQueryOf(reading.target.input);
}

function searchQueryOf(input: SearchLinkInput): DeepLinkResult {
  const parsed = savedSearchQuerySchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') ?? '';
    return {
      ok: false,
      reason: `The search link's filters are not valid (${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}).`,
    };
  }
  return { ok: true, target: { type: 'search', query: parsed.data } };
}
