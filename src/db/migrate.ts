import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
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
import * as m013 from './migrations/013-phase-upload-chunks.js';
import * as m014 from './migrations/014-organization-creator.js';
import * as m015 from './migrations/015-run-record.js';
import * as m016 from './migrations/016-required-approvals.js';
import * as m017 from './migrations/017-workspace-settings.js';
import * as m018 from './migrations/018-policies.js';
import * as m019 from './migrations/019-policy-evaluations.js';
import * as m021 from './migrations/021-run-change-notify.js';
import * as m037 from './migrations/037-run-insert-notify.js';
import * as m040 from './migrations/040-policy-set-parameters.js';
import * as m045 from './migrations/045-projects.js';
import * as m046 from './migrations/046-team-projects.js';
import * as m048 from './migrations/048-membership-inviter.js';
import * as m049 from './migrations/049-policy-set-versions.js';
import * as m022 from './migrations/022-run-options.js';
import * as m023 from './migrations/023-audit-trail.js';
import * as m024 from './migrations/024-provisional-configuration.js';
import * as m026 from './migrations/026-workspace-required-approvals.js';
import * as m027 from './migrations/027-signing-keys.js';
import * as m028 from './migrations/028-prevent-self-approval.js';
import * as m029 from './migrations/029-workspace-current-run.js';
import * as m031 from './migrations/031-restore-dropped-columns.js';
import * as m032 from './migrations/032-workspace-hcp-attributes.js';
import * as m033 from './migrations/033-organization-settings.js';
import * as m034 from './migrations/034-team-workspaces.js';
import * as m035 from './migrations/035-agent-pools.js';

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
  '013-phase-upload-chunks': m013 as Migration,
  '014-organization-creator': m014 as Migration,
  '015-run-record': m015 as Migration,
  '016-required-approvals': m016 as Migration,
  '017-workspace-settings': m017 as Migration,
  '018-policies': m018 as Migration,
  '019-policy-evaluations': m019 as Migration,
  '021-run-change-notify': m021 as Migration,
  '022-run-options': m022 as Migration,
  '023-audit-trail': m023 as Migration,
  '024-provisional-configuration': m024 as Migration,
  '026-workspace-required-approvals': m026 as Migration,
  '027-signing-keys': m027 as Migration,
  '028-prevent-self-approval': m028 as Migration,
  '029-workspace-current-run': m029 as Migration,
  '031-restore-dropped-columns': m031 as Migration,
  '032-workspace-hcp-attributes': m032 as Migration,
  '033-organization-settings': m033 as Migration,
  '034-team-workspaces': m034 as Migration,
  '035-agent-pools': m035 as Migration,
  '037-run-insert-notify': m037 as Migration,
  '040-policy-set-parameters': m040 as Migration,
  '045-projects': m045 as Migration,
  '046-team-projects': m046 as Migration,
  '048-membership-inviter': m048 as Migration,
  '049-policy-set-versions': m049 as Migration,
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

/**
 * A database a newer Teamstage has migrated holds migrations this build does not know. Running on it could
 * misread or damage data, so the start stops with a sentence saying which and what to do (Kysely's own
 * error for this case, "corrupted migrations", sent operators looking for corruption).
 */
export class NewerSchemaError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `the database was migrated by a newer Teamstage (migrations this build does not know: ${unknown.join(', ')}); ` +
        'run that version or a newer one, or restore a backup taken before the upgrade (docs/operations.md, "Upgrades")',
    );
  }
}

/** Names of the migrations already applied to the database (none on a fresh one). */
async function appliedMigrations(handle: DatabaseHandle): Promise<string[]> {
  const table = handle.dialect === 'sqlite'
    ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(handle.db)
    : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_name = 'kysely_migration' and table_schema = current_schema()`.execute(handle.db);
  if (table.rows.length === 0) return [];
  return (await sql<{ name: string }>`select name from kysely_migration`.execute(handle.db)).rows.map((row) => row.name);
}

async function runMigrations(handle: DatabaseHandle): Promise<string[]> {
  const applied = await appliedMigrations(handle);
  const unknown = applied.filter((name) => !(name in MIGRATIONS)).sort();
  if (unknown.length > 0) throw new NewerSchemaError(unknown);
  // Every start of a migrated database: nothing to do, known from the names just read, without Kysely's
  // Migrator (its tables' DDL, a lock and a transaction: about ten statements on every start; issue 39).
  const done = new Set(applied);
  if (Object.keys(MIGRATIONS).every((name) => done.has(name))) return [];
  // Migration numbers are handed out ahead of landing, so one may land after a higher one already ran
  // (018 after 021): such a migration runs when found missing instead of refusing to start.
  const migrator = new Migrator({ db: handle.db, provider, allowUnorderedMigrations: true });
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

/** The schema a database is at once migrated: the name of the last migration this build has. */
export const LATEST_MIGRATION = Object.keys(MIGRATIONS).sort().at(-1)!;

/**
 * What a process does before it writes: migrates, and says so: one line per migration applied and one with
 * the schema reached, so an upgrade is never silent (`log` receives each line's message and fields).
 */
export async function joinAndMigrate(
  handle: DatabaseHandle,
  log: (msg: string, fields: Record<string, unknown>) => void = () => {},
): Promise<string[]> {
  const applied = await migrateToLatest(handle);
  for (const migration of applied) log('migration applied', { migration });
  log('schema ready', { schema: LATEST_MIGRATION, applied: applied.length });
  return applied;
}
