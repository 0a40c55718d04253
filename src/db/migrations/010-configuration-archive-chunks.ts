import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Configuration archives (up to 100 MiB) move from one column of `configuration_versions` into pieces of
 * their own rows, so that storing or serving one never holds the whole archive in memory (issue 14). The
 * database stays the one store every node shares. Archives already uploaded become a single piece.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema
    .createTable('configuration_archive_chunks')
    .addColumn('configuration_version_id', 'text', (c) => c.notNull().references('configuration_versions.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('data', binary, (c) => c.notNull())
    .addPrimaryKeyConstraint('configuration_archive_chunks_pk', ['configuration_version_id', 'position'])
    .execute();
  await sql`insert into configuration_archive_chunks (configuration_version_id, position, data)
    select id, 0, archive from configuration_versions where archive is not null`.execute(db);
  await db.schema.alterTable('configuration_versions').dropColumn('archive').execute();
}
