import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Takes the organization's row lock for the rest of the transaction (a no-op update: portable, a row lock on
 * PostgreSQL and the write lock on SQLite), so a per-organization limit's count and the insert it guards run
 * one creation after the other (policies per organization: policies.repository.ts).
 */
export async function lockOrganizationRow(executor: Kysely<Database> | Transaction<Database>, organizationName: string): Promise<void> {
  await executor.updateTable('organizations').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('name', '=', organizationName).execute();
}
