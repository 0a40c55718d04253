import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('username_lower', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text')
    .addColumn('email_lower', 'text', (c) => c.unique())
    .addColumn('is_service_account', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('organizations')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('name_lower', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('feature_set', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('organization_name', 'text', (c) => c.references('organizations.name').onDelete('cascade'))
    .addColumn('team_id', 'text')
    .addColumn('is_legacy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('description', 'text')
    .addColumn('created_by_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expired_at', 'text')
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('tokens_team_description').on('tokens').columns(['team_id', 'description']).unique().execute();
  await db.schema.createIndex('tokens_user').on('tokens').column('user_id').execute();

  await db.schema
    .createTable('organization_memberships')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('organization_memberships_org_user', ['organization_name', 'user_id'])
    .execute();
  await db.schema.createIndex('organization_memberships_user').on('organization_memberships').column('user_id').execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('sso_team_id', 'text')
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('allow_member_token_management', 'integer', (c) => c.notNull())
    .addColumn('organization_access', 'text', (c) => c.notNull())
    .addColumn('is_owners', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('service_account_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // Case-insensitive uniqueness lives in the database, so concurrent creates cannot both win.
    .addUniqueConstraint('teams_org_name_lower', ['organization_name', 'name_lower'])
    .execute();

  await db.schema
    .createTable('team_memberships')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('organization_membership_id', 'text', (c) =>
      c.notNull().references('organization_memberships.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_memberships_pk', ['team_id', 'organization_membership_id'])
    .execute();
  await db.schema
    .createIndex('team_memberships_membership')
    .on('team_memberships')
    .column('organization_membership_id')
    .execute();
}
