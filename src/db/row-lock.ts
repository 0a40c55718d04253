import type { SelectQueryBuilder } from 'kysely';
import type { Dialect } from './database.js';

/**
 * The read of a read-modify-write, inside its transaction: the rows stay as read until it commits.
 * PostgreSQL: `FOR UPDATE`, so a concurrent read-modify-write of the same row, on any node, waits and then
 * reads what this one wrote. SQLite has no row locks and needs none: its transactions begin IMMEDIATE
 * (sqlite-immediate-transactions.ts), holding the database's write lock from the first statement.
 */
export function forUpdate<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, dialect: Dialect): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate() : query;
}
