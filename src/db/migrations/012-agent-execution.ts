import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Agent execution (issue 16). A workspace's `execution_mode` (remote, agent, local); each run keeps the
 * mode it was created in, and so do its plan and apply, so that changing the workspace's mode never
 * changes how a run already on its way is carried out. Plans and applies gain what a pipeline hands over:
 * the log (bytes, as sent), the report it made (JSON, for idempotent reports), and the import count
 * derived from the uploaded plan JSON.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema.alterTable('workspaces').addColumn('execution_mode', 'text', (c) => c.notNull().defaultTo('remote')).execute();
  await db.schema.alterTable('runs').addColumn('execution_mode', 'text', (c) => c.notNull().defaultTo('remote')).execute();
  for (const table of ['plans', 'applies']) {
    await db.schema.alterTable(table).addColumn('execution_mode', 'text', (c) => c.notNull().defaultTo('remote')).execute();
    await db.schema.alterTable(table).addColumn('resource_imports', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable(table).addColumn('log', binary).execute();
    // `{"status":"finished"}` or `{"status":"errored","message":"…"}` as the pipeline reported it.
    await db.schema.alterTable(table).addColumn('agent_report', 'text').execute();
  }
}
