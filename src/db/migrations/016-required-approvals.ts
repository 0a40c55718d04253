import { sql, type Kysely } from 'kysely';

/**
 * More than one approver (issue 27): a workspace task may require the overrides of N distinct people before
 * its stage moves on (default 1, the seed's behaviour). Each result keeps the number its workspace task
 * had when the run was created, as it keeps the enforcement level.
 *
 * A stage now has one override per approver, so `task_stage_overrides` loses its one-per-stage unique
 * constraint for one per stage and overrider (one person counts once, also between two nodes), and keeps
 * the overrider's name as shown when they overrode. SQLite cannot drop a column's unique constraint, so
 * the table is rebuilt (on both databases, one way).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspace_tasks').addColumn('required_approvals', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('task_results').addColumn('required_approvals', 'integer', (c) => c.notNull().defaultTo(1)).execute();

  await db.schema
    .createTable('task_stage_overrides_new')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_stage_id', 'text', (c) => c.notNull().references('task_stages.id').onDelete('cascade'))
    .addColumn('run_id', 'text', (c) => c.notNull())
    /** who: `user:<id>`, `team:<id>` or `site-admin` */
    .addColumn('overridden_by', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('overridden_by_name', 'text')
    .addUniqueConstraint('task_stage_overrides_stage_overrider', ['task_stage_id', 'overridden_by'])
    .execute();
  await sql`insert into task_stage_overrides_new (id, task_stage_id, run_id, overridden_by, comment, created_at)
    select id, task_stage_id, run_id, overridden_by, comment, created_at from task_stage_overrides`.execute(db);
  await db.schema.dropTable('task_stage_overrides').execute();
  await db.schema.alterTable('task_stage_overrides_new').renameTo('task_stage_overrides').execute();
}
