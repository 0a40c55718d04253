import type { Kysely } from 'kysely';

/**
 * Team access to one project (issue 36, HCP's `team-projects`): `read`, `write`, `maintain`, `admin` or
 * `custom`, with HCP's project-access and workspace-access keys stored as JSON objects holding every key (a fixed
 * level stores its own values, so a row always says everything it grants; src/access/project-access.ts). The
 * project's workspaces inherit it. One row per team and project; it goes with either of them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('team_projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('project_access', 'text', (c) => c.notNull())
    .addColumn('workspace_access', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('team_projects_team_project', ['team_id', 'project_id'])
    .execute();
  await db.schema.createIndex('team_projects_project').on('team_projects').column('project_id').execute();
  await db.schema.createIndex('team_projects_organization_team').on('team_projects').columns(['organization_name', 'team_id']).execute();
}
