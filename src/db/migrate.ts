import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { DatabaseHandle } from './database.js';
import { withSqliteMigrationLock } from './sqlite-migration-lock.js';
import * as m001 from './migrations/001-identity-and-teams.js';
import * as m002 from './migrations/002-workspaces-runs.js';
import * as m003 from './migrations/003-jobs.js';
import * as m004 from './migrations/004-task-delivery.js';
import * as m005 from './migrations/005-team-list-indexes.js';
import * as m006 from './migrations/006-cluster-nodes.js';
import * as m007 from './migrations/007-jobs-notify-trigger.js';
import * as m008 from './migrations/008-token-acts-as-person.js';
import * as m009 from './migrations/009-service-account-owner.js';
import * as m010 from './migrations/010-configuration-archive-chunks.js';
import * as m011 from './migrations/011-job-lanes.js';
import * as m012 from './migrations/012-agent-execution.js';

/** Migrations are listed in code (not read from disk) so the compiled build and tsx run the same set. */
export const MIGRATIONS: Record<string, Migration> = {
  '001-identity-and-teams': m001 as Migration,
  '002-workspaces-runs': m002 as Migration,
  '003-jobs': m003 as Migration,
  '004-task-delivery': m004 as Migration,
  '005-team-list-indexes': m005 as Migration,
  '006-cluster-nodes': m006 as Migration,
  '007-jobs-notify-trigger': m007 as Migration,
  '008-token-acts-as-person': m008 as Migration,
  '009-service-account-owner': m009 as Migration,
  '010-configuration-archive-chunks': m010 as Migration,
  '011-job-lanes': m011 as Migration,
  '012-agent-execution': m012 as Migration,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code ?? '';
  return code.startsWith('SQLITE_BUSY');
}

/**
 * Brings the schema up to date. PostgreSQL: Kysely takes an advisory lock, so nodes starting together
 * take turns. SQLite: processes take turns through a lock file next to the database; a process that
 * still meets SQLITE_BUSY waits and tries again, and then finds the work already done.
 */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  if (handle.sqliteFile) return withSqliteMigrationLock(handle.sqliteFile, () => runMigrations(handle));
  return runMigrations(handle);
}

async function runMigrations(handle: DatabaseHandle): Promise<string[]> {
  const migrator = new Migrator({ db: handle.db, provider });
  for (let attempt = 0; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (handle.dialect === 'sqlite' && isSqliteBusy(error) && attempt < 20) {
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      continue;
    }
    throw error;
  }
}

/** What a process does before it writes: migrates (kept as its own step for the callers that start a node). */
export async function joinAndMigrate(handle: DatabaseHandle): Promise<string[]> {
  return migrateToLatest(handle);
}
