import type { Kysely } from 'kysely';

/**
 * Workspace settings the `tfe` provider and go-tfe set (issue 28): stored and returned, so a second plan
 * shows no changes. One column each, so a PATCH writes only what it sends and never merges a read value
 * (no read-modify-write to lose under concurrent updates). Lists are JSON arrays of strings. Defaults are
 * what HCP Terraform answers for a workspace created without them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const flags: Array<[string, 0 | 1]> = [
    ['allow_destroy_plan', 1],
    ['assessments_enabled', 0],
    ['auto_apply_run_trigger', 0],
    ['file_triggers_enabled', 1],
    ['global_remote_state', 0],
    ['queue_all_runs', 0],
    ['speculative_enabled', 1],
    ['structured_run_output_enabled', 1],
  ];
  for (const [column, value] of flags) {
    await db.schema.alterTable('workspaces').addColumn(column, 'integer', (c) => c.notNull().defaultTo(value)).execute();
  }
  for (const column of ['trigger_prefixes', 'trigger_patterns', 'tag_names']) {
    await db.schema.alterTable('workspaces').addColumn(column, 'text', (c) => c.notNull().defaultTo('[]')).execute();
  }
  for (const column of ['source_name', 'source_url', 'terraform_version']) {
    await db.schema.alterTable('workspaces').addColumn(column, 'text').execute();
  }
}
