import type { Kysely } from 'kysely';

/**
 * Policy set versions (issue 37): HCP's `POST /policy-sets/:id/versions`, an archive of policies uploaded once
 * through an unguessable URL, found by its hash. HCP shows the URL on every read of a pending version (go-tfe reads
 * the version, then uploads to the link it read), so the token is kept too, but only while the version is pending:
 * it is erased when the archive arrives. The archive is read when it arrives and its policies become the set's;
 * the version keeps only its outcome (`ready`, or `errored` with why), never the archive.
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
    .addColumn('upload_token', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('policy_set_versions_upload_token').unique().on('policy_set_versions').column('upload_token_hash').execute();
  await db.schema.createIndex('policy_set_versions_set').on('policy_set_versions').column('policy_set_id').execute();
}
