import { sql, type Kysely } from 'kysely';
import { newId } from '../../core/ids.js';

/**
 * Projects (issue 36, HCP's projects): an organization's workspaces are grouped in projects, and every
 * organization has a "Default Project" that workspaces land in when they name none. `default_of` holds the
 * organization's name on its default project only (null elsewhere; a unique column, so one default each, and
 * nulls never collide in either dialect). `workspaces.project_id` is null only for a workspace an older node
 * created during a rolling upgrade: readers take null as the default project. Existing organizations get their
 * default project here and their workspaces are moved into it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('auto_destroy_activity_duration', 'text')
    .addColumn('default_execution_mode', 'text')
    .addColumn('default_agent_pool_id', 'text', (c) => c.references('agent_pools.id').onDelete('set null'))
    .addColumn('default_of', 'text', (c) => c.unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('projects_organization_name_lower', ['organization_name', 'name_lower'])
    .execute();
  await db.schema.alterTable('workspaces').addColumn('project_id', 'text', (c) => c.references('projects.id')).execute();
  await db.schema.createIndex('workspaces_project').on('workspaces').column('project_id').execute();

  const now = new Date().toISOString();
  const organizations = await sql<{ name: string }>`select name from organizations`.execute(db);
  for (const { name } of organizations.rows) {
    await sql`insert into projects (id, organization_name, name, name_lower, description, default_of, created_at, updated_at)
      values (${newId('prj')}, ${name}, 'Default Project', 'default project', '', ${name}, ${now}, ${now})`.execute(db);
  }
  await sql`update workspaces set project_id = (select projects.id from projects where projects.default_of = workspaces.organization_name)
    where project_id is null`.execute(db);
}
