/**
 * Item images served by the sandbox at `GET /img/:kind/:slug.svg`, so the
 * demo shows pictures without internet: a dark rounded card with a soft
 * gradient in a colour derived from the slug and a silhouette of the kind.
 */
import { SLUG_PATTERN } from './naming';
import { hashString } from './rng';

const SILHOUETTES: Readonly<Record<string, string>> = {
  weapon:
    '<path d="M20 100 40 92h44l6-6h80l2-4h64v8l-60 2-2 8h-24l-4 12-6 24h-14l2-24-20-8-4 22-12 4 2-26-22 2-44 14-8-2z"/>',
  knife: '<path d="M22 146 66 122l48 8-44 24zM60 120c52-22 110-50 174-70-18 36-62 64-120 80z"/>',
  glove:
    '<rect x="88" y="84" width="80" height="70" rx="18"/><rect x="90" y="42" width="17" height="58" rx="8"/>' +
    '<rect x="109" y="32" width="17" height="66" rx="8"/><rect x="128" y="36" width="17" height="62" rx="8"/>' +
    '<rect x="147" y="48" width="17" height="52" rx="8"/><rect x="150" y="96" width="18" height="50" rx="9" transform="rotate(-40 159 121)"/>' +
    '<rect x="94" y="150" width="68" height="22" rx="4" opacity=".7"/>',
  sticker: '<circle cx="128" cy="96" r="60"/><path d="M128 58l11 24 26 3-19 18 5 26-23-13-23 13 5-26-19-18 26-3z" opacity=".55"/>',
  charm:
    '<circle cx="128" cy="38" r="15" fill="none" stroke-width="7"/><path d="M125 52h6v30h-6z"/>' +
    '<rect x="100" y="88" width="56" height="56" rx="12" transform="rotate(45 128 116)"/>',
};

/** The SVG for an item image, or null for an unknown kind or a malformed slug. */
export function renderItemImage(kind: string, slug: string): string | null {
  const shape = Object.hasOwn(SILHOUETTES, kind) ? SILHOUETTES[kind] : undefined;
  if (shape === undefined || !SLUG_PATTERN.test(slug)) return null;
  const hash = hashString(slug);
  const hue = hash % 360;
  const saturation = 55 + ((hash >>> 9) % 25);
  const light = `hsl(${hue},${saturation}%,82%)`;
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 256 192" width="256" height="192">' +
    `<defs><radialGradient id="g" cx="50%" cy="45%" r="70%"><stop offset="0" stop-color="hsl(${hue},${saturation}%,36%)"/>` +
    '<stop offset="1" stop-color="#111418"/></radialGradient></defs>' +
    '<rect width="256" height="192" rx="16" fill="url(#g)"/>' +
    `<g fill="${light}" stroke="${light}" stroke-width="0" fill-opacity=".9">${shape}</g></svg>`
  );
}
