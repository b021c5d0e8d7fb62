import { type CSSProperties, memo } from 'react';
import { useNow } from '../../lib/clock';
import type { MarketStanding } from '../../../../shared/ipc/models';
import { formatAge, formatCents, formatDiscount, formatFloat, formatFloatRank, formatInt } from '../../lib/format';
import { rarityColor, rarityName } from '../../lib/rarity';
import { ItemImage } from '../../components/ItemImage';
import { openDetail, selectItem } from '../../state/actions/catalog';
import { pageOf, rowIdAt } from '../../state/slices/catalog';
import { useStore } from '../../state/store';
import { retryPage } from './retry';
import { COLUMNS, ROW_HEIGHT } from './columns';
import { nameParts } from './itemName';
import { PriceFlash } from './PriceFlash';

const GEM_PHASES: Record<string, string> = {
  Ruby: '#e0364a',
  Sapphire: '#2f7bff',
  Emerald: '#1fbf6a',
  'Black Pearl': '#6b5b95',
};

function AgeCell({ listedAt }: { listedAt: string }) {
  const now = useNow();
  const baseline = useStore((s) => s.catalog.baselineListedAt);
  if (baseline !== null && listedAt <= baseline) {
    // Already on sale when this cache first synced: how long is not known.
    return (
      <time
        className="num faint"
        dateTime={listedAt}
        title={`On sale before the first sync (at least ${formatAge(listedAt, now)})`}
      >
        —
      </time>
    );
  }
  return (
    <time className="num muted" dateTime={listedAt}>
      {formatAge(listedAt, now)}
    </time>
  );
}

/** The discount against its name's reference and its float rank (a live row without one shows dashes). */
function MarketCells({ market }: { market: MarketStanding | null }) {
  if (!market) {
    return (
      <>
        <div role="gridcell" className="cell col-discount right num muted">
          —
        </div>
        <div role="gridcell" className="cell col-rank right num muted">
          —
        </div>
      </>
    );
  }
  const { reference, discount } = market;
  const under = discount !== null && Math.round(discount) >= 1;
  // Under a seed list the page brings the rank among the listings of the row's seed too.
  const seedRank = market.seedRank ?? null;
  const rankTitle = [
    market.floatRank === null ? null : `#${market.floatRank} lowest float of ${formatInt(market.listings)} on sale`,
    seedRank === null ? null : `#${seedRank.rank} lowest float of ${formatInt(seedRank.of)} with its seed`,
  ].filter((part) => part !== null);
  return (
    <>
      {reference === null || discount === null ? (
        <div
          role="gridcell"
          className="cell col-discount right num muted"
          title="No reference: none of its name on sale is without stickers or charms"
        >
          —
        </div>
      ) : (
        <div
          role="gridcell"
          className="cell col-discount right num"
          title={`${under ? 'Under' : 'Not under'} its reference price ${formatCents(reference)}: the median of the ${formatInt(market.plainListings)} on sale without stickers or charms`}
        >
          <span className={`discount ${under ? 'under' : 'over'}`}>{formatDiscount(discount)}</span>
        </div>
      )}
      <div
        role="gridcell"
        className="cell col-rank right num"
        title={rankTitle.length === 0 ? undefined : rankTitle.join('; ')}
      >
        {seedRank === null ? (
          market.floatRank === null ? (
            <span className="muted">—</span>
          ) : (
            formatFloatRank(market.floatRank, market.listings)
          )
        ) : (
          <span className="rank-stack">
            <span>{formatFloatRank(market.floatRank, market.listings)}</span>
            <span className="seed-rank">
              seed #{formatInt(seedRank.rank)} of {formatInt(seedRank.of)}
            </span>
          </span>
        )}
      </div>
    </>
  );
}

export const rowDomId = (index: number) => `catalog-row-${index}`;

/**
 * A sticker's or charm's short name for the narrow column: the kind prefix and the
 * tournament suffix go ("Sticker | Natus Vincere (Glitter) | Copenhagen 2024" →
 * "Natus Vincere (Glitter)"); the cell's tooltip keeps every full name.
 */
export const shortAttachName = (name: string | undefined): string | undefined => {
  if (name === undefined) return undefined;
  const slab = /^Sticker Slab \| /.test(name);
  const parts = name.replace(/^(?:Sticker Slab|Souvenir Charm|Sticker|Patch|Charm) \| /, '').split(' | ');
  const short = parts[0] ?? name;
  return slab ? `Slab · ${short}` : short;
};

/** "4 stickers:\n…" for the cell's tooltip. */
const attachTitle = (names: readonly string[], kind: string) =>
  names.length === 0 ? undefined : `${names.length} ${kind}${names.length === 1 ? '' : 's'}:\n${names.join('\n')}`;

function GridRowImpl({ index, top }: { index: number; top: number }) {
  const id = useStore((s) => rowIdAt(s.catalog, index));
  const row = useStore((s) => (id === undefined ? undefined : s.catalog.rows[id]));
  const selected = useStore((s) => id !== undefined && s.catalog.selectedId === id);
  const removed = useStore((s) => id !== undefined && s.catalog.removed[id] === true);
  const pageError = useStore((s) =>
    s.catalog.pages[pageOf(index)]?.status === 'error' ? s.catalog.pages[pageOf(index)]?.error : null,
  );

  if (!row) {
    return (
      <div
        role="row"
        aria-rowindex={index >= 0 ? index + 2 : undefined}
        className="grid-row skeleton"
        style={{ top, height: ROW_HEIGHT }}
      >
        {pageError && index % 100 === 0 ? (
          <div role="gridcell" className="row-error">
            Could not load these rows: {pageError}{' '}
            <button type="button" className="link-btn" onClick={() => retryPage(index)}>
              Retry
            </button>
          </div>
        ) : (
          COLUMNS.map((c) => (
            <div role="gridcell" key={c.id} className={`cell col-${c.id} ${c.align ?? ''}`}>
              <span className={`bone bone-${c.id}`} />
            </div>
          ))
        )}
      </div>
    );
  }

  const style = { top, height: ROW_HEIGHT, '--rarity': rarityColor(row.rarityColor) } as CSSProperties;
  const stickerTitle = attachTitle(row.stickerNames, 'sticker');
  const keyTitle = attachTitle(row.keyChainNames, 'keychain');
  const name = nameParts(row.market_hash_name);
  return (
    <div
      role="row"
      id={rowDomId(index)}
      aria-rowindex={index + 2}
      aria-selected={selected}
      className={`grid-row ${selected ? 'selected' : ''} ${removed ? 'removed' : ''} ${index % 2 ? 'odd' : ''}`}
      style={style}
      onClick={() => {
        selectItem(row.itemId, index);
        openDetail(row.itemId);
      }}
    >
      <div role="gridcell" className="cell cell-rarity" title={rarityName(row.rarityColor, row.market_hash_name)}>
        <ItemImage src={row.img} name={row.market_hash_name} rarity={row.rarityColor} size={40} decorative />
      </div>
      <div role="gridcell" className="cell cell-name" title={row.market_hash_name}>
        {/* The weapon and the finish shorten apart, and the wear shows as FN…BS at the cell's end,
            so rows of one skin stay apart in a narrow grid. */}
        <span className="name-text">
          <span className="name-head">{name.head}</span>
          {name.tail ? <span className="name-tail">{name.tail}</span> : null}
          {name.wear ? <span className="sr-only">{name.wear}</span> : null}
        </span>
        {/* Drawn by CSS from data-wear: the cell's text stays the name, as copied or read out. */}
        {name.wearShort ? (
          <span
            className="wear-short"
            data-wear={name.wearShort}
            title={name.wearName ?? undefined}
            aria-hidden="true"
          />
        ) : null}
        {removed ? <span className="tag tag-sold">Sold</span> : null}
      </div>
      <div role="gridcell" className="cell col-phase">
        {row.phase ? (
          <span className="phase" style={{ '--phase': GEM_PHASES[row.phase] ?? 'var(--fg-muted)' } as CSSProperties}>
            {row.phase}
          </span>
        ) : (
          <span className="muted">—</span>
        )}
      </div>
      <div role="gridcell" className="cell col-float right num">
        {formatFloat(row.float)}
      </div>
      <div role="gridcell" className="cell col-seed right num">
        {/* No wear (stickers, charms, cases): no pattern either; their seed 0 says nothing. */}
        {row.paintSeed === null || row.float === null ? <span className="muted">—</span> : row.paintSeed}
      </div>
      <div role="gridcell" className="cell col-stickers" title={stickerTitle}>
        {row.stickerCount > 0 ? (
          <span className="attach">
            <span className="count num">{row.stickerCount}</span>
            <span className="attach-names">{shortAttachName(row.stickerNames[0])}</span>
          </span>
        ) : (
          <span className="muted">—</span>
        )}
      </div>
      <div role="gridcell" className="cell col-keychains" title={keyTitle}>
        {row.keyChainNames.length > 0 ? (
          <span className="attach">
            {row.keyChainNames.length > 1 ? <span className="count num">{row.keyChainNames.length}</span> : null}
            <span className="attach-names">{shortAttachName(row.keyChainNames[0])}</span>
          </span>
        ) : (
          <span className="muted">—</span>
        )}
      </div>
      <div role="gridcell" className="cell col-price right">
        <PriceFlash itemId={row.itemId} price={row.price} lastMove={row.lastMove} />
      </div>
      <div role="gridcell" className="cell col-age right">
        <AgeCell listedAt={row.listedAt} />
      </div>
      <MarketCells market={row.market} />
    </div>
  );
}

export const GridRow = memo(GridRowImpl);
