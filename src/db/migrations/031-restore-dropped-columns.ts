import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Expand, then contract (issue 40): a migration never removes what the release before it reads, because
 * during a rolling upgrade old nodes keep serving on the schema the first new node migrated. Migrations 010
 * and 013 broke that rule: they moved configuration archives, plan JSON and logs into chunk tables and
 * dropped the old columns, so a node of an earlier release answered every run creation with 500
 * (`column "json_output" does not exist`). The columns come back here, empty and nullable, and this release
 * never reads or writes them: an old node's statements work again, and what an old node stores in them
 * during the upgrade window is not shown by new nodes (docs/operations.md, "Upgrades"). A later release may drop them
 * once no release that reads them can still be running (and says so in CHANGELOG.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema.alterTable('configuration_versions').addColumn('archive', binary).execute();
  await db.schema.alterTable('plans').addColumn('json_output', 'text').execute();
  await db.schema.alterTable('applies').addColumn('json_output', 'text').execute();
  await db.schema.alterTable('plans').addColumn('log', binary).execute();
  await db.schema.alterTable('applies').addColumn('log', binary).execute();
}
