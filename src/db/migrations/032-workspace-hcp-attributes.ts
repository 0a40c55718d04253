import { sql, type Kysely } from 'kysely';
import { newId } from '../../core/ids.js';

/**
 * What go-tfe, the tfe provider and terraform's cloud block read and write on a workspace (issue 37):
 *
 * - `auto_destroy_at`: stored and echoed (Teamstage queues no destroy on a schedule); `operations` is read from
 *   the execution mode, as HCP derives it (false: local).
 * - `execution_mode_overwritten`: HCP's `setting-overwrites.execution-mode`. 0: the workspace follows its
 *   organization's `default-execution-mode` (its `execution_mode` is kept equal to it). Existing workspaces
 *   chose their mode themselves: 1.
 * - `locked`, `locked_by_kind`, `locked_by_id`: HCP's workspace lock (`actions/lock`), who holds it.
 * - `organization_tags`, `workspace_tags`: HCP's tags (`tag-` ids, per organization), the source of
 *   `tag-names`, which keeps being written as the tags' names for the serializer.
 * - `workspace_remote_state_consumers`: who may read the workspace's state (HCP's remote state consumers);
 *   Teamstage keeps no state, so it only records the list.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('auto_destroy_at', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('execution_mode_overwritten', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('workspaces').addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('workspaces').addColumn('locked_by_kind', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('locked_by_id', 'text').execute();

  await db.schema
    .createTable('organization_tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('organization_tags_name_unique', ['organization_name', 'name'])
    .execute();
  await db.schema
    .createTable('workspace_tags')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('tag_id', 'text', (c) => c.notNull().references('organization_tags.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_tags_pk', ['workspace_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('workspace_tags_tag').on('workspace_tags').column('tag_id').execute();

  await db.schema
    .createTable('workspace_remote_state_consumers')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('consumer_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_remote_state_consumers_pk', ['workspace_id', 'consumer_id'])
    .execute();
  await db.schema.createIndex('workspace_remote_state_consumers_consumer').on('workspace_remote_state_consumers').column('consumer_id').execute();
  // Tags set before this migration through the `tag-names` attribute become tags.
  const tagged = await sql<{ id: string; organization_name: string; tag_names: string }>`
    select id, organization_name, tag_names from workspaces where tag_names <> '[]'`.execute(db);
  const now = new Date().toISOString();
  for (const workspace of tagged.rows) {
    const names = [...new Set(JSON.parse(workspace.tag_names) as string[])];
    for (const [position, name] of names.entries()) {
      const existing = await sql<{ id: string }>`select id from organization_tags where organization_name = ${workspace.organization_name} and name = ${name}`.execute(db);
      let tagId = existing.rows[0]?.id;
      if (!tagId) {
        tagId = newId('tag');
        await sql`insert into organization_tags (id, organization_name, name, created_at) values (${tagId}, ${workspace.organization_name}, ${name}, ${now})`.execute(db);
      }
      await sql`insert into workspace_tags (workspace_id, tag_id, position) values (${workspace.id}, ${tagId}, ${position})`.execute(db);
    }
  }
}
