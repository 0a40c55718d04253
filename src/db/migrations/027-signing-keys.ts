import type { Kysely } from 'kysely';

/**
 * Keys the server signs its own URLs with (first: the plans' and applies' `log-read-url`, HCP's signed log
 * URL that terraform and go-tfe read without a token). One row per use, made once by whichever node needs
 * it first, so every node of a cluster signs and checks with the same key. Never returned by the API.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
