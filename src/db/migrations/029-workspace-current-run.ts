import type { Kysely } from 'kysely';

/**
 * HCP's `current-run` of a workspace (issue 34): the run that took the workspace's turn last, so the one that
 * holds it while one does (terraform's `cloud` block and the console read it). Written by run progress in the
 * transaction that takes the turn; null until a run did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('current_run_id', 'text').execute();
}
