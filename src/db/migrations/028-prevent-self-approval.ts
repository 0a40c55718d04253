import type { Kysely } from 'kysely';

/**
 * Approvals are people (issue 34): whether a run's author may approve their own run where a stage needs more
 * than one approval (HCP's "prevent self-approval" idea). On by default, for the workspaces that exist too:
 * four eyes asked for are four eyes given. Read when an override is decided and when approvals are counted,
 * so a change applies to runs already waiting (shared/override-rule.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('prevent_self_approval', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}
