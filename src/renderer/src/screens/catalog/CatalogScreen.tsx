import { OfflineBanner } from '../../app/OfflineBanner';
import { ItemDetailPanel } from '../detail/ItemDetailPanel';
import { CatalogFilters } from './CatalogFilters';
import { CatalogGrid } from './CatalogGrid';
import { CatalogHeader } from './CatalogHeader';
import { useStore } from '../../state/store';

export function CatalogScreen() {
  const detailOpen = useStore((s) => s.catalog.detail.id !== null);
  return (
    <div className="screen catalog-screen">
      <CatalogHeader />
      <OfflineBanner />
      <CatalogFilters />
      <div className={`catalog-body ${detailOpen ? 'with-detail' : ''}`}>
        <CatalogGrid />
        <ItemDetailPanel />
      </div>
    </div>
  );
}
