import type { DatabaseHandle } from '../db/database.js';

/**
 * TEAMSTAGE_CACHE=on turns caching on only where it is exact: a database whose every change this process
 * sees at once. That is SQLite (one node by construction; `PRAGMA data_version` and `total_changes()` move
 * on any commit, db/database.ts). PostgreSQL offers no cheap change signal shared by every node, and a node
 * that believes it is alone can be paused past any lease and cache across a revocation it never saw; so
 * there the switch does nothing. Returns the change version to cache under, or undefined: no cache at all.
 */
export function exactChangeVersion(setting: 'off' | 'on', handle: DatabaseHandle): (() => string | undefined) | undefined {
  if (setting !== 'on' || handle.dialect !== 'sqlite') return undefined;
  return handle.changeVersion;
}
