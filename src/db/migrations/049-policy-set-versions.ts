import type { Kysely } from 'kysely';

/**
 * Policy set versions (issue 37): HCP's `POST /policy-sets/:id/versions`, an archive of policies uploaded once
 * through an unguessable URL (only its hash is stored). The archive is read when it arrives and its policies
 * become the set's; the version keeps only its outcome (`ready`, or `errored` with why), never the archive.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('policy_set_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_timestamps', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('upload_token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('policy_set_versions_upload_token').unique().on('policy_set_versions').column('upload_token_hash').execute();
  await db.schema.createIndex('policy_set_versions_set').on('policy_set_versions').column('policy_set_id').execute();
}
