import type { Kysely } from 'kysely';

/**
 * Who created each organization (issue 25 item 9), so that TEAMSTAGE_ORGANIZATIONS_PER_USER can count a
 * user's organizations. Null for the site admin's and for organizations made before this migration, which
 * count against nobody.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('created_by_user_id', 'text').execute();
  await db.schema.createIndex('organizations_created_by').on('organizations').column('created_by_user_id').execute();
}
