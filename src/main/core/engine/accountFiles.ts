import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE } from '../privateFiles';
import { LocalStore } from '../store';

/** The merchant a cache file belongs to, written on every open: an earlier name's file is adopted only by its owner. */
const OWNER_META = 'merchant_id';

export type AccountKind = 'account' | 'demo';

/** A plain id: lower-case letters and digits, single separators between them. */
const PLAIN_ID = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
/** Device names Windows reserves whatever follows the first dot. */
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com\d|lpt\d)(?:\.|$)/;

/**
 * A file name for a merchant id: never a path, safe on every OS, and distinct for distinct ids even where the file
 * system ignores case. A plain id is its own name; any other id is a readable part, `__` and a hash of the id
 * (a plain id never holds `__`, so the two kinds never meet).
 */
export function safeFileName(merchantId: string): string {
  if (merchantId.length <= 100 && PLAIN_ID.test(merchantId) && !WINDOWS_RESERVED.test(merchantId)) return merchantId;
  const readable =
    merchantId
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .slice(0, 60)
      .replace(/^_+|_+$/g, '') || 'id';
  const hash = createHash('sha256').update(merchantId).digest('hex').slice(0, 16);
  return `${readable}__${hash}`;
}

/** Where a merchant's cache lives: `<dataDir>/accounts/<safe merchant id>.sqlite`, the demo sandbox's in `accounts/demo/`, apart from real ones. */
export function accountStoreFile(dataDir: string, merchantId: string, kind: AccountKind = 'account'): string {
  return join(dataDir, 'accounts', ...(kind === 'demo' ? ['demo'] : []), `${safeFileName(merchantId)}.sqlite`);
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

async function adoptEarlierFile(
  dataDir: string,
  merchantId: string,
  kind: AccountKind,
  file: string,
  log: (line: string) => void,
): Promise<void> {
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
  // Its auto-buy journal was replayed into it when it was opened above; it goes with it all the same.
  if (existsSync(`${earlier}.auto-buys`)) renameSync(`${earlier}.auto-buys`, `${file}.auto-buys`);
  rmSync(`${earlier}-shm`, { force: true });
  log(`local database: ${earlier} moved to ${file}`);
}
