import type { Kysely } from 'kysely';

/**
 * Who invited a member (issue 38): the user behind the invitation (a person, or a team token's service
 * account), so the invitation page can say "alice invited you to acme". Nullable and additive: invitations made
 * before this migration, or by a token that is no user (the organization token, the site admin), name nobody.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organization_memberships').addColumn('invited_by_user_id', 'text').execute();
}
