import type { Kysely } from 'kysely';

/**
 * Policies and policy sets (issue 29, HCP's OPA policy API). A policy is a Rego text with the query that
 * judges it and its enforcement level; `rego_version` is the syntax OPA compiled it with at upload (v1, or v0
 * for the older syntax). A policy set groups policies and applies to workspaces: globally (every workspace of
 * its organization) or to the workspaces it lists; either way never to its excluded workspaces.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('policies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('enforcement_level', 'text', (c) => c.notNull())
    /** null until uploaded. */
    .addColumn('rego', 'text')
    .addColumn('rego_version', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('policies_organization_name', ['organization_name', 'name'])
    .execute();

  await db.schema
    .createTable('policy_sets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('overridable', 'integer', (c) => c.notNull())
    .addColumn('global', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('policy_sets_organization_name', ['organization_name', 'name'])
    .execute();

  await db.schema
    .createTable('policy_set_policies')
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('policy_id', 'text', (c) => c.notNull().references('policies.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('policy_set_policies_pk', ['policy_set_id', 'policy_id'])
    .execute();
  await db.schema.createIndex('policy_set_policies_policy').on('policy_set_policies').column('policy_id').execute();

  await db.schema
    .createTable('policy_set_workspaces')
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    /** 0: the set applies to the workspace; 1: the workspace is excluded from it. */
    .addColumn('excluded', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('policy_set_workspaces_pk', ['policy_set_id', 'workspace_id', 'excluded'])
    .execute();
  await db.schema.createIndex('policy_set_workspaces_workspace').on('policy_set_workspaces').column('workspace_id').execute();
}
