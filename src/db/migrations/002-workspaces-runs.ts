import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * The supporting resources of run task gating and the stage/result rows created with a
 * run. Children reference their parents with ON DELETE CASCADE, so deleting a workspace
 * (or an organization) removes its runs, plans, applies, stages, results and attachments in one
 * statement, even in the middle of a run. Tables added later that point at these rows must cascade too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The configuration archive is binary: bytea on PostgreSQL, blob on SQLite (both hand back a Buffer).
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('auto_apply', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('working_directory', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('workspaces_org_name_lower', ['organization_name', 'name_lower'])
    .execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    // Write-only: read by delivery to sign requests, never serialized or logged.
    .addColumn('hmac_key', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tasks_org_name_lower', ['organization_name', 'name_lower'])
    .execute();

  await db.schema
    .createTable('workspace_tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    // The service refuses to delete an attached task (422); the cascade only serves organization deletion.
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('enforcement_level', 'text', (c) => c.notNull())
    .addColumn('stages', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('workspace_tasks_workspace_task', ['workspace_id', 'task_id'])
    .execute();
  await db.schema.createIndex('workspace_tasks_task').on('workspace_tasks').column('task_id').execute();

  await db.schema
    .createTable('configuration_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_timestamps', 'text', (c) => c.notNull())
    .addColumn('auto_queue_runs', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('speculative', 'integer', (c) => c.notNull().defaultTo(0))
    // SHA-256 of the random token in the upload URL; the token itself is shown once, at creation.
    .addColumn('upload_token_hash', 'text', (c) => c.notNull().unique())
    // The tar.gz lives in the database: the only storage every node shares.
    .addColumn('archive', binary)
    .addColumn('archive_size', 'integer')
    .addColumn('created_by_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('configuration_versions_workspace')
    .on('configuration_versions')
    .columns(['workspace_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('configuration_version_id', 'text', (c) => c.references('configuration_versions.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_timestamps', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('plan_only', 'integer', (c) => c.notNull())
    .addColumn('auto_apply', 'integer', (c) => c.notNull())
    .addColumn('is_destroy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by_user_id', 'text')
    .addColumn('created_by_name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('runs_workspace').on('runs').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('runs_configuration_version').on('runs').column('configuration_version_id').execute();

  for (const table of ['plans', 'applies'] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('run_id', 'text', (c) => c.notNull().unique().references('runs.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_timestamps', 'text', (c) => c.notNull())
      .addColumn('has_changes', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('resource_additions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('resource_changes', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('resource_destructions', 'integer', (c) => c.notNull().defaultTo(0))
      // Plans only: the JSON plan document (`terraform show -json`) served at /plans/:id/json-output.
      .addColumn('json_output', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  }

  await db.schema
    .createTable('task_stages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_timestamps', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('task_stages_run_stage', ['run_id', 'stage'])
    .execute();

  await db.schema
    .createTable('task_results')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_stage_id', 'text', (c) => c.notNull().references('task_stages.id').onDelete('cascade'))
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    // Copies, not references: a result keeps describing the task it ran even after the task is detached or deleted.
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('task_name', 'text', (c) => c.notNull())
    .addColumn('task_url', 'text', (c) => c.notNull())
    .addColumn('workspace_task_id', 'text', (c) => c.notNull())
    .addColumn('enforcement_level', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('is_speculative', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('url', 'text')
    .addColumn('status_timestamps', 'text', (c) => c.notNull())
    .addColumn('access_token_hash', 'text', (c) => c.unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('task_results_stage').on('task_results').column('task_stage_id').execute();
  await db.schema.createIndex('task_results_run').on('task_results').column('run_id').execute();
}
