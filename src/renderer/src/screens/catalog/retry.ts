import { ensureRows } from '../../state/actions/catalog';
import { PAGE_SIZE, pageOf } from '../../state/slices/catalog';

/** Fetch the page holding `index` again after an error. */
export function retryPage(index: number): void {
  const first = pageOf(index) * PAGE_SIZE;
  ensureRows(first, first + PAGE_SIZE - 1);
}
