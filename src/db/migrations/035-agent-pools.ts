import type { Kysely } from 'kysely';

/**
 * Agent pools and agent tokens (issue 36, HCP's agent pools): an agent-mode workspace names its pool
 * (`workspaces.agent_pool_id`), and a pool's agent tokens (`tokens.kind = 'agent'`, `tokens.agent_pool_id`)
 * may drive the pipeline protocol for those workspaces and nothing else. A pool that is not
 * organization-scoped may be chosen only by its allowed workspaces. Deleting a pool deletes its tokens and
 * leaves its workspaces without a pool.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_pools')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('organization_scoped', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('agent_pools_organization_name', ['organization_name', 'name'])
    .execute();
  await db.schema
    .createTable('agent_pool_allowed_workspaces')
    .addColumn('agent_pool_id', 'text', (c) => c.notNull().references('agent_pools.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('agent_pool_allowed_workspaces_pk', ['agent_pool_id', 'workspace_id'])
    .execute();
  await db.schema.alterTable('workspaces').addColumn('agent_pool_id', 'text', (c) => c.references('agent_pools.id').onDelete('set null')).execute();
  await db.schema.alterTable('tokens').addColumn('agent_pool_id', 'text', (c) => c.references('agent_pools.id').onDelete('cascade')).execute();
  await db.schema.createIndex('tokens_agent_pool').on('tokens').column('agent_pool_id').execute();
}
