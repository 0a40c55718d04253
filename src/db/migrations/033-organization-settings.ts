import type { Kysely } from 'kysely';

/**
 * An organization's HCP settings (issue 37): `default_execution_mode`, which workspaces that do not set
 * their own follow (HCP's setting-overwrites), and the rest of the attributes go-tfe and the provider read
 * and write (`user-tokens-enabled`, `allow-force-delete-workspaces`, session lengths, …) as one JSON object,
 * stored and echoed (src/organizations/organization-settings.ts). Runs keep `save-plan` and
 * `terraform-version` in their existing `options` (migration 022): no column here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('default_execution_mode', 'text', (c) => c.notNull().defaultTo('remote')).execute();
  await db.schema.alterTable('organizations').addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}')).execute();
}
