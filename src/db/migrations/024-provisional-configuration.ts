import { sql, type Kysely } from 'kysely';

/**
 * HCP Terraform's provisional configuration versions and a workspace's current configuration version
 * (go-tfe, issue 28):
 *
 * - `configuration_versions.provisional`: made with `provisional: true`, the version does not become the
 *   workspace's current one when it is made, only once a run made from it is applied.
 * - `workspaces.current_configuration_version_id`: the newest version made that is not provisional (or a
 *   provisional one whose run was applied): HCP's `current-configuration-version` relationship. Existing
 *   workspaces take their newest version.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('configuration_versions').addColumn('provisional', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('workspaces').addColumn('current_configuration_version_id', 'text').execute();
  await sql`update workspaces set current_configuration_version_id = (
    select cv.id from configuration_versions cv where cv.workspace_id = workspaces.id order by cv.created_at desc, cv.id desc limit 1
  )`.execute(db);
}
