import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE } from '../privateFiles';
import { LocalStore } from '../store';

/** The merchant a cache file belongs to, written on every open: an earlier name's file is adopted only by its owner. */
const OWNER_META = 'merchant_id';

export type AccountKind = 'account' | 'demo';

/** Where a merchant's cache lives: one name per merchant, distinct for distinct ids (see safeFileName). */
export function accountStoreFile(dataDir: string, merchantId: string, kind: AccountKind): string {
  return LocalStore.accountFile(dataDir, merchantId, kind);
}

/**
 * Opens the merchant's cache at `file` (from accountStoreFile). Where earlier versions named it differently (a name
 * several ids shared), that file is moved to `file` first, unless another merchant has claimed it since.
 */
export async function openAccountStore(
  dataDir: string,
  merchantId: string,
  kind: AccountKind,
  file: string,
  log: (line: string) => void,
): Promise<LocalStore> {
  if (!existsSync(file)) await adoptEarlierFile(dataDir, merchantId, kind, file, log);
  const store = await LocalStore.open({ file });
  try {
    if ((await store.getMeta(OWNER_META)) !== merchantId) await store.setMeta(OWNER_META, merchantId);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** The name earlier versions gave a merchant's cache: ids that differ only in punctuation shared it. */
function earlierFile(dataDir: string, merchantId: string, kind: AccountKind): string {
  const name = merchantId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
  return join(dataDir, 'accounts', `${kind === 'demo' ? 'demo-' : ''}${name}.sqlite`);
}

async function adoptEarlierFile(dataDir: string, merchantId: string, kind: AccountKind, file: string, log: (line: string) => void): Promise<void> {
  const earlier = earlierFile(dataDir, merchantId, kind);
  if (earlier === file || !existsSync(earlier)) return;
  let owner: unknown;
  try {
    const store = await LocalStore.open({ file: earlier });
    owner = await store.getMeta(OWNER_META).finally(() => store.close());
  } catch (error) {
    // Left where it is, untouched: this merchant starts a new cache, and the log says which file was not taken.
    log(`local database: ${earlier} was not taken over for ${merchantId}: ${(error as Error).message}`);
    return;
  }
  if (owner !== null && owner !== merchantId) return;
  // Closing checkpointed the file, so its WAL is normally gone; the main file goes first in any case. The shared-memory
  // index is rebuilt on open.
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  renameSync(earlier, file);
  if (existsSync(`${earlier}-wal`)) renameSync(`${earlier}-wal`, `${file}-wal`);
  rmSync(`${earlier}-shm`, { force: true });
  log(`local database: ${earlier} moved to ${file}`);
}
