import type { Kysely } from 'kysely';

/**
 * More than one approver, per workspace (issue 27): a workspace may require the overrides of N distinct people
 * before any of its task stages awaiting one moves on (default 1, the seed's behaviour). Each task stage keeps
 * the number its workspace had when the run was created, as each result keeps its workspace task's (016): a
 * stage needs the most of the two (shared/override-rule.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('required_approvals', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('task_stages').addColumn('required_approvals', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}
