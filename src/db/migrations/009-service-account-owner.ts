import { sql, type Kysely } from 'kysely';

/**
 * Service accounts are found by their flag and owner (`team:<id>`, `organization:<name>`, `site-admin`),
 * no longer by username, which a person could take first. Existing service accounts get their owner from
 * the name they were created with; a team that adopted a person as its account (by name) loses the link,
 * and gets a real service account on next need.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('service_account_owner', 'text').execute();
  await db.schema.createIndex('users_service_account_owner').on('users').column('service_account_owner').unique().execute();
  await sql`update users set service_account_owner = 'team:team-' || substr(username, 10)
    where is_service_account = 1 and substr(username, 1, 9) = 'api-team_'`.execute(db);
  await sql`update users set service_account_owner = 'organization:' || substr(username, 9)
    where is_service_account = 1 and substr(username, 1, 8) = 'api-org-'`.execute(db);
  await sql`update users set service_account_owner = 'site-admin' where is_service_account = 1 and username = 'api-site-admin'`.execute(db);
  await sql`update teams set service_account_user_id = null
    where service_account_user_id in (select id from users where is_service_account = 0)`.execute(db);
}
