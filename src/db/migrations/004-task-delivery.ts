import type { Kysely } from 'kysely';

/**
 * What run task delivery records beside the stages and results of 002: every outbound attempt, every
 * access token hash handed out (a retry gets a new token, and an earlier one stays valid in case the
 * service did receive it), the outcomes a service called back with, and overrides.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_result_id', 'text', (c) => c.notNull().references('task_results.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    /** accepted (200) | rejected (another status) | network_error (refused, reset, timeout) */
    .addColumn('outcome', 'text')
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .addUniqueConstraint('delivery_attempts_result_attempt', ['task_result_id', 'attempt'])
    .execute();

  await db.schema
    .createTable('task_result_access_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('task_result_id', 'text', (c) => c.notNull().references('task_results.id').onDelete('cascade'))
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('task_result_access_tokens_result').on('task_result_access_tokens').column('task_result_id').execute();

  await db.schema
    .createTable('task_result_outcomes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_result_id', 'text', (c) => c.notNull().references('task_results.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('outcome_id', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('url', 'text')
    /** JSON object: tag name → [{label, level}] */
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('task_result_outcomes_result').on('task_result_outcomes').columns(['task_result_id', 'position']).execute();

  await db.schema
    .createTable('task_stage_overrides')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_stage_id', 'text', (c) => c.notNull().unique().references('task_stages.id').onDelete('cascade'))
    .addColumn('run_id', 'text', (c) => c.notNull())
    /** who: `user:<id>`, `team:<id>` or `site-admin` */
    .addColumn('overridden_by', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
