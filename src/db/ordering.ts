import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * ORDER BY a text column by code point on both dialects. SQLite compares bytes already (BINARY); PostgreSQL
 * sorts by the database's locale, which on a typical `en_US` server ignores `-` and `_` and would order
 * `a_b`, `a-b`, `ab` differently from SQLite. `collate "C"` makes both agree.
 */
export function codePointOrder(db: Kysely<any>, column: string): RawBuilder<string> {
  return db.getExecutor().adapter instanceof PostgresAdapter ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`;
}
