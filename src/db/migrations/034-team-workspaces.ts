import type { Kysely } from 'kysely';

/**
 * Team access to one workspace (issue 36, HCP's `team-workspaces`): a team holds `read`, `plan`, `write`, `admin`
 * or `custom` access on a workspace, with HCP's custom keys stored as sent (a fixed level stores its own keys, so
 * a row always says everything it grants). One row per team and workspace; it goes with either of them.
 * `organization_name` lets a member's grants in an organization be read in one statement (the workspace list).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('team_workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('runs', 'text', (c) => c.notNull())
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('state_versions', 'text', (c) => c.notNull())
    .addColumn('sentinel_mocks', 'text', (c) => c.notNull())
    .addColumn('workspace_locking', 'integer', (c) => c.notNull())
    .addColumn('run_tasks', 'integer', (c) => c.notNull())
    .addColumn('policy_overrides', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('team_workspaces_team_workspace', ['team_id', 'workspace_id'])
    .execute();
  await db.schema.createIndex('team_workspaces_workspace').on('team_workspaces').column('workspace_id').execute();
  await db.schema.createIndex('team_workspaces_organization_team').on('team_workspaces').columns(['organization_name', 'team_id']).execute();
}
