import type { Database } from 'better-sqlite3';
import { StoreVersionError } from '../errors';
import { migration001 } from './001-initial';
import { migration002 } from './002-catalog-layout';
import { migration003 } from './003-item-hash';
import { migration004 } from './004-lean-item-indexes';
import { migration005 } from './005-sold-price';
import { migration006 } from './006-live-prices';
import { migration007 } from './007-price-moves';
import { migration008 } from './008-keychain-count';
import { migration009 } from './009-listed-at-index';
import { migration010 } from './010-change-log-price';
import { migration011 } from './011-item-hash-murmur';
import { migration012 } from './012-price-move-log';
import { migration013 } from './013-live-removals';
import { migration014 } from './014-price-move-runs';
import { migration015 } from './015-change-log-rowid';
import { migration016 } from './016-pending-prices';
import { migration017 } from './017-pending-listings';
import { migration018 } from './018-auto-buy-guards';
import { migration019 } from './019-notifications';
import type { Migration } from './types';

export type { Migration } from './types';

/**
 * Every schema step, in order; one file each. Append only: a shipped
 * migration is never edited, a fix is a new step.
 */
export const MIGRATIONS: readonly Migration[] = [migration001, migration002, migration003, migration004, migration005, migration006, migration007, migration008, migration009, migration010, migration011, migration012, migration013, migration014, migration015, migration016, migration017, migration018, migration019];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

export interface MigrationOutcome {
  from: number;
  to: number;
}

/**
 * Brings the database to SCHEMA_VERSION in one transaction (all steps or
 * none), recorded in `PRAGMA user_version`. A database newer than this build
 * is refused untouched with a StoreVersionError.
 */
export function migrate(db: Database, file: string, migrations: readonly Migration[] = MIGRATIONS): MigrationOutcome {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) throw new Error(`migration ${migration.name} has version ${migration.version}, expected ${index + 1}`);
  });
  const target = migrations.length;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > target) throw new StoreVersionError(file, current, target);
  if (current === target) return { from: current, to: current };
  db.transaction(() => {
    // Re-read inside the (immediate) transaction: another process may have migrated meanwhile.
    const now = db.pragma('user_version', { simple: true }) as number;
    if (now > target) throw new StoreVersionError(file, now, target);
    for (const migration of migrations.slice(now)) migration.up(db);
    db.pragma(`user_version = ${target}`);
  }).immediate();
  return { from: current, to: target };
}
