import type { SeedList } from '../../../../shared/seedLists';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { update } from '../store';

/** Saves the whole set of named seed lists; the engine's refusal, said plainly, or null once saved. */
export async function saveSeedLists(seedLists: SeedList[]): Promise<string | null> {
  try {
    const settings = await unwrap(api().settings.update({ seedLists }));
    update('settings', (s) => ({ ...s, settings }));
    return null;
  } catch (error) {
    return errorMessage(error).replace(/^settings\.update: (seedLists[.\d]*\w*: )?/u, '');
  }
}
