import { useEffect, useRef } from 'react';
import { formatCents } from '../../lib/format';
import { useStore } from '../../state/store';

/**
 * A live price. Flashes green/red for ~1 s when the engine reports a move:
 * a transient store subscription restarts a CSS animation on the element,
 * without re-rendering anything.
 */
export function PriceFlash({
  itemId,
  price,
  lastMove,
  className = '',
}: {
  itemId: number;
  price: number;
  lastMove?: 'up' | 'down' | null;
  className?: string;
}) {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const el = ref.current;
    let last = useStore.getState().catalog.moves[itemId];
    const unsubscribe = useStore.subscribe((state) => {
      const move = state.catalog.moves[itemId];
      if (move && move !== last) {
        if (el) {
          el.classList.remove('flash-up', 'flash-down');
          void el.offsetWidth; // restart the animation
          el.classList.add(move.dir === 'up' ? 'flash-up' : 'flash-down');
        }
      }
      last = move;
    });
    return () => {
      unsubscribe();
      // A grid row is reused for another item: this item's flash must not run on.
      el?.classList.remove('flash-up', 'flash-down');
    };
  }, [itemId]);
  return (
    <span ref={ref} className={`price-flash num ${className}`}>
      {/* The mark's slot is always there, so a first move never shifts the price. */}
      <span className={`move-mark ${lastMove ?? ''}`} aria-hidden="true">
        {lastMove === 'up' ? '▲' : lastMove === 'down' ? '▼' : ''}
      </span>
      {formatCents(price)}
    </span>
  );
}
