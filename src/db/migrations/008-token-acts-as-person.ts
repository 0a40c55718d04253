import type { Kysely } from 'kysely';

/**
 * Whether a team token may act as a person (create runs, override). A token minted by the organization
 * token, or by a token it minted, may not: otherwise the organization token could mint itself those rights.
 * Tokens issued before this column existed keep acting as they did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('acts_as_person', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}
