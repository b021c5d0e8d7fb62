import type { CSSProperties, ReactNode } from 'react';
import type { Item } from '../../../../shared/api';
import { redactTradeUrl } from '../../../../shared/api/tradeUrl';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { ItemImage } from '../../components/ItemImage';
import { TimeAgo } from '../../components/TimeAgo';
import type { CatalogRow, ItemDetail } from '../../../../shared/ipc/models';
import { DASH, formatCents, formatDateTime, formatDiscount, formatFloat, formatInt } from '../../lib/format';
import { rarityColor, rarityName } from '../../lib/rarity';
import { closeDetail, loadDetail } from '../../state/actions/catalog';
import { toast } from '../../state/actions/toast';
import { useStore } from '../../state/store';
import { openBuyForSelected } from '../buy/open';
import { PriceFlash } from '../catalog/PriceFlash';
import { PriceHistory } from './PriceHistory';

function Prop({ label, children, mono = false }: { label: string; children: ReactNode; mono?: boolean }) {
  return (
    <div className="prop">
      <dt>{label}</dt>
      <dd className={mono ? 'num mono' : ''}>{children ?? DASH}</dd>
    </div>
  );
}

function copy(text: string, what: string) {
  void navigator.clipboard?.writeText(text).then(
    () => toast('info', `${what} copied`),
    () => toast('warn', `Could not copy the ${what.toLowerCase()}`),
  );
}

function Placement({
  rotation,
  offsetX,
  offsetY,
  offsetZ,
}: {
  rotation?: number;
  offsetX?: number;
  offsetY?: number;
  offsetZ?: number;
}) {
  const parts: string[] = [];
  if (rotation !== undefined) parts.push(`rot ${rotation}°`);
  if (offsetX !== undefined) parts.push(`x ${offsetX.toFixed(3)}`);
  if (offsetY !== undefined) parts.push(`y ${offsetY.toFixed(3)}`);
  if (offsetZ !== undefined) parts.push(`z ${offsetZ.toFixed(3)}`);
  if (parts.length === 0) return null;
  return <span className="muted placement num">{parts.join(' · ')}</span>;
}

function Attachments({ item }: { item: Item }) {
  return (
    <>
      <section className="detail-section" aria-label="Stickers">
        <h3>
          Stickers <span className="muted num">{item.stickers.length}</span>
        </h3>
        {item.stickers.length === 0 ? (
          <p className="muted small">No stickers.</p>
        ) : (
          <ul className="attach-list">
            {item.stickers.map((s, i) => (
              <li key={`${s.slot}-${i}`}>
                <ItemImage src={s.img} name={s.name} rarity={null} size={34} decorative />
                <div className="attach-main">
                  <div className="attach-name" title={s.name}>
                    {s.name.replace(/^(?:Sticker|Patch) \| /, '')}
                  </div>
                  <div className="muted small">
                    Slot {s.slot} <Placement rotation={s.rotation} offsetX={s.offsetX} offsetY={s.offsetY} />
                  </div>
                </div>
                <div className="attach-wear" title={s.wear === null ? 'No inspect data' : `Raw wear ${s.wear}`}>
                  {s.wearPercent ? (
                    <>
                      <span className="wear-bar" aria-hidden="true">
                        <span style={{ width: s.wearPercent }} />
                      </span>
                      <span className="num">{s.wearPercent}</span>
                      <span className="muted num small">wear {s.wear === null ? DASH : s.wear.toFixed(4)}</span>
                    </>
                  ) : (
                    <span className="muted small">wear unknown</span>
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="detail-section" aria-label="Keychains">
        <h3>
          Keychains <span className="muted num">{item.keyChains.length}</span>
        </h3>
        {item.keyChains.length === 0 ? (
          <p className="muted small">No keychains.</p>
        ) : (
          <ul className="attach-list">
            {item.keyChains.map((k, i) => (
              <li key={`${k.slot}-${i}`}>
                <ItemImage src={k.img} name={k.name} rarity={null} size={34} decorative />
                <div className="attach-main">
                  <div className="attach-name" title={k.name}>
                    {k.name.replace(/^Charm \| /, '')}
                  </div>
                  <div className="muted small">
                    Slot {k.slot}
                    {k.pattern !== undefined ? (
                      <>
                        {' '}
                        · pattern <span className="num">{k.pattern}</span>
                      </>
                    ) : null}{' '}
                    <Placement rotation={k.rotation} offsetX={k.offsetX} offsetY={k.offsetY} offsetZ={k.offsetZ} />
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function Holder({ item }: { item: Item }) {
  if (item.steamId === null && item.inspectInGame === null && item.tradeUrl === null) return null;
  return (
    <section className="detail-section" aria-label="Holder">
      <h3>Holder</h3>
      <dl className="props">
        {item.steamId !== null ? (
          <Prop label="Steam ID" mono>
            {item.steamId}
          </Prop>
        ) : null}
        {item.tradeUrl !== null ? (
          <Prop label="Trade URL">
            <span className="mono small">{redactTradeUrl(item.tradeUrl)}</span>
          </Prop>
        ) : null}
        {item.inspectInGame !== null ? (
          <Prop label="Inspect">
            <span className="inline-actions">
              <a href={item.inspectInGame} className="link" title={item.inspectInGame}>
                Inspect in game <Icon name="external" size={12} />
              </a>
              <button type="button" className="link-btn" onClick={() => copy(item.inspectInGame ?? '', 'Inspect link')}>
                Copy link
              </button>
            </span>
          </Prop>
        ) : null}
      </dl>
    </section>
  );
}

/**
 * Where the listing stands in its name's market: the reference price and the numbers behind it (from the
 * detail read; the row's while it loads), its discount, float rank, the 7-day median and how many left sale.
 */
function MarketNumbers({ detail, row }: { detail: ItemDetail | null; row: CatalogRow | undefined }) {
  const full = detail?.market ?? null;
  const market = full ?? (detail === null ? (row?.market ?? null) : null);
  const seed = detail?.item.paintSeed ?? row?.paintSeed ?? null;
  return (
    <section className="detail-section" aria-label="Market">
      <h3>Market</h3>
      {market === null ? (
        <p className="muted small">
          {detail && !detail.onSale ? 'No longer on sale: no market numbers.' : 'No market numbers yet.'}
        </p>
      ) : (
        <dl className="props">
          <Prop label="Reference price">
            {market.reference === null ? (
              <span className="muted small">none: every one of its name on sale has stickers or charms</span>
            ) : (
              <>
                <span className="num">{formatCents(market.reference)}</span>{' '}
                <span className="muted small">
                  median of <span className="num">{formatInt(market.plainListings)}</span> without stickers or charms
                </span>
              </>
            )}
          </Prop>
          <Prop label="Discount">
            {market.discount === null ? (
              DASH
            ) : (
              <>
                <span className={`num discount ${Math.round(market.discount) >= 1 ? 'under' : 'over'}`}>
                  {formatDiscount(market.discount)}
                </span>{' '}
                <span className="muted small">
                  {market.discount >= 0.5 ? 'under' : market.discount <= -0.5 ? 'over' : 'at'} the reference
                </span>
              </>
            )}
          </Prop>
          <Prop label="Float rank">
            {market.floatRank === null ? (
              DASH
            ) : (
              <>
                <span className="num">#{formatInt(market.floatRank)}</span> lowest float of{' '}
                <span className="num">{formatInt(market.listings)}</span> on sale
              </>
            )}
          </Prop>
          {seed !== null && market.seedRank !== undefined ? (
            <Prop label="Float rank in its seed">
              {market.seedRank === null ? (
                DASH
              ) : (
                <>
                  <span className="num">#{formatInt(market.seedRank.rank)}</span> lowest float of{' '}
                  <span className="num">{formatInt(market.seedRank.of)}</span> with seed{' '}
                  <span className="num">{seed}</span>
                </>
              )}
            </Prop>
          ) : null}
          {full !== null && full.median7d !== null ? (
            <Prop label="7-day median">
              <span className="num">{formatCents(full.median7d)}</span>{' '}
              <span className="muted small">
                of <span className="num">{formatInt(full.observed7d)}</span> prices observed
              </span>
            </Prop>
          ) : null}
          {full !== null ? (
            <Prop label="Left sale in 24 h">
              <span className="num">{formatInt(full.leftSale24h)}</span>
            </Prop>
          ) : null}
        </dl>
      )}
    </section>
  );
}

/** The item detail side panel: every field of the Item, its price history, and Buy. */
export function ItemDetailPanel() {
  const detail = useStore((s) => s.catalog.detail);
  const row = useStore((s) => (s.catalog.detail.id === null ? undefined : s.catalog.rows[s.catalog.detail.id]));
  const baseline = useStore((s) => s.catalog.baselineListedAt);
  if (detail.id === null) return null;
  const item = detail.data?.item.itemId === detail.id ? detail.data.item : undefined;
  const name = item?.market_hash_name ?? row?.market_hash_name ?? `Item ${detail.id}`;
  const rarity = item?.rarityColor ?? row?.rarityColor ?? null;
  const price = row?.price ?? item?.price;
  const onSale = detail.data?.onSale ?? true;
  const statTrak = name.includes('StatTrak');
  // Stickers, charms, cases: no float, so no pattern either (their seed 0 says nothing).
  const noWear = (item ? item.float : (row?.float ?? null)) === null;
  const seenAtFirstSync = row !== undefined && baseline !== null && row.listedAt <= baseline;
  const souvenir = name.startsWith('Souvenir');

  return (
    <aside
      className="detail-panel"
      aria-label="Item detail"
      style={{ '--rarity': rarityColor(rarity) } as CSSProperties}
    >
      <div className="detail-top">
        <div className="detail-toolbar">
          <span className="rarity-label">
            <span className="rarity-dot" aria-hidden="true" /> {rarityName(rarity, name)}
          </span>
          <button
            type="button"
            className="icon-btn"
            aria-label="Close detail"
            title="Close (Esc)"
            onClick={closeDetail}
          >
            <Icon name="close" size={14} />
          </button>
        </div>
        <div className="detail-hero">
          <ItemImage src={item?.img ?? row?.img ?? null} name={name} rarity={rarity} size={220} />
        </div>
        <h2 className="detail-name">{name}</h2>
        <div className="tags">
          {(item?.phase ?? row?.phase) ? <span className="tag">{item?.phase ?? row?.phase}</span> : null}
          {statTrak ? <span className="tag tag-st">StatTrak™</span> : null}
          {souvenir ? <span className="tag tag-sv">Souvenir</span> : null}
          {row ? (
            <span className="tag muted-tag" title={`First seen ${formatDateTime(row.listedAt)}`}>
              {seenAtFirstSync ? (
                'on sale before the first sync'
              ) : (
                <>
                  listed <TimeAgo iso={row.listedAt} />
                </>
              )}
            </span>
          ) : null}
        </div>
        <div className="detail-buy">
          <div className="detail-price">
            {price !== undefined ? (
              <PriceFlash itemId={detail.id} price={price} lastMove={row?.lastMove ?? null} className="big" />
            ) : (
              <span className="muted">—</span>
            )}
            {!onSale ? <span className="tag tag-sold">No longer on sale</span> : null}
          </div>
          <button
            type="button"
            className="btn primary lg"
            disabled={!onSale || (!item && !row)}
            onClick={openBuyForSelected}
          >
            Buy
            <kbd aria-hidden="true">B</kbd>
          </button>
        </div>
      </div>

      {/* Focusable so the keyboard can scroll it. */}
      <div className="detail-scroll" tabIndex={0} role="region" aria-label="Item detail content">
        {detail.status === 'error' ? (
          <EmptyState
            title="Could not load this item"
            tone="error"
            action={
              <button type="button" className="btn sm" onClick={() => detail.id !== null && void loadDetail(detail.id)}>
                Retry
              </button>
            }
          >
            {detail.error}
          </EmptyState>
        ) : detail.status === 'missing' ? (
          <EmptyState title="Item not found">It left the catalog; it may have been sold.</EmptyState>
        ) : null}

        <MarketNumbers detail={detail.data?.item.itemId === detail.id ? detail.data : null} row={row} />

        <section className="detail-section" aria-label="Price history">
          <h3>Price history</h3>
          {detail.status === 'loading' && !detail.data ? (
            <div className="chart-skeleton" aria-label="Loading price history" />
          ) : (
            <PriceHistory points={detail.data?.priceHistory ?? []} />
          )}
        </section>

        <section className="detail-section" aria-label="Properties">
          <h3>Properties</h3>
          <dl className="props">
            <Prop label="Float" mono>
              {item ? (item.float === null ? DASH : String(item.float)) : formatFloat(row?.float ?? null)}
            </Prop>
            <Prop label="Paint seed" mono>
              {noWear ? DASH : (item?.paintSeed ?? row?.paintSeed ?? DASH)}
            </Prop>
            <Prop label="Paint index" mono>
              {item?.paintIndex ?? DASH}
            </Prop>
            <Prop label="Phase">{item?.phase ?? row?.phase ?? DASH}</Prop>
            <Prop label="Item ID" mono>
              {detail.id}
            </Prop>
            <Prop label="Asset ID" mono>
              {item?.assetId ?? row?.assetId ?? DASH}
            </Prop>
            <Prop label="Class ID" mono>
              {item?.classId ?? DASH}
            </Prop>
            <Prop label="Instance ID" mono>
              {item?.instanceId ?? DASH}
            </Prop>
            <Prop label="Rarity">{rarityName(rarity, name)}</Prop>
            {row ? <Prop label={seenAtFirstSync ? 'First seen' : 'Listed'}>{formatDateTime(row.listedAt)}</Prop> : null}
          </dl>
        </section>

        {item ? (
          <>
            <Attachments item={item} />
            <Holder item={item} />
          </>
        ) : detail.status === 'loading' ? (
          <div className="muted small pad">Loading stickers and keychains…</div>
        ) : null}
      </div>
    </aside>
  );
}
