import type { Kysely } from 'kysely';

/**
 * Policy set parameters (issue 37 item 7): HCP's key/value pairs of a policy set (`/policy-sets/:id/parameters`,
 * type `vars`, category `policy-set`). Sentinel reads them; Teamstage runs no Sentinel, so they are kept for the
 * clients and migrations that write them. A sensitive value is write-only (never served back).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('policy_set_parameters')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('sensitive', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('policy_set_parameters_key').unique().on('policy_set_parameters').columns(['policy_set_id', 'key']).execute();
}
