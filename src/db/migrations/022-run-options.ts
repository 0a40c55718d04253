import { sql, type Kysely } from 'kysely';

/**
 * What a run was asked to do, echoed as HCP Terraform echoes it (go-tfe, issue 28), and who confirmed it.
 *
 * - `runs.options`: a JSON object of the create attributes that change what Terraform would be told
 *   (`refresh`, `refresh-only`, `allow-empty-apply`, `replace-addrs`, `target-addrs`, `variables`; see
 *   src/runs/run-options.ts). The built-in executor runs no Terraform; an agent pipeline reads them from the
 *   run. Old runs get `{}`, read as HCP's defaults.
 * - `runs.operation`: HCP's operation of the run (`plan_only`, `destroy`, …), kept apart so the run list's
 *   `filter[operation]` is a plain indexed comparison on both databases.
 * - `runs.confirmed_by_user_id`: the user who applied the run (HCP's `confirmed-by`); null until then, and
 *   for auto-applied runs and callers that are no user.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('options', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await db.schema.alterTable('runs').addColumn('operation', 'text', (c) => c.notNull().defaultTo('plan_and_apply')).execute();
  await db.schema.alterTable('runs').addColumn('confirmed_by_user_id', 'text').execute();
  await sql`update runs set operation = case when plan_only = 1 then 'plan_only' when is_destroy = 1 then 'destroy' else 'plan_and_apply' end`.execute(db);
}
