import { type CSSProperties, useState } from 'react';
import { rarityColor } from '../lib/rarity';

function initials(name: string): string {
  const clean = name
    .replace(/[★™]/g, '')
    .replace(/StatTrak|Souvenir/g, '')
    .trim();
  const [weapon = ''] = clean.split('|');
  return weapon
    .trim()
    .split(/[\s-]+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]?.toUpperCase() ?? '')
    .join('');
}

/** An item picture; a rarity-tinted placeholder when there is none or it fails to load. */
export function ItemImage({
  src,
  name,
  rarity,
  size,
  decorative = false,
}: {
  src: string | null;
  name: string;
  rarity: string | null;
  size: number;
  decorative?: boolean;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  const style = { width: size, height: size * 0.75, '--accent': rarityColor(rarity) } as CSSProperties;
  if (!src || failed === src) {
    return (
      <span
        className="item-img placeholder"
        style={style}
        role={decorative ? undefined : 'img'}
        aria-label={decorative ? undefined : `${name} (no image)`}
        aria-hidden={decorative || undefined}
      >
        {size >= 40 ? initials(name) : ''}
      </span>
    );
  }
  return (
    <span className="item-img" style={style}>
      {/* Keyed by its picture: a reused row never shows the previous item's picture while the next loads. */}
      <img
        key={src}
        src={src}
        alt={decorative ? '' : name}
        loading="lazy"
        decoding="async"
        draggable={false}
        onError={() => setFailed(src)}
      />
    </span>
  );
}
