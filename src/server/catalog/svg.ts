/**
 * Item images served by the sandbox at `GET /img/:kind/:slug.svg`, so the
 * demo shows pictures without internet: a dark rounded card with a soft
 * gradient in a colour derived from the slug and a silhouette of the kind.
 * Weapons get the silhouette of their class (pistol, SMG, rifle, sniper rifle,
 * shotgun, machine gun), found from the weapon name the slug starts with.
 */
import type { WeaponClass } from './cs2Data';
import { WEAPON_CLASSES } from './cs2Data';
import { SLUG_PATTERN, slugify } from './naming';
import { hashString } from './rng';

/** Weapon silhouettes, muzzle to the right, in the 256 × 192 card; holes use the even-odd rule. */
const WEAPON_SILHOUETTES: Readonly<Record<WeaponClass, string>> = {
  // AK-style: stock, pistol grip, curved magazine, long barrel.
  rifle:
    '<path d="M22 100 74 91h104l2-5h26v4h30v6l-66 2-6 6h-22l5 10q4 16 13 28l-14 5q-11-15-14-41h-8l-8 25H92l5-29-20-3-49 13-6-4z"/>',
  // Bolt-action: thumbhole stock, scope on rings, long thin barrel.
  sniper:
    '<path fill-rule="evenodd" d="M18 112 38 97h56l4 4h50v-4h90v5l-90 2-3 6h-25l-3 6h-6l-7 18H92l6-20H82l-18 8-44 4zm34-8 18-2 6 7-24 2z"/>' +
    '<rect x="96" y="78" width="52" height="12" rx="6"/><path d="M148 78l16-4v20l-16-4zM108 88h6v9h-6zM132 88h6v9h-6z"/>',
  // Semi-automatic pistol: slide, sights, trigger guard, angled grip.
  pistol:
    '<path fill-rule="evenodd" d="M78 70h8v-4h8v4h86v-4h6v4h6v24h-64l-4 16q-3 8-12 6l-8 34H76l10-46-8-6zm30 26h18q-2 12-12 10h-6z"/>',
  // Compact: wire stock, short barrel, magazine in front of the grip.
  smg: '<path fill-rule="evenodd" d="M26 90h44v-6h112l4 6h26v8h-26l-6 6h-44v44h-14v-44h-8l-8 26H94l6-26H70v2l-44 8zm8 6v8l36-6v-2z"/>',
  // Pump-action: wedge stock, receiver, tube magazine, pump under a long barrel.
  shotgun:
    '<path d="M20 114 66 92h170v7H118v7h-8l-6 26H92l4-26H66l-38 20z"/>' +
    '<rect x="118" y="101" width="112" height="6" rx="3"/><rect x="140" y="98" width="44" height="14" rx="4"/>',
  // Belt-fed: carry handle, box magazine, bipod.
  machinegun:
    '<path fill-rule="evenodd" d="M22 104 60 92h70l6-12h32l6 12h24l2-4h34v8l-38 2-8 8h-28v30h-36v-30h-12l-6 24H94l4-24H60l-32 12zm119-16 2-4h18l2 4z"/>' +
    '<path d="M196 100h8l16 42h-6zM196 100h8l-12 42h-6z"/>',
};

const SILHOUETTES: Readonly<Record<string, string>> = {
  weapon: WEAPON_SILHOUETTES.rifle,
  knife: '<path d="M22 146 66 122l48 8-44 24zM60 120c52-22 110-50 174-70-18 36-62 64-120 80z"/>',
  glove:
    '<rect x="88" y="84" width="80" height="70" rx="18"/><rect x="90" y="42" width="17" height="58" rx="8"/>' +
    '<rect x="109" y="32" width="17" height="66" rx="8"/><rect x="128" y="36" width="17" height="62" rx="8"/>' +
    '<rect x="147" y="48" width="17" height="52" rx="8"/><rect x="150" y="96" width="18" height="50" rx="9" transform="rotate(-40 159 121)"/>' +
    '<rect x="94" y="150" width="68" height="22" rx="4" opacity=".7"/>',
  sticker:
    '<circle cx="128" cy="96" r="60"/><path d="M128 58l11 24 26 3-19 18 5 26-23-13-23 13 5-26-19-18 26-3z" opacity=".55"/>',
  charm:
    '<circle cx="128" cy="38" r="15" fill="none" stroke-width="7"/><path d="M125 52h6v30h-6z"/>' +
    '<rect x="100" y="88" width="56" height="56" rx="12" transform="rotate(45 128 116)"/>',
};

/** Slug prefixes of the weapon names (`glock-18-`, `m4a1-s-` …), longest first so `m4a1-s-` is not read as another. */
const CLASS_PREFIXES: readonly (readonly [prefix: string, weaponClass: WeaponClass])[] = Object.entries(WEAPON_CLASSES)
  .map(([name, weaponClass]) => [`${slugify(name)}-`, weaponClass] as const)
  .sort((a, b) => b[0].length - a[0].length);

/** The silhouette class of a weapon image slug (`awp-dragon-lore` → sniper); rifle for a name the tables do not know. */
export function weaponClassOf(slug: string): WeaponClass {
  for (const [prefix, weaponClass] of CLASS_PREFIXES) if (slug.startsWith(prefix)) return weaponClass;
  return 'rifle';
}

function shapeOf(kind: string, slug: string): string | undefined {
  if (kind === 'weapon') return WEAPON_SILHOUETTES[weaponClassOf(slug)];
  return Object.hasOwn(SILHOUETTES, kind) ? SILHOUETTES[kind] : undefined;
}

/** The SVG for an item image, or null for an unknown kind or a malformed slug. */
export function renderItemImage(kind: string, slug: string): string | null {
  if (!SLUG_PATTERN.test(slug)) return null;
  const shape = shapeOf(kind, slug);
  if (shape === undefined) return null;
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
