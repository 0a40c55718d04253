import type { Kysely } from 'kysely';

/**
 * Policy evaluations (issue 29): a post-plan task stage holds one when a policy set applied to the run's
 * workspace at run creation. Its outcomes are kept per policy set as judged (names, levels and results copied,
 * so a later change to a set does not rewrite history). `hold` is what the evaluation asks of its stage:
 * none, override (a mandatory policy failed in an overridable set), fail (in a set that is not), error.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('policy_evaluations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_stage_id', 'text', (c) => c.notNull().references('task_stages.id').onDelete('cascade'))
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_timestamps', 'text', (c) => c.notNull())
    /** JSON: advisory-failed, mandatory-failed, passed, errored. */
    .addColumn('result_count', 'text', (c) => c.notNull())
    .addColumn('hold', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('policy_evaluations_stage').on('policy_evaluations').column('task_stage_id').execute();

  await db.schema
    .createTable('policy_set_outcomes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('policy_evaluation_id', 'text', (c) => c.notNull().references('policy_evaluations.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('policy_set_id', 'text', (c) => c.notNull())
    .addColumn('policy_set_name', 'text', (c) => c.notNull())
    .addColumn('policy_set_description', 'text')
    .addColumn('overridable', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    /** JSON array of HCP's outcomes: enforcement_level, query, status, policy_name, description, output. */
    .addColumn('outcomes', 'text', (c) => c.notNull())
    .addColumn('result_count', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('policy_set_outcomes_evaluation').on('policy_set_outcomes').columns(['policy_evaluation_id', 'position']).execute();
}
